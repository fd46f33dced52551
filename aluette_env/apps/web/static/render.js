// The table drawn from the view on screen (state.js "view"): the seats, the
// trick, your hand and signs, the side panel, a deal's summary, who is away,
// and what the reader may do. It states no rule of the game: every number and
// sentence comes from the server's view. It only draws: the clicks on what it
// draws are heard by keys.js and main.js.
import {$, newButton} from "./dom.js";
import {cardElement, isNamed, levelText, levels} from "./deck.js";
import {cardName, number, seatLabel, seatName, seenSign, sideNames, signIcon, signText, signs, t, who}
  from "./i18n.js";
import {get, set} from "./state.js";
import {focusQuietly, tipGone} from "./tips.js";

const SEATS = [0, 1, 2, 3]; // south (you), west, north (partner), east: clockwise

function words() {
  const view = get("view");
  return (view && view.text) || {};
}
// The signs this seat saw in the trick being played (the server lists only those).
function signsNow() {
  const view = get("view");
  if (!view.signs_on || view.deal.done) return [];
  return view.signs.filter((s) => s.trick === view.deal.trick - 1);
}
// A view of a table of people (or a spectator's), not a game of one's own.
export function atTable(view) { return view.spectator || Object.keys(view.people).length > 1; }
export function announce(text) { $("announcer").textContent = text; }

export function focusHand() {
  const buttons = $("hand").querySelectorAll(".hand-card");
  const focusIndex = get("focusIndex");
  if (buttons[focusIndex]) focusQuietly(buttons[focusIndex]); // no tip: the page moved the focus
}

function renderSeats() {
  const view = get("view");
  for (const seat of SEATS) {
    const box = document.querySelector(`.seat[data-seat="${seat}"]`);
    const left = view.hand_sizes[seat];
    const badges = [];
    const acting = !view.deal.done && view.deal.to_act === seat;
    if (view.deal.dealer === seat) badges.push(`<span class="badge dealer">${t("Dealer")}</span>`);
    if (acting) badges.push(`<span class="badge turn">${seat === 0 && !view.spectator ? t("Your turn") : t("To play")}</span>`);
    if (view.leading === seat) badges.push(`<span class="badge leading">${t("Leads the deal")}</span>`);
    for (const s of signsNow().filter((x) => x.seat === seat && x.sign)) {
      const text = s.caught ? t("Caught: {sign}", {sign: signText(s.sign)}) : signText(s.sign);
      badges.push(`<span class="badge sign${s.caught ? " caught" : ""}" data-sign="${s.sign}">${signIcon(s.sign)}` +
        `${window.AluetteCards.escapeXml(text)}</span>`);
    }
    const backs = seat === 0 && !view.spectator ? "" :
      `<div class="backs" aria-hidden="true">${Array.from({length: left}, () => `<span class="mini-back"></span>`).join("")}</div>`;
    const name = seatLabel(seat);
    box.innerHTML = `<div class="seat-head"><span class="seat-name">${window.AluetteCards.escapeXml(name)}</span>` +
      `<span class="seat-tricks">${t("Tricks: {n}", {n: view.counts[seat]})}</span></div>` +
      `<div class="badges">${badges.join("")}</div>${backs}`;
    box.classList.toggle("acting", acting);
    box.setAttribute("aria-label", `${name}: ${t("Tricks: {n}", {n: view.counts[seat]})}`);
  }
}

