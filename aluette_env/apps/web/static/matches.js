// My matches: this browser's links (the server keeps only their hashes),
// newest first; the server says where each match stands, and any of them
// opens again.
import {api, showError} from "./api.js";
import {$, STORE} from "./dom.js";
import {lang, list as listOf, t} from "./i18n.js";
import {atTable, render} from "./render.js";
import {get, set, told} from "./state.js";

function myTokens() {
  try { return JSON.parse(localStorage.getItem(STORE.matches) || "[]").filter((x) => typeof x === "string"); } catch { return []; }
}
export function remember(token) {
  const tokens = [token, ...myTokens().filter((x) => x !== token)].slice(0, 100);
  localStorage.setItem(STORE.matches, JSON.stringify(tokens));
}
// The game shown from now on: kept for a reload of this tab, in My matches,
// and in the address, so that the address reopens it. A table of people
// (``table``) is kept for this browser's next visit too (main.js), until a
// game of one's own (``table`` false) takes its place.
export function showing(token, table) {
  sessionStorage.setItem(STORE.game, token);
  sessionStorage.removeItem(STORE.draft);
  set({draft: null});
  remember(token);
  history.replaceState(null, "", `${location.pathname}?seat=${encodeURIComponent(token)}`);
  if (table) localStorage.setItem(STORE.table, token);
  else if (table === false) localStorage.removeItem(STORE.table);
}
// The people of a match as its reader names them ("Bob", or their place).
function peopleOf(match) {
  const places = [t("You"), t("West"), t("Partner"), t("East")];
  return Object.entries(match.names).map(([seat, name]) => name || places[Number(seat)]);
}
export async function showMyMatches() {
  const list = $("my-matches");
  list.replaceChildren();
  const tokens = myTokens();
  if (!tokens.length) return;
  const data = await api("POST", "/api/my-matches", {tokens});
  for (const match of data.matches) {
    const item = document.createElement("li");
    const text = match.finished ? t("Match over: {us} to {them}", {us: match.points[0], them: match.points[1]}) :
      t("Deal {deal} of {of}: {us} to {them}", {deal: match.deal, of: match.of, us: match.points[0], them: match.points[1]});
    const when = new Date(match.updated * 1000).toLocaleString(lang());
    const people = peopleOf(match);
    const withWhom = people.length ? ` · ${t("With {names}", {names: listOf(people)})}` : "";
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = t("Open");
    button.disabled = match.token === get("gameId");
    button.addEventListener("click", async () => {
      try {
        const state = (await api("GET", `/api/games/${match.token}`)).state;
        set({gameId: match.token});
        set({view: told(state)});
        showing(match.token, atTable(state));
        set({lost: false, selected: null});
        $("settings").close();
        render();
      } catch (err) { showError(err); }
    });
    item.append(`${when}${withWhom} · ${text} `, button);
    list.append(item);
  }
}
