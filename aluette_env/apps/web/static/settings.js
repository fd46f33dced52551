// Settings kept in this browser: the display (contrast, grain, warmth) and
// the pace of the AI's cards.
import {$, STORE} from "./dom.js";
import {number, t} from "./i18n.js";

const DISPLAY_DEFAULT = {contrast: 50, grain: 50, warmth: 50};
// The pause after each AI card, in ms (a finished trick stays 2.5 times as
// long): brisk, about 1.5 s from your card to your next turn; Settings, Pace.
const PACE_DEFAULT = 300;

let display = DISPLAY_DEFAULT;
let paceMs = PACE_DEFAULT;

export function pace() { return paceMs; }

function loadJson(key, fallback) {
  try { return Object.assign({}, fallback, JSON.parse(localStorage.getItem(key) || "{}")); } catch { return Object.assign({}, fallback); }
}
function applyDisplay(d) {
  const root = document.documentElement.style;
  // 50 % is the neutral point of each slider.
  root.setProperty("--contrast", String(0.5 + d.contrast / 100)); // 0.5x - 1.5x
  root.setProperty("--grain", String((d.grain / 100) * 0.5)); // grain layer opacity 0 - 0.5
  const w = (d.warmth - 50) / 50; // -1 cool ... +1 warm
  root.setProperty("--tint", w >= 0 ? `rgba(255, 140, 40, ${0.22 * w})` : `rgba(60, 130, 255, ${-0.22 * w})`);
  $("app").classList.toggle("contrasted", d.contrast !== DISPLAY_DEFAULT.contrast);
  document.querySelector(".grain").hidden = d.grain === 0;
  document.querySelector(".tint").hidden = w === 0;
  for (const key of Object.keys(DISPLAY_DEFAULT)) {
    $(key).value = d[key];
    $(`${key}-out`).textContent = t("{n}%", {n: number(d[key])});
  }
}
function showPace() {
  $("pace").value = paceMs;
  $("pace-out").textContent = t("{s} s", {s: number(paceMs / 1000, {digits: 1})});
}
// The settings' words again, in the page's new language.
export function showSettings() {
  applyDisplay(display);
  showPace();
}

export function setupSettings() {
  display = loadJson(STORE.display, DISPLAY_DEFAULT);
  applyDisplay(display);
  for (const key of Object.keys(DISPLAY_DEFAULT)) {
    $(key).addEventListener("input", (e) => {
      display = Object.assign({}, display, {[key]: Number(e.target.value)});
      applyDisplay(display);
      localStorage.setItem(STORE.display, JSON.stringify(display));
    });
  }
  $("reset-display").addEventListener("click", () => {
    display = Object.assign({}, DISPLAY_DEFAULT);
    applyDisplay(display);
    localStorage.setItem(STORE.display, JSON.stringify(display));
  });
  const stored = localStorage.getItem(STORE.pace);
  paceMs = stored !== null && !Number.isNaN(Number(stored)) ? Number(stored) : PACE_DEFAULT;
  showPace();
  $("pace").addEventListener("input", (e) => { paceMs = Number(e.target.value); localStorage.setItem(STORE.pace, String(paceMs)); showPace(); });
}