function renderTrick() {
  const view = get("view");
  const trick = view.current_trick;
  const plays = trick ? trick.plays : [];
  for (const slot of document.querySelectorAll(".slot")) {
    const play = plays.find((p) => p.seat === Number(slot.dataset.seat));
    const shown = slot.firstElementChild;
    if (!play) { slot.replaceChildren(); continue; }
    // Keep a card already on the table, so that only new cards animate in.
    const el = shown && Number(shown.dataset.card) === play.card ? shown : cardElement(play.card, "played");
    el.classList.toggle("led", play.seat === trick.leader);
    el.classList.toggle("winning", play.seat === trick.winning);
    el.setAttribute("role", "img");
    el.tabIndex = 0; // its strength shows on focus
    el.setAttribute("aria-label", `${seatName(play.seat)}: ${cardName(play.card)}. ${levelText(play.card)}`);
    if (el !== shown) slot.replaceChildren(el);
  }
  $("trick-status").textContent = words().trick || "";
  // The last finished trick stays explained on the table: which card won
  // over which (or the tie), and who leads now.
  $("last-result").textContent = words().last_trick || "";
}

function renderHand() {
  const view = get("view");
  const hand = $("hand");
  hand.setAttribute("aria-label", t("Your hand"));
  hand.replaceChildren();
  const playable = view.your_turn && !get("busy") && !get("lost");
  if (get("selected") !== null && !mayPlay(get("selected"))) set({selected: null});
  if (!playable) set({selected: null}); // nothing looks chosen when it cannot be played
  set({focusIndex: Math.min(get("focusIndex"), Math.max(0, view.hand.length - 1))});
  const selected = get("selected");
  const focusIndex = get("focusIndex");
  view.hand.forEach((card, i) => {
    const button = newButton("hand-card");
    button.dataset.card = card;
    // The card's name is the button's text (read, not shown), so the name a
    // screen reader or voice control uses is the button's own content.
    const name = document.createElement("span");
    name.className = "visually-hidden";
    name.textContent = `${cardName(card)}. ${levelText(card)}`;
    button.append(name, cardElement(card));
    button.dataset.tip = levelText(card);
    button.setAttribute("aria-pressed", String(selected === card));
    button.tabIndex = i === focusIndex ? 0 : -1;
    button.setAttribute("aria-disabled", String(!mayPlay(card)));
    if (selected === card) button.classList.add("selected");
    hand.append(button);
  });
  hand.classList.toggle("waiting", !playable);
  const confirm = $("confirm");
  confirm.disabled = !mayPlay(selected);
  confirm.textContent = selected !== null ? t("Play {card}", {card: cardName(selected)}) : t("Play this card");
  let prompt = "";
  if (get("lost") || view.match.over) prompt = "";
  else if (view.deal.done) prompt = t("The deal is over.");
  else if (view.deal.to_act === null) prompt = "";
  else if (playable && view.signing) prompt = t("Your turn: make a sign, or none, then play a card.");
  else if (playable) prompt = selected === null ? t("Your turn: choose a card.") :
    t("Click the chosen card again or press Play to play it; choose another card to change.");
  // Your turn comes once the page has shown the move's last events (busy):
  // nobody else is waited for meanwhile.
  else if (view.deal.to_act === 0 && !view.spectator) prompt = "";
  else prompt = t("Waiting for {seat}…", {seat: who(view.deal.to_act)});
  $("prompt").textContent = prompt;
  document.body.classList.toggle("your-turn", playable);
}

