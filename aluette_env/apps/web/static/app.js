// The Aluette table in the browser. The server holds the game and sends the
// view of your seat (south, player_0), and the events of each move each with
// the view just after it, with their words in your language (the same words
// as the terminal game); this script only shows those views and sends your
// choices. It states no rule of the game and works nothing out: the cards you
// may play, how many cards each seat holds, the trick's number, who wins a
// trick and why, who leads next, the tally, the Mordienne line and the deal's
// result all come from the server. With signs, the signs you may make now
// (sign_choices) and the signs your seat saw come from the server too.
"use strict";

(() => {
  const SEATS = [0, 1, 2, 3]; // south (you), west, north (partner), east: clockwise
  const STORE = {lang: "aluette.lang", display: "aluette.display", pace: "aluette.pace", game: "aluette.game",
                 matches: "aluette.matches"};
  const DISPLAY_DEFAULT = {contrast: 50, grain: 50, warmth: 50};
  // The pause after each AI card, in ms (a finished trick stays 2.5 times as
  // long): brisk, about 1.5 s from your card to your next turn; Settings, Pace.
  const PACE_DEFAULT = 300;

  let catalog = {messages: {}, cards: [], faces: [], dir: "ltr", lang: "en"};
  let deck = null; // {levels, named}
  let levelOf = {}; // card id -> strength level, 1 = highest (from /api/deck)
  let languages = [];
  let labels = {}; // player spec -> display name, in the page's language
  let gameId = null;
  let view = null; // what is on screen: a view the server sent
  // The newest view of this game the page was told of (an answer, a push), and
  // its game: what the page shows once it is not busy, so that a push that
  // arrives during an answer's animation is shown after it, never dropped.
  let newest = null;
  let newestFor = null;
  let selected = null; // card id chosen but not yet played
  let focusIndex = 0; // roving focus in the hand
  let busy = false; // a request or an animation is in progress
  let lost = false; // the server no longer knows this game: only a new match helps
  let showLastTrick = false;
  let pace = PACE_DEFAULT;
  let movesShown = 0; // moves answered and shown (tests wait on body[data-moves])

  const $ = (id) => document.getElementById(id);
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // ------------------------------------------------------------------ text
  function t(message, fields) {
    let text = catalog.messages[message] || message;
    if (fields) text = text.replace(/\{(\w+)\}/g, (m, name) => (name in fields ? fields[name] : m));
    return text;
  }
  // A spectator sits nowhere: the seats are the compass's, the sides south and
  // north against west and east.
  function seatName(seat) {
    if (view && view.spectator) return [t("South"), t("West"), t("North"), t("East")][seat];
    return [t("You"), t("West"), t("Partner"), t("East")][seat];
  }
  // A seat labelled once: its place from the reader, and the name of the
  // person there if the host gave one ("Partner · Bob"; an AI: "Partner").
  function personName(seat) { return (view && view.people && view.people[String(seat)]) || ""; }
  function seatLabel(seat) {
    const name = personName(seat);
    return name ? `${seatName(seat)} · ${name}` : seatName(seat);
  }
  // A seat in a sentence: the person's name, else the place ("Waiting for Bob…").
  function who(seat) { return personName(seat) || seatName(seat); }
  function sideNames() {
    return view && view.spectator ? [t("South and north"), t("West and east")] : [t("You and partner"), t("Opponents")];
  }
  function cardName(card) { return catalog.cards[card] || String(card); }
  function titleOf(card) {
    if (!deck || !deck.named.includes(card)) return null;
    const name = cardName(card);
    const dash = name.indexOf(" — ");
    return dash >= 0 ? name.slice(dash + 3) : name;
  }
  // A sign's words (the server's catalog, by sign id 0-9; 0: none) and picture.
  function signOf(sign) { return (catalog.signs && catalog.signs[sign]) || {key: "none", gesture: String(sign), card: ""}; }
  function signText(sign) {
    const s = signOf(sign);
    return s.card ? t("{gesture} ({card})", {gesture: s.gesture, card: s.card}) : s.gesture;
  }
  function signIcon(sign) { return window.AluetteSigns.icon(signOf(sign).key); }
  // The signs this seat saw in the trick being played (the server lists only those).
  function signsNow() {
    if (!view.signs_on || view.deal.done) return [];
    return view.signs.filter((s) => s.trick === view.deal.trick - 1);
  }
  // A seen sign in a sentence: yours, your partner's, or an opponent's you caught.
  function seenSign(s) {
    if (s.caught) return t("You caught a sign from {seat}: {sign}.", {seat: who(s.seat), sign: signText(s.sign)});
    if (s.seat === 0 && !view.spectator) return s.sign ? t("You sign: {sign}.", {sign: signText(s.sign)}) : t("You make no sign.");
    return s.sign ? t("{seat} signs: {sign}.", {seat: who(s.seat), sign: signText(s.sign)}) : t("{seat} makes no sign.", {seat: who(s.seat)});
  }
  function levelText(card) {
    return t("Strength {k} of {total} (1 is the highest)", {k: levelOf[card], total: deck.levels.length});
  }
  // Numbers in the page's language (Intl), in the digits of the rest of the
  // page; a signed number is isolated left-to-right (LRI … PDI, what <bdi
  // dir="ltr"> does), so its sign stays on its left in right-to-left text.
  function number(x, {signed = false, digits = 0} = {}) {
    const text = new Intl.NumberFormat(`${catalog.lang}-u-nu-latn`, {
      minimumFractionDigits: digits, maximumFractionDigits: digits,
      signDisplay: signed ? "exceptZero" : "auto"}).format(x);
    return signed ? `\u2066${text}\u2069` : text;
  }
  function announce(text) { $("announcer").textContent = text; }
  // The page's words for its other scripts (coach.js): t() and the card names,
  // and a promise kept once the first language is loaded.
  let languageLoaded;
  const languageReady = new Promise((resolve) => { languageLoaded = resolve; });
  // A list in the page's language ("East and West"), Intl's.
  function list(items) { return new Intl.ListFormat(catalog.lang, {type: "conjunction"}).format(items); }
  window.AluetteText = {t, cardName, number, list, signText, signIcon, ready: languageReady, api,
    playerLabel: (spec) => labels[spec] || spec};
  function words() { return (view && view.text) || {}; }

  // ------------------------------------------------------------------ server
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
    too_many: N_("Too many unknown game links came from this address. Wait a minute, then try again."),
    worker_restarting: N_("The server is restarting a worker. Try again in a moment."),
    damaged: N_("This game's stored record is damaged and cannot be opened."),
    not_your_turn: N_("A hint is for your turn."),
    bad_record: N_("This file is not a match record of Aluette."),
    no_record: N_("The server no longer has this record: open the file again."),
    away_after: N_("The time before the AI plays for a friend who left must be a whole number of seconds from {low} to {high}."),
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
  async function api(method, path, body) {
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
        response = await fetch(`${path}${sep}lang=${encodeURIComponent(catalog.lang)}`, options);
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
  function showError(err) {
    const box = $("error");
    box.textContent = err.status !== undefined ? err.message : t("Something went wrong: {error}", {error: err.message});
    if (err.detail) box.dataset.detail = err.detail; else delete box.dataset.detail;
    box.hidden = false;
  }
  function clearError() { $("error").hidden = true; }
  // The server has no game for this link (mistyped, or kept in another
  // database): say so, and let the person start a new match. Never a silent restart.
  function showLost() {
    lost = true;
    gameId = null; // the stored id stays: a reload says this again, until a new match
    $("lost-text").textContent = t("This server has no game with this link.");
    const dialog = $("lost");
    if (!dialog.open) dialog.showModal();
    render();
  }

  // A view of the game the page was told of: kept if it is the newest (a
  // same-version view replaces it: new words, in another language); returns
  // the newest, which is what the page shows when it is free.
  function told(state) {
    if (newestFor !== gameId) { newest = null; newestFor = gameId; }
    if (!newest || state.version >= newest.version) newest = state;
    return newest;
  }

  // ------------------------------------------------------------------ drawing
  function cardElement(card, extraClass) {
    const el = document.createElement("span");
    el.className = "card" + (extraClass ? " " + extraClass : "");
    el.innerHTML = AluetteCards.cardSvg(card, titleOf(card), catalog.faces);
    el.dataset.card = card;
    if (titleOf(card)) el.classList.add("named");
    if (deck) el.dataset.tip = levelText(card);
    return el;
  }

  function renderSeats() {
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
    const hand = $("hand");
    hand.setAttribute("aria-label", t("Your hand"));
    hand.replaceChildren();
    const playable = view.your_turn && !busy && !lost;
    if (selected !== null && !mayPlay(selected)) selected = null;
    if (!playable) selected = null; // nothing looks chosen when it cannot be played
    focusIndex = Math.min(focusIndex, Math.max(0, view.hand.length - 1));
    view.hand.forEach((card, i) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "hand-card";
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
      button.addEventListener("click", () => onCardClick(card, i));
      button.addEventListener("contextmenu", (e) => { e.preventDefault(); button.classList.add("show-tip"); });
      button.addEventListener("pointerleave", () => button.classList.remove("show-tip"));
      hand.append(button);
    });
    hand.classList.toggle("waiting", !playable);
    const confirm = $("confirm");
    confirm.disabled = !mayPlay(selected);
    confirm.textContent = selected !== null ? t("Play {card}", {card: cardName(selected)}) : t("Play this card");
    let prompt = "";
    if (lost || view.match.over) prompt = "";
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
    const box = $("signs");
    box.hidden = !view.signs_on || !!view.spectator || !(view.your_turn && view.signing);
    if (box.hidden) { $("sign-buttons").replaceChildren(); return; }
    const buttons = $("sign-buttons");
    const choices = (view.your_turn && !busy && !lost) ? view.sign_choices : [];
    const focused = document.activeElement && document.activeElement.closest && document.activeElement.closest(".sign-button");
    const focusedSign = focused ? Number(focused.dataset.sign) : null;
    buttons.replaceChildren();
    (catalog.signs || []).forEach((s, sign) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "sign-button";
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
      button.addEventListener("click", () => makeSign(sign));
      buttons.append(button);
      if (sign === focusedSign) button.focus({preventScroll: true});
    });
  }
  function makeSign(sign) {
    if (!view || !view.your_turn || busy || lost || !view.sign_choices.includes(sign)) return;
    move("POST", `/api/games/${gameId}/sign`, {sign, version: view.version});
  }
  // Where a person's turn starts: the sign buttons while they make their sign, else the hand.
  function focusTurn() {
    if (view.signing) {
      const first = $("sign-buttons").querySelector('.sign-button[aria-disabled="false"]');
      if (first) { first.focus({preventScroll: true}); return; }
    }
    focusHand();
  }
  // The signs this seat saw this deal, trick by trick (the trick log of the signs).
  function renderSignsLog() {
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
  function mayPlay(card) { return view.your_turn && !busy && !lost && view.legal.includes(card); }

  function renderSide() {
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
    button.textContent = showLastTrick ? t("Hide last trick") : t("Show last trick");
    button.setAttribute("aria-expanded", String(showLastTrick && !!view.last_trick));
    const box = $("last-trick");
    box.hidden = !(showLastTrick && view.last_trick);
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
      button.addEventListener("click", () => newMatch(true));
    } else {
      button.id = "next-deal";
      button.textContent = t("Next deal");
      button.addEventListener("click", nextDeal);
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
    const away = view.away || [];
    if (awaySeen.game === gameId) {
      for (const seat of awaySeen.seats) {
        if (away.includes(seat) || backLately.has(seat)) continue;
        backLately.set(seat, setTimeout(() => { backLately.delete(seat); if (view) renderAway(); }, BACK_SHOWN_MS));
      }
    } else {
      for (const timer of backLately.values()) clearTimeout(timer);
      backLately.clear();
    }
    for (const seat of away) { clearTimeout(backLately.get(seat)); backLately.delete(seat); }
    awaySeen = {game: gameId, seats: away};
    const lines = away.map((seat) => t("{name} is away: the AI plays for them", {name: who(seat)}))
      .concat([...backLately.keys()].map((seat) => t("{name} is back", {name: who(seat)})));
    const box = $("away");
    if (box.textContent !== lines.join("\n")) box.textContent = lines.join("\n");
    box.hidden = !lines.length;
  }

  // What the reader may do, as the server says it: New match only for whoever
  // may start one (not a spectator, not a friend of the host), an AI choice
  // only for a seat an AI holds. During a new match's first deal, every page
  // says who started it.
  function renderOffers() {
    $("new-match").hidden = !lost && !view.can_start_match;
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

  function render() {
    if (!view) return;
    followGame();
    document.body.dataset.version = String(view.version);
    document.body.dataset.state = lost ? "lost" : busy ? "busy" : view.match.over ? "match-over" :
      view.deal.done ? "deal-over" : view.your_turn ? "your-turn" : "waiting";
    // A spectator's page has no hand, no Play button and no coach (style.css).
    document.body.classList.toggle("spectator", !!view.spectator);
    // A match with signs: the sign buttons and the signs seen; no coach (style.css).
    document.body.classList.toggle("with-signs", !!view.signs_on);
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
  }

  // ------------------------------------------------------------------ events

  // Show the events of a move one at a time, each by the view the server sent
  // with it, then the server's final view. A finished trick stays in view
  // longer, with its reason.
  async function playEvents(events, finalState) {
    busy = true;
    for (const ev of events) {
      view = ev.view;
      render();
      if (ev.type === "play" || ev.type === "trick" || ev.type === "sign") announce(ev.text);
      else if (ev.type === "deal_over") announce(ev.text.join(" "));
      if ((ev.type === "play" || ev.type === "sign") && ev.seat !== 0) await sleep(pace);
      else if (ev.type === "trick") await sleep(pace * 2.5);
    }
    busy = false;
    view = told(finalState); // or a newer view pushed meanwhile
    movesShown += 1;
    document.body.dataset.moves = String(movesShown);
    render();
    if (view.your_turn) focusTurn();
  }

  async function move(method, path, body) {
    if (busy) return;
    busy = true;
    clearError();
    render();
    try {
      const data = await api(method, path, body);
      if (data.id) { gameId = data.id; sessionStorage.setItem(STORE.game, gameId); remember(gameId); lost = false; }
      selected = null;
      await playEvents(data.events, data.state);
    } catch (err) {
      busy = false;
      if (err.code === "no_game") { showLost(); return; }
      if (err.status === 409 && gameId) { // a stale view: show the game as it is
        try { view = told((await api("GET", `/api/games/${gameId}`)).state); } catch { /* keep the error */ }
      }
      showError(err);
      render();
    }
  }

  // ------------------------------------------------------------------ updates
  // The server pushes this seat's view each time the game moves (people at one
  // table, the table's AI taking over); while the socket is down (a restarted
  // server), the page asks every 1.5 s and reconnects by itself.
  let socket = null;
  let socketFor = null;
  function followGame() {
    if (!gameId || lost || socketFor === gameId) return;
    if (socket) socket.close();
    socketFor = gameId;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/api/games/${gameId}/updates?lang=${encodeURIComponent(catalog.lang)}`);
    socket = ws;
    ws.onmessage = (e) => {
      const data = JSON.parse(e.data);
      if (ws !== socket || !view) return;
      const fresh = told(data.state);
      // While an answer animates, the newest view waits: playEvents shows it at its end.
      if (busy || fresh.version === view.version) return;
      view = fresh;
      clearError();
      render();
      if (view.your_turn) focusTurn();
    };
    ws.onclose = () => {
      if (ws !== socket) return;
      socket = null;
      setTimeout(async () => {
        if (socketFor !== gameId || lost) return;
        try {
          const fresh = told((await api("GET", `/api/games/${gameId}`)).state);
          if (!busy && (!view || fresh.version !== view.version)) { view = fresh; render(); }
          clearError();
        } catch (err) { if (err.code === "no_game") { showLost(); return; } }
        socketFor = null;
        followGame();
      }, 1500);
    };
  }

  // ------------------------------------------------------------------ my matches
  // This browser's links (the server keeps only their hashes), newest first;
  // the server says where each match stands, and any of them opens again.
  function myTokens() {
    try { return JSON.parse(localStorage.getItem(STORE.matches) || "[]").filter((x) => typeof x === "string"); } catch { return []; }
  }
  function remember(token) {
    const tokens = [token, ...myTokens().filter((x) => x !== token)].slice(0, 100);
    localStorage.setItem(STORE.matches, JSON.stringify(tokens));
  }
  async function showMyMatches() {
    const list = $("my-matches");
    list.replaceChildren();
    const tokens = myTokens();
    if (!tokens.length) return;
    const data = await api("POST", "/api/my-matches", {tokens});
    for (const match of data.matches) {
      const item = document.createElement("li");
      const text = match.finished ? t("Match over: {us} to {them}", {us: match.points[0], them: match.points[1]}) :
        t("Deal {deal} of {of}: {us} to {them}", {deal: match.deal, of: match.of, us: match.points[0], them: match.points[1]});
      const when = new Date(match.updated * 1000).toLocaleString(catalog.lang);
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = t("Open");
      button.disabled = match.token === gameId;
      button.addEventListener("click", async () => {
        try {
          const state = (await api("GET", `/api/games/${match.token}`)).state;
          gameId = match.token;
          view = told(state);
          sessionStorage.setItem(STORE.game, gameId);
          remember(gameId);
          lost = false;
          selected = null;
          $("settings").close();
          render();
        } catch (err) { showError(err); }
      });
      item.append(`${when} · ${text} `, button);
      list.append(item);
    }
  }

  // ------------------------------------------------------------------ invitations
  // A table with friends: the ticked seats are people, whose links are shown
  // here to be sent; AIs play the others; this page takes seat 0 (south).
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
      gameId = made.seats["0"].token;
      sessionStorage.setItem(STORE.game, gameId);
      remember(gameId);
      lost = false;
      selected = null;
      view = told((await api("GET", `/api/games/${gameId}`)).state);
      render();
    } catch (err) {
      problem.textContent = err.status !== undefined ? err.message : t("Something went wrong: {error}", {error: err.message});
      problem.hidden = false;
    }
  }

  function playSelected() {
    if (!mayPlay(selected)) return;
    move("POST", `/api/games/${gameId}/play`, {card: selected, version: view.version});
  }
  function nextDeal() { move("POST", `/api/games/${gameId}/next-deal`, {version: view.version}); }
  // "New match" asks first when it would discard a game in progress.
  function newMatch(confirmed) {
    if (!confirmed && view && view.in_progress && gameId && !lost) {
      $("confirm-new").showModal();
      return;
    }
    showLastTrick = false;
    if (gameId && !lost) move("POST", `/api/games/${gameId}/new-match`, view ? {version: view.version} : {});
    else startGame();
  }
  // The settings' signs option for a new game: {signs, catch} (the chance typed in
  // percent; the server checks it), or nothing without signs.
  function signsChoice(box, chance) {
    if (!$(box).checked) return {};
    const typed = $(chance).value.trim();
    const percent = typed !== "" && Number.isFinite(Number(typed)) ? Number(typed) : NaN;
    return {signs: true, catch: Number.isFinite(percent) ? percent / 100 : typed};
  }
  function startGame() {
    const choice = {};
    for (const select of document.querySelectorAll("select[data-role]")) if (select.value) choice[select.dataset.role] = select.value;
    return move("POST", "/api/games", {...choice, ...signsChoice("signs-on", "signs-catch")});
  }

  // ------------------------------------------------------------------ hand input
  function onCardClick(card, index) {
    focusIndex = index;
    if (!mayPlay(card)) return;
    if (selected === card) { playSelected(); return; }
    selected = card;
    render();
    focusHand();
  }
  function focusHand() {
    const buttons = $("hand").querySelectorAll(".hand-card");
    if (buttons[focusIndex]) buttons[focusIndex].focus({preventScroll: true});
  }
  function onHandKey(event) {
    const buttons = [...$("hand").querySelectorAll(".hand-card")];
    if (!buttons.length) return;
    const rtl = document.documentElement.dir === "rtl";
    let next = null;
    if (event.key === "ArrowRight") next = focusIndex + (rtl ? -1 : 1);
    else if (event.key === "ArrowLeft") next = focusIndex + (rtl ? 1 : -1);
    else if (event.key === "ArrowDown") next = focusIndex + 1;
    else if (event.key === "ArrowUp") next = focusIndex - 1;
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = buttons.length - 1;
    else if (event.key === "Escape") {
      if (selected !== null) { selected = null; render(); focusHand(); event.preventDefault(); }
      return;
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      onCardClick(view.hand[focusIndex], focusIndex);
      return;
    } else return;
    event.preventDefault();
    focusIndex = (next + buttons.length) % buttons.length;
    buttons.forEach((b, i) => { b.tabIndex = i === focusIndex ? 0 : -1; });
    buttons[focusIndex].focus();
  }

  // ------------------------------------------------------------------ settings
  function loadJson(key, fallback) {
    try { return Object.assign({}, fallback, JSON.parse(localStorage.getItem(key) || "{}")); } catch { return Object.assign({}, fallback); }
  }
  function applyDisplay(d) {
    const root = document.documentElement.style;
    // 50 % is the neutral point of each slider.
    root.setProperty("--contrast", String(0.5 + d.contrast / 100)); // 0.5x - 1.5x
    root.setProperty("--grain", String((d.grain / 100) * 0.5)); // grain layer opacity 0 - 0.5
    const w = (d.warmth - 50) / 50; // -1 cool ... +1 warm
    root.setProperty("--tint", w >= 0 ? `rgba(255, 140, 40, ${0.22 * w})` : `rgba(60, 130, 255, ${-0.22 * w})`);
    $("app").classList.toggle("contrasted", d.contrast !== DISPLAY_DEFAULT.contrast);
    document.querySelector(".grain").hidden = d.grain === 0;
    document.querySelector(".tint").hidden = w === 0;
    for (const key of Object.keys(DISPLAY_DEFAULT)) {
      $(key).value = d[key];
      $(`${key}-out`).textContent = t("{n}%", {n: number(d[key])});
    }
  }
  let display = DISPLAY_DEFAULT;
  function showPace() {
    $("pace").value = pace;
    $("pace-out").textContent = t("{s} s", {s: number(pace / 1000, {digits: 1})});
  }
  function setupDisplay() {
    display = loadJson(STORE.display, DISPLAY_DEFAULT);
    applyDisplay(display);
    for (const key of Object.keys(DISPLAY_DEFAULT)) {
      $(key).addEventListener("input", (e) => {
        display = Object.assign({}, display, {[key]: Number(e.target.value)});
        applyDisplay(display);
        localStorage.setItem(STORE.display, JSON.stringify(display));
      });
    }
    $("reset-display").addEventListener("click", () => {
      display = Object.assign({}, DISPLAY_DEFAULT);
      applyDisplay(display);
      localStorage.setItem(STORE.display, JSON.stringify(display));
    });
    const stored = localStorage.getItem(STORE.pace);
    pace = stored !== null && !Number.isNaN(Number(stored)) ? Number(stored) : PACE_DEFAULT;
    showPace();
    $("pace").addEventListener("input", (e) => { pace = Number(e.target.value); localStorage.setItem(STORE.pace, String(pace)); showPace(); });
  }

  // The AI players a seat may take, with their names in the page's language:
  // asked once per language (setLanguage), the menus built once (setupPlayers).
  let players = {players: [], defaults: {}};
  async function loadPlayers() {
    players = await api("GET", "/api/players");
    labels = players.labels;
  }
  function setupPlayers() {
    for (const select of document.querySelectorAll("select[data-role]")) {
      select.replaceChildren();
      for (const spec of players.players) {
        const option = document.createElement("option");
        option.value = spec;
        option.textContent = labels[spec] || spec;
        select.append(option);
      }
      select.value = players.defaults[select.dataset.role];
      select.addEventListener("change", async () => {
        if (!gameId || lost) return;
        try {
          const res = await api("POST", `/api/games/${gameId}/players`, {[select.dataset.role]: select.value});
          told(res.state);
          if (!busy) { view = newest; render(); }
        } catch (err) {
          if (err.code === "no_game") showLost(); else showError(err);
        }
      });
    }
  }
  function syncPlayers() {
    const roles = {left: "1", partner: "2", right: "3"};
    for (const select of document.querySelectorAll("select[data-role]")) {
      const spec = view && view.players[roles[select.dataset.role]];
      if (spec) select.value = spec;
      for (const option of select.options) option.textContent = labels[option.value] || option.value;
    }
  }

  // ------------------------------------------------------------------ language
  async function setLanguage(lang) {
    if (!languages.includes(lang)) lang = "en";
    catalog = await api("GET", `/api/i18n/${lang}`);
    localStorage.setItem(STORE.lang, lang);
    document.documentElement.lang = lang;
    document.documentElement.dir = catalog.dir;
    $("language").value = lang;
    for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
    for (const el of document.querySelectorAll("[data-t-label]")) el.setAttribute("aria-label", t(el.dataset.tLabel));
    for (const el of document.querySelectorAll("[data-t-placeholder]")) el.placeholder = t(el.dataset.tPlaceholder);
    document.title = `Aluette · ${t("The game of the cow")}`;
    renderRankOrder();
    applyDisplay(display);
    showPace();
    await loadPlayers();
    syncPlayers();
    for (const slot of document.querySelectorAll(".slot")) slot.replaceChildren(); // redraw faces and ribbons
    if (gameId && !lost && !busy) { // the server words the game in the new language
      try { view = told((await api("GET", `/api/games/${gameId}`)).state); } catch (err) { if (err.code === "no_game") showLost(); }
    }
    render();
    languageLoaded();
  }
  function renderRankOrder() {
    const list = $("rank-order");
    list.replaceChildren();
    if (!deck) return;
    for (const level of deck.levels) {
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
      const named = level.filter((c) => deck.named.includes(c));
      if (named.length) {
        const caption = document.createElement("span");
        caption.className = "rank-name";
        caption.textContent = named.map(cardName).join(", ");
        item.append(caption);
      }
      list.append(item);
    }
  }

  // ------------------------------------------------------------------ start
  async function main() {
    setupDisplay();
    $("hand").addEventListener("keydown", onHandKey);
    $("confirm").addEventListener("click", playSelected);
    $("new-match").addEventListener("click", () => newMatch(false));
    $("confirm-new").addEventListener("close", () => { if ($("confirm-new").returnValue === "discard") newMatch(true); });
    $("lost").addEventListener("close", () => { if ($("lost").returnValue === "new") newMatch(true); });
    $("open-rules").addEventListener("click", () => $("rules").showModal());
    $("open-settings").addEventListener("click", () => {
      $("settings").showModal();
      showMyMatches().catch(showError);
    });
    $("open-invite").addEventListener("click", () => {
      $("settings").close();
      $("invite-links").hidden = true;
      $("invite-error").hidden = true;
      $("invite").showModal();
    });
    $("invite-form").addEventListener("submit", createTable);
    // Playing with signs: the AI seats take the server's players that sign (a
    // choice may still change them), and a new match starts from the settings.
    $("signs-on").addEventListener("change", () => {
      const defaults = $("signs-on").checked ? players.signs_defaults : players.defaults;
      for (const select of document.querySelectorAll("select[data-role]")) if (defaults) select.value = defaults[select.dataset.role];
    });
    $("start-new").addEventListener("click", () => {
      $("settings").close();
      showLastTrick = false;
      startGame();
    });
    $("last-trick-button").addEventListener("click", () => { showLastTrick = !showLastTrick; render(); });
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && selected !== null && !document.querySelector("dialog[open]")) { selected = null; render(); focusHand(); }
    });
    const meta = await Promise.all([api("GET", "/api/deck"), api("GET", "/api/languages")]);
    deck = meta[0];
    deck.levels.forEach((level, k) => { for (const card of level) levelOf[card] = k + 1; });
    const picker = $("language");
    languages = Object.keys(meta[1].languages);
    for (const [code, name] of Object.entries(meta[1].languages)) {
      const option = document.createElement("option");
      option.value = code;
      option.textContent = name;
      option.lang = code;
      picker.append(option);
    }
    picker.addEventListener("change", () => setLanguage(picker.value));
    const wanted = localStorage.getItem(STORE.lang) || (navigator.language || meta[1].default).slice(0, 2);
    await setLanguage(wanted); // loads the players' names in that language
    setupPlayers();
    // An invitation (?seat=TOKEN) or a spectator's link (?watch=TOKEN) opens that seat.
    const params = new URLSearchParams(location.search);
    const invited = params.get("seat") || params.get("watch");
    if (invited) {
      sessionStorage.setItem(STORE.game, invited);
      remember(invited);
      history.replaceState(null, "", location.pathname);
    }
    const saved = sessionStorage.getItem(STORE.game);
    if (saved) {
      try {
        const state = (await api("GET", `/api/games/${saved}`)).state;
        gameId = saved;
        view = told(state);
        syncPlayers();
        render();
        if (view.your_turn) focusHand();
        return;
      } catch (err) {
        if (err.code === "no_game") { showLost(); return; }
        throw err;
      }
    }
    await startGame();
    syncPlayers();
  }

  main().catch(showError);
})();
