// The AI players a seat may take, with their names in the page's language:
// asked once per language (language.js), the menus built once (setupPlayers).
import {api, showError} from "./api.js";
import {t} from "./i18n.js";
import {dealDraft, showLost} from "./match.js";
import {render} from "./render.js";
import {get, set, told} from "./state.js";

let players = {players: [], defaults: {}};
let labels = {}; // player spec -> display name, in the page's language
const ROLES = {left: "1", partner: "2", right: "3"};

export function playerLabel(spec) { return labels[spec] || spec; }
// How strong the AI a menu holds is, in the line under it.
function showStrength(select) {
  let line = select.parentElement.querySelector(".strength");
  if (!line) {
    line = document.createElement("span");
    line.className = "strength";
    line.id = `${select.id}-strength`;
    select.setAttribute("aria-describedby", line.id);
    select.parentElement.append(line);
  }
  line.textContent = (players.strength || {})[select.value] || "";
}
function menus() { return [...document.querySelectorAll("select[data-role]"), document.getElementById("invite-standin")]; }

export async function loadPlayers() {
  players = await api("GET", "/api/players");
  labels = players.labels;
}
export function setupPlayers() {
  // The invitation's AI for a friend who is away: the table's own AI ("") unless chosen.
  const standin = document.getElementById("invite-standin");
  for (const spec of ["", ...players.players]) {
    const option = document.createElement("option");
    option.value = spec;
    option.textContent = spec ? labels[spec] || spec : t("The table's AI");
    standin.append(option);
  }
  showStrength(standin);
  standin.addEventListener("change", () => showStrength(standin));
  for (const select of document.querySelectorAll("select[data-role]")) {
    select.replaceChildren();
    for (const spec of players.players) {
      const option = document.createElement("option");
      option.value = spec;
      option.textContent = labels[spec] || spec;
      select.append(option);
    }
    select.value = players.defaults[select.dataset.role];
    showStrength(select);
    select.addEventListener("change", async () => {
      showStrength(select);
      const gameId = get("gameId");
      if (!gameId && get("draft") && !get("busy")) { dealDraft().catch(showError); return; } // nothing played: a new deal
      if (!gameId || get("lost")) return;
      try {
        const res = await api("POST", `/api/games/${gameId}/players`, {[select.dataset.role]: select.value});
        const newest = told(res.state);
        if (!get("busy")) { set({view: newest}); render(); }
      } catch (err) {
        if (err.code === "no_game") showLost(); else showError(err);
      }
    });
  }
}
export function syncPlayers() {
  const view = get("view");
  for (const select of document.querySelectorAll("select[data-role]")) {
    const spec = view && view.players[ROLES[select.dataset.role]];
    if (spec) select.value = spec;
    for (const option of select.options) option.textContent = labels[option.value] || option.value;
  }
  for (const option of document.getElementById("invite-standin").options) {
    option.textContent = option.value ? labels[option.value] || option.value : t("The table's AI");
  }
  for (const select of menus()) showStrength(select);
}
// Playing with signs: the AI seats take the server's players that sign (a
// choice may still change them).
export function choosePlayersFor(signs) {
  const defaults = signs ? players.signs_defaults : players.defaults;
  for (const select of document.querySelectorAll("select[data-role]")) {
    if (defaults) select.value = defaults[select.dataset.role];
    showStrength(select);
  }
}