// Your sign buttons: every sign of the catalog, the ones the server lists as
// yours to make now (sign_choices) usable; shown only while you make your
// sign: at your card's step and on the others' turns they could only be
// greyed out (the sign you made shows at your seat), and the hand bar keeps
// the table in view.
function renderSigns() {
  const view = get("view");
  const box = $("signs");
  box.hidden = !view.signs_on || !!view.spectator || !(view.your_turn && view.signing);
  if (box.hidden) { $("sign-buttons").replaceChildren(); return; }
  const buttons = $("sign-buttons");
  const choices = (view.your_turn && !get("busy") && !get("lost")) ? view.sign_choices : [];
  const focused = document.activeElement && document.activeElement.closest && document.activeElement.closest(".sign-button");
  const focusedSign = focused ? Number(focused.dataset.sign) : null;
  buttons.replaceChildren();
  signs().forEach((s, sign) => {
    const button = newButton("sign-button");
    button.dataset.sign = sign;
    // The button's name is its visible words (WCAG 2.5.3, label in name, in
    // every language): the gesture, a space, and the card it names.
    const words = document.createElement("span");
    words.className = "sign-words";
    words.textContent = s.gesture;
    if (s.card) {
      const card = document.createElement("span");
      card.className = "sign-card";
      card.textContent = s.card;
      words.append(" ", card);
    }
    button.innerHTML = signIcon(sign);
    button.append(words);
    const usable = choices.includes(sign);
    button.setAttribute("aria-disabled", String(!usable));
    buttons.append(button);
    if (sign === focusedSign) button.focus({preventScroll: true});
  });
}
// Where a person's turn starts: the sign buttons while they make their sign, else the hand.
export function focusTurn() {
  const view = get("view");
  if (view.signing) {
    const first = $("sign-buttons").querySelector('.sign-button[aria-disabled="false"]');
    if (first) { focusQuietly(first); return; }
  }
  focusHand();
}
// The signs this seat saw this deal, trick by trick (the trick log of the signs).
function renderSignsLog() {
  const view = get("view");
  const box = $("signs-seen");
  const seen = view.signs_on ? view.signs.filter((s) => s.sign || s.seat !== 0) : [];
  box.hidden = !seen.length;
  const list = $("signs-log");
  list.replaceChildren();
  for (const s of seen) {
    const item = document.createElement("li");
    item.dataset.sign = s.sign;
    item.dataset.seat = s.seat;
    if (s.caught) item.className = "caught";
    item.innerHTML = signIcon(s.sign);
    item.append(`${t("Trick {n}", {n: s.trick + 1})} · ${seenSign(s)}`);
    list.append(item);
  }
}

// A card the server lists as yours to play now (and the page is free).
export function mayPlay(card) {
  const view = get("view");
  return view.your_turn && !get("busy") && !get("lost") && view.legal.includes(card);
}

function renderSide() {
  const view = get("view");
  const m = view.match;
  const w = words();
  $("scoreboard").innerHTML =
    `<div class="team us"><span>${sideNames()[0]}</span><strong>${number(m.points[0])}</strong></div>` +
    `<div class="team them"><span>${sideNames()[1]}</span><strong>${number(m.points[1])}</strong></div>`;
  const history = $("history");
  history.replaceChildren();
  m.history.forEach((h, i) => {
    const li = document.createElement("li");
    li.className = h.points[0] > 0 ? "us" : h.points[1] > 0 ? "them" : "";
    li.textContent = ((w.history || [])[i] || "") + (h.mordienne ? " ★" : "");
    history.append(li);
  });
  $("deal-info").innerHTML =
    `<span>${t("Deal {n} of {total}", {n: view.deal.number, total: view.deal.of})}</span>` +
    `<span>${t("Trick {n} of {total}", {n: view.deal.trick, total: view.deal.tricks})}</span>` +
    `<span>${t("Dealer: {seat}", {seat: seatName(view.deal.dealer)})}</span>`;
  const order = view.reach_order;
  const rows = [`<tr><th scope="col">${t("Player")}</th><th scope="col">${t("Tricks")}</th><th scope="col">${t("Place")}</th></tr>`];
  for (const seat of SEATS) {
    const place = order.indexOf(seat);
    const reached = view.reached[seat];
    const title = reached === null ? "" : t("reached {n} at trick {k}", {n: view.counts[seat], k: reached + 1});
    rows.push(`<tr class="${view.leading === seat ? "leading" : ""}"><th scope="row">${seatName(seat)}</th>` +
      `<td>${view.counts[seat]}</td><td title="${title}">${place >= 0 ? place + 1 : "–"}</td></tr>`);
  }
  $("tally").innerHTML = `<caption class="visually-hidden">${t("Tricks this deal")}</caption>` + rows.join("");
  $("mordienne").textContent = w.mordienne || "";
  const button = $("last-trick-button");
  button.disabled = !view.last_trick;
  button.textContent = get("showLastTrick") ? t("Hide last trick") : t("Show last trick");
  button.setAttribute("aria-expanded", String(get("showLastTrick") && !!view.last_trick));
  const box = $("last-trick");
  box.hidden = !(get("showLastTrick") && view.last_trick);
  if (!box.hidden) {
    const lt = view.last_trick;
    box.replaceChildren();
    const head = document.createElement("p");
    head.textContent = w.last_trick || "";
    box.append(head);
    const row = document.createElement("div");
    row.className = "last-cards";
    for (const play of lt.plays) {
      const fig = document.createElement("figure");
      const el = cardElement(play.card, play.seat === lt.winner ? "winning" : "");
      el.setAttribute("role", "img");
      el.setAttribute("aria-label", cardName(play.card));
      const cap = document.createElement("figcaption");
      cap.textContent = seatName(play.seat);
      const made = view.signs_on ? view.signs.find((s) => s.trick === lt.index && s.seat === play.seat && s.sign) : null;
      if (made) cap.textContent += ` · ${made.caught ? t("Caught: {sign}", {sign: signText(made.sign)}) : signText(made.sign)}`;
      fig.append(el, cap);
      row.append(fig);
    }
    box.append(row);
  }
}

