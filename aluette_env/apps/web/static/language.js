// The page's language: its catalog asked of the server, every word of the
// page written again in it, and the game worded by the server in it.
import {api} from "./api.js";
import {$, STORE} from "./dom.js";
import {dir, setCatalog, t} from "./i18n.js";
import {showLost} from "./match.js";
import {loadPlayers, syncPlayers} from "./players.js";
import {render, renderRankOrder} from "./render.js";
import {showSettings} from "./settings.js";
import {get, set, told} from "./state.js";

let languages = [];
let languageLoaded;
// Kept once the first language is loaded (the coach waits on it).
export const languageReady = new Promise((resolve) => { languageLoaded = resolve; });

export function setLanguages(codes) { languages = codes; }

export async function setLanguage(lang) {
  if (!languages.includes(lang)) lang = "en";
  setCatalog(await api("GET", `/api/i18n/${lang}`));
  localStorage.setItem(STORE.lang, lang);
  document.documentElement.lang = lang;
  document.documentElement.dir = dir();
  $("language").value = lang;
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  for (const el of document.querySelectorAll("[data-t-label]")) el.setAttribute("aria-label", t(el.dataset.tLabel));
  for (const el of document.querySelectorAll("[data-t-placeholder]")) el.placeholder = t(el.dataset.tPlaceholder);
  document.title = `Aluette · ${t("The game of the cow")}`;
  renderRankOrder();
  showSettings();
  await loadPlayers();
  syncPlayers();
  for (const slot of document.querySelectorAll(".slot")) slot.replaceChildren(); // redraw faces and ribbons
  const gameId = get("gameId");
  if (gameId && !get("lost") && !get("busy")) { // the server words the game in the new language
    try { set({view: told((await api("GET", `/api/games/${gameId}`)).state)}); } catch (err) { if (err.code === "no_game") showLost(); }
  } else if (get("draft") && !get("busy")) { // the deal not kept yet, in its words
    try { set({view: told((await api("POST", "/api/drafts", {draft: get("draft")})).state)}); } catch { /* kept in the old words */ }
  }
  render();
  document.body.dataset.lang = lang; // every word of the page is now in it
  languageLoaded();
}
