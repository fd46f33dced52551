// The match: your moves sent to the server (a card, a sign, the next deal, a
// new match) and its answer shown event by event at the page's pace; the deal
// shown as the page opens, kept only by its first move; a link the server no
// longer knows.
import {api, clearError, showError} from "./api.js";
import {$, sleep, STORE} from "./dom.js";
import {t} from "./i18n.js";
import {showing} from "./matches.js";
import {announce, focusTurn, mayPlay, render} from "./render.js";
import {pace} from "./settings.js";
import {get, set, told} from "./state.js";

let movesShown = 0; // your moves answered and shown (tests wait on body[data-moves])

// The server has no game for this link (mistyped, or kept in another
// database): say so, and let the person start a new match. Never a silent restart.
export function showLost() {
  // The stored id stays: a reload says this again, until a new match.
  set({lost: true, gameId: null});
  $("lost-text").textContent = t("This server has no game with this link.");
  const dialog = $("lost");
  if (!dialog.open) dialog.showModal();
  render();
}

// Show the events of a move (an answer, or a push of the others' moves) one
// at a time, each by the view the server sent with it, then the server's
// final view, or a newer one it was told of meanwhile. A finished trick stays in view
// longer, with its reason.
export async function playEvents(events, finalState, answer = true) {
  set({busy: true});
  for (const ev of events) {
    set({view: ev.view});
    render();
    if (ev.type === "play" || ev.type === "trick" || ev.type === "sign") announce(ev.text);
    else if (ev.type === "deal_over") announce(ev.text.join(" "));
    if ((ev.type === "play" || ev.type === "sign") && ev.seat !== 0) await sleep(pace());
    else if (ev.type === "trick") await sleep(pace() * 2.5);
  }
  set({busy: false});
  set({view: told(finalState)}); // or a newer view pushed meanwhile
  if (answer) movesShown += 1;
  document.body.dataset.moves = String(movesShown);
  render();
  if (get("view").your_turn) focusTurn();
}

// The game a seat's move is made on: the game shown, or the deal shown as the
// page opened (a draft, kept nowhere yet), kept now by its first move (sent
// again, the server answers the same game).
export async function kept() {
  const draft = get("draft");
  if (get("gameId") || !draft) return get("gameId");
  const data = await api("POST", "/api/games", {draft});
  set({gameId: data.id, lost: false});
  showing(data.id, false);
  return data.id;
}

// A request and its answer shown; ``path`` is the request's path, or a
// function of the game's token for a move of the seat (which keeps a draft).
async function move(method, path, body) {
  if (get("busy")) return;
  set({busy: true});
  clearError();
  render();
  try {
    const data = await api(method, typeof path === "function" ? path(await kept()) : path, body);
    if (data.id) { set({gameId: data.id, lost: false}); showing(data.id, false); }
    else if (data.draft) {
      sessionStorage.setItem(STORE.draft, data.draft);
      set({gameId: null, draft: data.draft, lost: false});
    }
    set({selected: null});
    await playEvents(data.events, data.state);
  } catch (err) {
    set({busy: false});
    if (err.code === "no_game") { showLost(); return; }
    if (err.code === "draft_gone") { // dealt too long ago: a new deal, and why
      sessionStorage.removeItem(STORE.draft);
      set({draft: null});
      await dealDraft();
      showError(err);
      return;
    }
    const gameId = get("gameId");
    if (err.status === 409 && gameId) { // a stale view: show the game as it is
      try { set({view: told((await api("GET", `/api/games/${gameId}`)).state)}); } catch { /* keep the error */ }
    }
    showError(err);
    render();
  }
}

export function playSelected() {
  const selected = get("selected");
  if (!mayPlay(selected)) return;
  move("POST", (id) => `/api/games/${id}/play`, {card: selected, version: get("view").version});
}
export function makeSign(sign) {
  const view = get("view");
  if (!view || !view.your_turn || get("busy") || get("lost") || !view.sign_choices.includes(sign)) return;
  move("POST", (id) => `/api/games/${id}/sign`, {sign, version: view.version});
}
export function nextDeal() { move("POST", `/api/games/${get("gameId")}/next-deal`, {version: get("view").version}); }
// What would replace a match in progress (a new match, a table of friends)
// asks first; the dialog's answer runs it (main.js: confirmed()).
let asked = null;
export function askFirst(action) {
  const view = get("view");
  if (view && view.in_progress && get("gameId") && !get("lost")) {
    asked = action;
    $("confirm-new").showModal();
    return;
  }
  action();
}
export function confirmed() {
  const action = asked;
  asked = null;
  if (action) action();
}
// A person who was away (the AI played for them) takes their seat back: any
// request with their link does it.
export function takeSeatBack() { move("GET", `/api/games/${get("gameId")}`); }
export function newMatch(sure) {
  if (!sure) { askFirst(() => newMatch(true)); return; }
  const view = get("view");
  const gameId = get("gameId");
  const lost = get("lost");
  set({showLastTrick: false});
  if (gameId && !lost) move("POST", `/api/games/${gameId}/new-match`, view ? {version: view.version} : {});
  else startGame();
}
// The settings' signs option for a new game: {signs, catch} (the chance typed in
// percent; the server checks it), or nothing without signs.
export function signsChoice(box, chance) {
  if (!$(box).checked) return {};
  const typed = $(chance).value.trim();
  const percent = typed !== "" && Number.isFinite(Number(typed)) ? Number(typed) : NaN;
  return {signs: true, catch: Number.isFinite(percent) ? percent / 100 : typed};
}
// What the settings ask of a new match: the AI of each seat, and the signs.
function newMatchChoice() {
  const choice = {};
  for (const select of document.querySelectorAll("select[data-role]")) if (select.value) choice[select.dataset.role] = select.value;
  return {...choice, ...signsChoice("signs-on", "signs-catch")};
}
// A new match, kept at once (New match, the settings' Start).
export function startGame() { return move("POST", "/api/games", newMatchChoice()); }
// The deal the page shows as it opens, kept by its first move only
// (aluette_env/apps/web/drafts.py): ``saved``, this tab's draft shown again
// (a reload; one too old to keep is dealt anew), or a new deal with the
// settings' players.
export function dealDraft(saved = null) {
  return move("POST", "/api/drafts", saved ? {draft: saved} : newMatchChoice());
}
