// A card's strength level, in one tip for the whole page (so never two at
// once), shown only when the person asks: the mouse over a card, the keyboard
// moving onto it (Tab, the arrow keys), or a long press on a touch screen. A
// focus the page moves itself (a new turn: focusHand, focusTurn) shows none,
// so a phone shows no tip by itself. The tip lies over the card's own foot,
// inside the hand: it covers none of your seat's words and chips (above the
// hand), nor the signs, the prompt or Play (below it).
import {$} from "./dom.js";

const TIPPED = ".hand-card, .slot .card"; // the cards whose strength shows (data-tip)
let shownFor = null;
let keyboard = false; // the person's last input was a key, not a pointer
let quiet = false;

function place(card) {
  const tip = $("card-tip");
  const box = card.getBoundingClientRect();
  const width = tip.offsetWidth;
  const left = Math.max(4, Math.min(box.left + box.width / 2 - width / 2,
                                    document.documentElement.clientWidth - width - 4));
  const top = box.bottom - tip.offsetHeight - Math.min(6, box.height / 10);
  tip.style.left = `${left}px`; // the viewport's coordinates (position: fixed)
  tip.style.top = `${Math.max(box.top, top)}px`;
}
function show(card) {
  const tip = $("card-tip");
  shownFor = card;
  tip.textContent = card.dataset.tip;
  tip.hidden = false;
  place(card);
}
// The tip goes (of ``card`` only, if given; none: whichever is shown).
export function hideTip(card = null) {
  if (card && card !== shownFor) return;
  shownFor = null;
  $("card-tip").hidden = true;
}
// The tip of a card no longer on the page goes.
export function tipGone() { if (shownFor && !shownFor.isConnected) hideTip(); }
// Focus an element without showing its tip (the page's own move of the focus).
export function focusQuietly(el) {
  quiet = true;
  try { el.focus({preventScroll: true}); } finally { quiet = false; }
}

export function setupTips() {
  const tipped = (e) => (e.target instanceof Element ? e.target.closest(TIPPED) : null);
  document.addEventListener("keydown", () => { keyboard = true; }, true);
  document.addEventListener("pointerdown", (e) => {
    keyboard = false;
    if (shownFor && !shownFor.contains(e.target)) hideTip();
  }, true);
  document.addEventListener("pointerover", (e) => {
    const card = tipped(e);
    if (card && e.pointerType === "mouse") show(card);
  });
  document.addEventListener("pointerout", (e) => {
    const card = tipped(e);
    if (card && !card.contains(e.relatedTarget)) hideTip(card);
  });
  document.addEventListener("focusin", (e) => {
    const card = tipped(e);
    if (card && keyboard && !quiet) show(card);
    else if (shownFor && !shownFor.contains(e.target) && !shownFor.matches(":hover")) hideTip();
  });
  document.addEventListener("focusout", (e) => {
    const card = tipped(e);
    if (card && !card.matches(":hover")) hideTip(card);
  });
  document.addEventListener("contextmenu", (e) => { // a long press (touch), or the mouse's other button
    const card = tipped(e);
    if (!card) return;
    e.preventDefault();
    show(card);
  });
  window.addEventListener("scroll", () => hideTip(), {passive: true});
  window.addEventListener("resize", () => hideTip());
}
