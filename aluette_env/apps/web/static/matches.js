// My matches: this browser's links (the server keeps only their hashes),
// newest first; the server says where each match stands, and any of them
// opens again.
import {api, showError} from "./api.js";
import {$, STORE} from "./dom.js";
import {lang, t} from "./i18n.js";
import {render} from "./render.js";
import {get, set, told} from "./state.js";

function myTokens() {
  try { return JSON.parse(localStorage.getItem(STORE.matches) || "[]").filter((x) => typeof x === "string"); } catch { return []; }
}
export function remember(token) {
  const tokens = [token, ...myTokens().filter((x) => x !== token)].slice(0, 100);
  localStorage.setItem(STORE.matches, JSON.stringify(tokens));
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
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = t("Open");
    button.disabled = match.token === get("gameId");
    button.addEventListener("click", async () => {
      try {
        const state = (await api("GET", `/api/games/${match.token}`)).state;
        set({gameId: match.token});
        set({view: told(state)});
        sessionStorage.setItem(STORE.game, match.token);
        remember(match.token);
        set({lost: false, selected: null});
        $("settings").close();
        render();
      } catch (err) { showError(err); }
    });
    item.append(`${when} · ${text} `, button);
    list.append(item);
  }
}