const SPOILED = "✕"; // a spoiled trick in the deal's line of tricks
function renderSummary() {
  const view = get("view");
  const box = $("summary");
  const s = view.summary;
  if (!s || !view.deal.done) { box.hidden = true; box.replaceChildren(); $("trick").hidden = false; return; }
  box.replaceChildren();
  const h = document.createElement("h3");
  h.textContent = t("Deal {n} of {total} is over", {n: s.deal + 1, total: view.deal.of});
  box.append(h);
  for (const line of words().summary || []) {
    const p = document.createElement("p");
    p.textContent = line;
    box.append(p);
  }
  const tricks = document.createElement("p");
  tricks.className = "trick-line";
  tricks.textContent = t("Tricks: {list}", {list: s.trick_winners.map((w) => (w === null ? SPOILED : seatName(w))).join(" · ")});
  box.append(tricks);
  if (s.trick_winners.includes(null)) {
    const legend = document.createElement("p");
    legend.className = "trick-line spoiled-legend";
    legend.textContent = t("{mark}: a spoiled trick, which nobody took.", {mark: SPOILED});
    box.append(legend);
  }
  const button = document.createElement("button");
  button.type = "button";
  button.className = "primary";
  button.hidden = view.spectator; // a spectator moves nothing
  if (view.match.over) {
    const result = document.createElement("p");
    result.className = "match-result";
    result.textContent = words().match_result || "";
    box.append(result);
    // At a table of people, the host starts the next match (the server says who may).
    button.hidden = !view.can_start_match;
    if (!view.spectator && !view.can_start_match) {
      const wait = document.createElement("p");
      wait.textContent = t("Waiting for {name} to start a new match.", {name: who(view.host)});
      box.append(wait);
    }
    button.id = "summary-new-match";
    button.textContent = t("New match");
  } else {
    button.id = "next-deal";
    button.textContent = t("Next deal");
  }
  box.append(button);
  const wasHidden = box.hidden;
  box.hidden = false;
  $("trick").hidden = true; // empty between deals: the summary takes its place, under the last trick's words
  if (!button.hidden && (wasHidden || document.activeElement === document.body)) button.focus();
}

