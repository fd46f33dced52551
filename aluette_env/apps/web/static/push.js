// The server pushes this seat's view each time the game moves (people at one
// table, the table's AI taking over), with the moves since its last push;
// while the socket is down (a restarted server), the page asks every 1.5 s
// and reconnects by itself. The page
// follows the game it shows: followShownGame() once, at the start.
import {api, clearError, showError} from "./api.js";
import {lang} from "./i18n.js";
import {playEvents, showLost} from "./match.js";
import {render} from "./render.js";
import {free, get, set, subscribe, told} from "./state.js";

let socket = null;
let socketFor = null;

function followGame() {
  const gameId = get("gameId");
  if (!gameId || get("lost") || socketFor === gameId) return;
  if (socket) socket.close();
  socketFor = gameId;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/api/games/${gameId}/updates?lang=${encodeURIComponent(lang())}`);
  socket = ws;
  // Each push holds the moves since the last one (the others' cards, the AI's,
  // the card that closes a trick): shown one by one at the page's pace, in
  // turn, once the page is free (a move of its own may be animating).
  let shown = Promise.resolve();
  ws.onmessage = (e) => {
    const data = JSON.parse(e.data);
    shown = shown.then(() => showPush(ws, data)).catch(showError);
  };
  ws.onclose = () => {
    if (ws !== socket) return;
    socket = null;
    setTimeout(async () => {
      if (socketFor !== get("gameId") || get("lost")) return;
      try {
        const fresh = told((await api("GET", `/api/games/${get("gameId")}`)).state);
        const view = get("view");
        if (!get("busy") && (!view || fresh.version !== view.version)) { set({view: fresh}); render(); }
        clearError();
      } catch (err) { if (err.code === "no_game") { showLost(); return; } }
      socketFor = null;
      followGame();
    }, 1500);
  };
}

async function showPush(ws, data) {
  await free();
  const view = get("view");
  if (ws !== socket || !view) return;
  // What the page showed already (its own move's answer) is not shown again.
  const events = (data.events || []).filter((ev) => ev.view.version > view.version);
  if (!events.length && data.state.version <= view.version) { told(data.state); return; }
  clearError();
  await playEvents(events, data.state, false);
}

// Each change of the game shown, once there is a view to show, follows that game.
export function followShownGame() {
  subscribe(() => { if (get("view")) followGame(); });
}
