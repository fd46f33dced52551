// Your hand and your signs by mouse and keyboard: a card chosen, then played
// (a second click, Enter or Play); the arrows, Home and End move in the hand
// (in the page's direction), Escape lets go of the chosen card.
import {$} from "./dom.js";
import {makeSign, playSelected} from "./match.js";
import {focusHand, mayPlay, render} from "./render.js";
import {get, set} from "./state.js";

function onCardClick(card, index) {
  set({focusIndex: index});
  if (!mayPlay(card)) return;
  if (get("selected") === card) { playSelected(); return; }
  set({selected: card});
  render();
  focusHand();
}

function onHandKey(event) {
  const buttons = [...$("hand").querySelectorAll(".hand-card")];
  if (!buttons.length) return;
  const rtl = document.documentElement.dir === "rtl";
  const focusIndex = get("focusIndex");
  let next = null;
  if (event.key === "ArrowRight") next = focusIndex + (rtl ? -1 : 1);
  else if (event.key === "ArrowLeft") next = focusIndex + (rtl ? 1 : -1);
  else if (event.key === "ArrowDown") next = focusIndex + 1;
  else if (event.key === "ArrowUp") next = focusIndex - 1;
  else if (event.key === "Home") next = 0;
  else if (event.key === "End") next = buttons.length - 1;
  else if (event.key === "Escape") {
    if (get("selected") !== null) { set({selected: null}); render(); focusHand(); event.preventDefault(); }
    return;
  } else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    onCardClick(get("view").hand[focusIndex], focusIndex);
    return;
  } else return;
  event.preventDefault();
  const moved = (next + buttons.length) % buttons.length;
  set({focusIndex: moved});
  buttons.forEach((b, i) => { b.tabIndex = i === moved ? 0 : -1; });
  buttons[moved].focus();
}

export function setupKeys() {
  const hand = $("hand");
  hand.addEventListener("keydown", onHandKey);
  // The hand's buttons (render.js draws them anew on each view): a click on one.
  hand.addEventListener("click", (e) => {
    const button = e.target.closest(".hand-card");
    if (button) onCardClick(Number(button.dataset.card), [...hand.children].indexOf(button));
  });
  $("sign-buttons").addEventListener("click", (e) => {
    const button = e.target.closest(".sign-button");
    if (button) makeSign(Number(button.dataset.sign));
  });
  $("confirm").addEventListener("click", playSelected);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && get("selected") !== null && !document.querySelector("dialog[open]")) {
      set({selected: null});
      render();
      focusHand();
    }
  });
}
