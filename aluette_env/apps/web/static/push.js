// The server pushes this seat's view each time the game moves (people at one
// table, the table's AI taking over); while the socket is down (a restarted
// server), the page asks every 1.5 s and reconnects by itself. The page
// follows the game it shows: followShownGame() once, at the start.
import {api, clearError} from "./api.js";
import {lang} from "./i18n.js";
import {showLost} from "./match.js";
import {focusTurn, render} from "./render.js";
import {get, set, subscribe, told} from "./state.js";

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
  ws.onmessage = (e) => {
    const data = JSON.parse(e.data);
    const view = get("view");
    if (ws !== socket || !view) return;
    const fresh = told(data.state);
    // While an answer animates, the newest view waits: match.js shows it at its end.
    if (get("busy") || fresh.version === view.version) return;
    set({view: fresh});
    clearError();
    render();
    if (fresh.your_turn) focusTurn();
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

// Each change of the game shown, once there is a view to show, follows that game.
export function followShownGame() {
  subscribe(() => { if (get("view")) followGame(); });
}
