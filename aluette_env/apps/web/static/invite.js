// A table with friends: the ticked seats are people, whose links are shown
// here to be sent; AIs play the others; this page takes seat 0 (south).
import {api, clearError} from "./api.js";
import {$, STORE} from "./dom.js";
import {seatName, t} from "./i18n.js";
import {signsChoice} from "./match.js";
import {remember} from "./matches.js";
import {render} from "./render.js";
import {set, told} from "./state.js";

async function createTable(e) {
  e.preventDefault();
  // Each person by the name the host gives, or none: their seat then reads
  // by its place on each page (never by this page's word for it).
  const people = {"0": $("invite-you").value.trim()};
  for (const box of document.querySelectorAll("input[data-invite-seat]")) {
    const seat = box.dataset.inviteSeat;
    if (box.checked) people[seat] = document.querySelector(`input[data-invite-name="${seat}"]`).value.trim();
  }
  // The server checks the seconds: what is typed goes as a number, or as
  // typed when it is none, and a bad value reads as the server's bounds.
  const typed = $("invite-away").value.trim();
  const awayAfter = typed !== "" && Number.isFinite(Number(typed)) ? Number(typed) : typed;
  clearError();
  const problem = $("invite-error");
  problem.hidden = true;
  try {
    const made = await api("POST", "/api/tables", {people, away_after: awayAfter,
      ...signsChoice("invite-signs", "invite-catch")});
    const rows = Object.entries(made.seats).filter(([seat]) => seat !== "0")
      .map(([seat, s]) => [s.name ? `${seatName(Number(seat))} · ${s.name}` : seatName(Number(seat)), s.link])
      .concat([[t("Spectators"), made.spectator.link]]);
    const list = $("invite-list");
    list.replaceChildren();
    for (const [name, link] of rows) {
      const item = document.createElement("li");
      const label = document.createElement("label");
      label.textContent = `${name} `;
      const input = document.createElement("input");
      input.readOnly = true;
      input.value = location.origin + link;
      input.addEventListener("focus", () => input.select());
      label.append(input);
      item.append(label);
      list.append(item);
    }
    $("invite-links").hidden = false;
    const gameId = made.seats["0"].token;
    set({gameId});
    sessionStorage.setItem(STORE.game, gameId);
    remember(gameId);
    set({lost: false, selected: null});
    set({view: told((await api("GET", `/api/games/${gameId}`)).state)});
    render();
  } catch (err) {
    problem.textContent = err.status !== undefined ? err.message : t("Something went wrong: {error}", {error: err.message});
    problem.hidden = false;
  }
}

export function setupInvite() {
  $("open-invite").addEventListener("click", () => {
    $("settings").close();
    $("invite-links").hidden = true;
    $("invite-error").hidden = true;
    $("invite").showModal();
  });
  $("invite-form").addEventListener("submit", createTable);
}