// At a table of people, who is away (the table's AI plays for them) and
// who came back lately: the server says who is away, the page sees who
// is no longer.
let awaySeen = {game: null, seats: []};
const backLately = new Map(); // seat -> the timer that forgets it
const BACK_SHOWN_MS = 15000;
function renderAway() {
  const view = get("view");
  const away = view.away || [];
  if (awaySeen.game === get("gameId")) {
    for (const seat of awaySeen.seats) {
      if (away.includes(seat) || backLately.has(seat)) continue;
      backLately.set(seat, setTimeout(() => { backLately.delete(seat); if (get("view")) renderAway(); }, BACK_SHOWN_MS));
    }
  } else {
    for (const timer of backLately.values()) clearTimeout(timer);
    backLately.clear();
  }
  for (const seat of away) { clearTimeout(backLately.get(seat)); backLately.delete(seat); }
  awaySeen = {game: get("gameId"), seats: away};
  // You, out of time or away: the AI plays for you until you take your seat back.
  const mine = away.includes(0) && !view.spectator;
  const lines = away.map((seat) => (seat === 0 && mine ? t("You are away: the AI plays for you.") :
    t("{name} is away: the AI plays for them", {name: who(seat)})))
    .concat([...backLately.keys()].map((seat) => t("{name} is back", {name: who(seat)})));
  const box = $("away");
  if (box.textContent !== lines.join("\n")) box.textContent = lines.join("\n");
  box.hidden = !lines.length;
  $("take-back").hidden = !mine;
}

// What the reader may do, as the server says it: New match only for whoever
// may start one (not a spectator, not a friend of the host), an AI choice
// only for a seat an AI holds. During a new match's first deal, every page
// says who started it.
function renderOffers() {
  const view = get("view");
  $("new-match").hidden = !get("lost") && !view.can_start_match;
  const roles = {left: "1", partner: "2", right: "3"};
  let choices = 0;
  for (const select of document.querySelectorAll("select[data-role]")) {
    const offered = !view.spectator && roles[select.dataset.role] in view.players;
    select.closest("label").hidden = !offered;
    choices += offered ? 1 : 0;
  }
  $("ai-players").hidden = choices === 0;
  const by = view.match.started_by;
  const notice = $("table-notice");
  const text = by !== null && by !== undefined && (by !== 0 || view.spectator) && !view.match.history.length ?
    t("{name} started a new match.", {name: who(by)}) : "";
  if (notice.textContent !== text) notice.textContent = text;
  notice.hidden = !text;
}

export function render() {
  const view = get("view");
  if (!view) return;
  document.body.dataset.version = String(view.version);
  document.body.dataset.state = get("lost") ? "lost" : get("busy") ? "busy" : view.match.over ? "match-over" :
    view.deal.done ? "deal-over" : view.your_turn ? "your-turn" : "waiting";
  // The tab says when it is your turn, in the row of tabs too.
  document.title = document.body.dataset.state === "your-turn" ? `${t("Your turn")} · Aluette` :
    `Aluette · ${t("The game of the cow")}`;
  // A spectator's page has no hand, no Play button and no coach (style.css).
  document.body.classList.toggle("spectator", !!view.spectator);
  // A match with signs: the sign buttons and the signs seen; no coach (style.css).
  document.body.classList.toggle("with-signs", !!view.signs_on);
  document.body.classList.toggle("at-table", atTable(view)); // the rules' words for it
  document.body.dataset.signing = String(!!(view.signs_on && view.signing));
  renderAway();
  renderOffers();
  renderSeats();
  renderTrick();
  renderHand();
  renderSigns();
  renderSide();
  renderSignsLog();
  renderSummary();
  tipGone(); // the card it told of was drawn again
}
// The rank order in the rules: every card by strength level, the named ones
// by name beside their pictures.
export function renderRankOrder() {
  const list = $("rank-order");
  list.replaceChildren();
  if (!levels()) return;
  for (const level of levels()) {
    const item = document.createElement("li");
    const cards = document.createElement("div");
    cards.className = "rank-cards";
    for (const card of level) {
      const el = cardElement(card, "small");
      el.setAttribute("role", "img");
      el.setAttribute("aria-label", cardName(card));
      el.title = cardName(card);
      cards.append(el);
    }
    item.append(cards);
    // The named cards by name, in words beside their pictures.
    const named = level.filter(isNamed);
    if (named.length) {
      const caption = document.createElement("span");
      caption.className = "rank-name";
      caption.textContent = named.map(cardName).join(", ");
      item.append(caption);
    }
    list.append(item);
  }
}
