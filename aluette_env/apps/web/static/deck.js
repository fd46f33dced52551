// The deck (/api/deck: each card's suit and rank index, the strength levels,
// the named cards) and the drawing of a card with its name and strength.
import {cardName, faces, t} from "./i18n.js";

let deck = null; // {suits, ranks, levels, named}
let levelOf = {}; // card id -> strength level, 1 = highest

export function setDeck(loaded) {
  deck = loaded;
  levelOf = {};
  deck.levels.forEach((level, k) => { for (const card of level) levelOf[card] = k + 1; });
}
export function levels() { return deck ? deck.levels : null; }
export function isNamed(card) { return !!deck && deck.named.includes(card); }

function titleOf(card) {
  if (!isNamed(card)) return null;
  const name = cardName(card);
  const dash = name.indexOf(" — ");
  return dash >= 0 ? name.slice(dash + 3) : name;
}
export function levelText(card) {
  return t("Strength {k} of {total} (1 is the highest)", {k: levelOf[card], total: deck.levels.length});
}

// Card `card`'s face as an SVG string (cards.js), its suit and rank the server's;
// `title` and `labels` as cardSvg's.
export function cardSvg(card, title, labels) {
  return window.AluetteCards.cardSvg(deck.suits[card], deck.ranks[card], title, labels);
}

export function cardElement(card, extraClass) {
  const el = document.createElement("span");
  el.className = "card" + (extraClass ? " " + extraClass : "");
  el.innerHTML = cardSvg(card, titleOf(card), faces());
  el.dataset.card = card;
  if (titleOf(card)) el.classList.add("named");
  if (deck) el.dataset.tip = levelText(card);
  return el;
}
