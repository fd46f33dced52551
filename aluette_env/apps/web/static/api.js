// Requests to the server, in the page's language, and the page's words for
// its errors: a request is sent again while the server cannot be reached.
import {$, sleep} from "./dom.js";
import {lang, t} from "./i18n.js";

// What a person reads for each of the API's error codes (the server's own
// words, in English, name the problem for developers and stay in the
// answer's "error"); a code the page does not know reads by its status.
const N_ = (message) => message; // marks a message for the catalog, translated where shown
const ERRORS = {
  no_game: N_("This server has no game with this link."),
  stale: N_("The game moved on before this move arrived, so nothing was changed. The table now shows the game as it is."),
  conflict: N_("The game moved on before this move arrived, so nothing was changed. The table now shows the game as it is."),
  refused: N_("The game cannot take this move now; nothing was changed."),
  spectator: N_("A spectator's link shows the game but cannot play."),
  host_only: N_("At a table of people, only its host starts a new match."),
  too_many_games: N_("This address has started too many new games in the last hour. Go on with a match already started (Settings → My matches), or try again later."),
  draft_gone: N_("This deal was dealt too long ago and was not kept: here is a new one."),
  too_many: N_("Too many unknown game links came from this address. Wait a minute, then try again."),
  worker_restarting: N_("The server is restarting a worker. Try again in a moment."),
  damaged: N_("This game's stored record is damaged and cannot be opened."),
  not_your_turn: N_("A hint is for your turn."),
  bad_record: N_("This file is not a match record of Aluette."),
  no_record: N_("The server no longer has this record: open the file again."),
  away_after: N_("The seconds a friend has to play must be a whole number from {low} to {high}."),
  catch: N_("The chance that an opponent catches a sign must be from 0 to 100%."),
  signs_match: N_("A match with signs has no coach and no record to download."),
};
function errorText(code, status, fields) {
  if (ERRORS[code]) return t(ERRORS[code], fields);
  return status >= 500 ? t("The server had a problem with this request. Try again.") :
    t("The server refused this request.");
}
const RETRY_MS = 2000;
// One request to the server, in the page's language. While the server cannot
// be reached (stopped, restarting, the network down), the request is sent
// again every 2 s and the page says so; a refused connection carried nothing,
// and a play carries its version, so sending it again is safe. So is a
// request the server answered 503 "store_unavailable": its database failed,
// and nothing of the request was kept (the server's game is the database's).
export async function api(method, path, body) {
  const options = {method, headers: {}};
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const sep = path.includes("?") ? "&" : "?";
  let response;
  let data;
  for (;;) {
    try {
      response = await fetch(`${path}${sep}lang=${encodeURIComponent(lang())}`, options);
    } catch (err) {
      offline(true);
      await sleep(RETRY_MS);
      continue;
    }
    data = await response.json().catch(() => ({}));
    if (response.status !== 503 || data.code !== "store_unavailable") break;
    offline(true);
    await sleep(RETRY_MS);
  }
  offline(false);
  if (!response.ok) {
    const err = new Error(errorText(data.code, response.status, data.fields));
    err.status = response.status;
    err.code = data.code;
    err.detail = data.error; // the server's words, for developers
    throw err;
  }
  return data;
}
function offline(waiting) {
  const box = $("offline");
  if (waiting) box.textContent = t("Cannot reach the server; trying again…");
  box.hidden = !waiting;
}
export function showError(err) {
  const box = $("error");
  box.textContent = err.status !== undefined ? err.message : t("Something went wrong: {error}", {error: err.message});
  if (err.detail) box.dataset.detail = err.detail; else delete box.dataset.detail;
  box.hidden = false;
}
export function clearError() { $("error").hidden = true; }
