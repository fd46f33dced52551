// A table with friends: the ticked seats are people, whose links are shown
// here to be sent (each with Copy, and Share where the browser shares), the
// host's own link too, to come back to the table; AIs play the others, and the
// AI the host chooses plays for a friend who is away or out of time; this page
// takes seat 0 (south).
import {api, clearError} from "./api.js";
import {$, newButton} from "./dom.js";
import {seatName, t} from "./i18n.js";
import {askFirst, signsChoice} from "./match.js";
import {showing} from "./matches.js";
import {render} from "./render.js";
import {set, told} from "./state.js";

// A link's row: its name, the link to select, and its buttons.
function linkRow(name, link) {
  const item = document.createElement("li");
  const label = document.createElement("label");
  label.textContent = `${name} `;
  const input = document.createElement("input");
  input.readOnly = true;
  input.value = location.origin + link;
  input.addEventListener("focus", () => input.select());
  label.append(input);
  const copy = newButton("copy-link");
  copy.textContent = t("Copy");
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {  // no clipboard (a page not served over HTTPS): the selection is copied
      input.select();
      document.execCommand("copy");
    }
    copy.textContent = t("Copied");
  });
  item.append(label, copy);
  if (navigator.share) {
    const share = newButton("share-link");
    share.textContent = t("Share");
    share.addEventListener("click", () => navigator.share({title: "Aluette", url: input.value}).catch(() => {}));
    item.append(share);
  }
  return item;
}

async function createTable() {
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
    const standin = $("invite-standin").value;
    const made = await api("POST", "/api/tables", {people, away_after: awayAfter, ...(standin ? {standin} : {}),
      ...signsChoice("invite-signs", "invite-catch")});
    const rows = [[t("Your own link, to come back to this table"), made.seats["0"].link]]
      .concat(Object.entries(made.seats).filter(([seat]) => seat !== "0")
        .map(([seat, s]) => [s.name ? `${seatName(Number(seat))} · ${s.name}` : seatName(Number(seat)), s.link]))
      .concat([[t("Spectators"), made.spectator.link]]);
    $("invite-list").replaceChildren(...rows.map(([name, link]) => linkRow(name, link)));
    $("invite-links").hidden = false;
    const gameId = made.seats["0"].token;
    set({gameId});
    showing(gameId, true);
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
  // A table replaces the match shown: one in progress is given up only if the host says so.
  $("invite-form").addEventListener("submit", (e) => {
    e.preventDefault();
    askFirst(createTable);
  });
}
