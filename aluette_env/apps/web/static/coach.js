// The coach beside the table: the expert's hint on your turn (button or the H
// key), the review of each finished deal, the match record (download), and
// the replay of a record (upload, or ?record=ID) with all four hands and the
// review beside each play. Everything it shows comes from the server's coach
// routes (aluette_env/apps/web/coach_api.py): the estimates, the reviews and
// who took each trick. It states no rule of the game, and it reads the table's
// state only from what main.js publishes (the game id in sessionStorage, or
// kept() for the deal the page opened with, not kept yet; the
// state on <body>). Its words are the page's: t() and the card names of
// main.js (window.AluetteText), from the apps' one message catalog.
"use strict";

(() => {
  const GAME_KEY = "aluette.game";
  const $ = (id) => document.getElementById(id);
  let replay = null; // {id, data, deal, step}
  const REVIEW_POLL_MS = 400; // how often a replay asks for the reviews still being computed

  const gameId = () => sessionStorage.getItem(GAME_KEY);
  const state = () => document.body.dataset.state || "";
  const t = (message, fields) => window.AluetteText.t(message, fields);
  const cardName = (c) => window.AluetteText.cardName(c);
  // Points and their uncertainty in the page's language (signed: isolated, so
  // the sign stays on the left in right-to-left text).
  const points = (x) => window.AluetteText.number(x, {signed: true, digits: 2});
  const spread = (x) => window.AluetteText.number(x, {digits: 2});

  // The table's requests (api.js): in the page's language, its error codes in words, and
  // sent again while the server cannot be reached.
  const api = (method, path, body) => window.AluetteText.api(method, path, body);

  // The page's language is loaded (language.js) before the coach shows anything.
  const loadCards = () => window.AluetteText.ready;

  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // ------------------------------------------------------------------ hint
  async function showHint() {
    const box = $("coach-hint");
    if (state() !== "your-turn") {
      box.replaceChildren(el("p", "coach-note", t("A hint is for your turn.")));
      return;
    }
    box.replaceChildren(el("p", "coach-note", t("The expert is thinking…")));
    document.body.dataset.hint = "pending";
    try {
      await loadCards();
      // The deal shown as the page opened is kept first (a hint asks of a kept game).
      const id = gameId() || await window.AluetteText.kept();
      const hint = await api("GET", `/api/games/${id}/hint`);
      const list = el("ol", "coach-list");
      for (const e of hint.cards) {
        const item = el("li", e.best ? "coach-best" : "");
        item.dataset.card = e.card;
        item.append(el("span", "coach-card", cardName(e.card)));
        // Every card by the same measure: the points it is expected to bring.
        const value = `${points(e.value)} ± ${spread(e.stderr)}`;
        item.append(el("span", "coach-value", e.best ? t("{value} (best)", {value}) : value));
        list.append(item);
      }
      // A forced or single card: nothing was simulated, and nothing to compare.
      const note = hint.worlds > 0 && hint.cards.length > 1 ?
        t("The expert's estimate ({worlds} sampled deals): the points of the deal your side " +
          "can expect after each card, ± the uncertainty.",
          {worlds: window.AluetteText.number(hint.worlds)}) :
        t("Only this card can be played: there is nothing to compare.");
      box.replaceChildren(el("p", "coach-note", note), list);
      for (const b of document.querySelectorAll(".hand-card")) {
        b.classList.toggle("coach-pick", Number(b.dataset.card) === hint.best);
      }
      document.body.dataset.hint = "shown";
    } catch (err) {
      box.replaceChildren(el("p", "coach-note", err.message));
      document.body.dataset.hint = "error";
    }
  }

  function clearHint() {
    $("coach-hint").replaceChildren();
    delete document.body.dataset.hint;
  }

  // ------------------------------------------------------------------ reviews
  function reviewLine(play) {
    const r = play.review;
    if (!r) return "";
    if (r.best === play.card || (r.cost === 0 && r.stderr === 0)) return t("= the expert's card");
    return t("expert: {card}, cost {cost} ± {stderr}",
             {card: cardName(r.best), cost: points(r.cost), stderr: spread(r.stderr)}) +
      (r.mistake ? ` — ${t("mistake")}` : "");
  }

  // Seats in words, as the table names them, for the person at ``viewer``
  // (an absolute seat, 0-3): You, West, Partner, East around them; with no
  // person there (a record of AIs), the compass.
  function seatWords(viewer, person) {
    const own = [t("You"), t("West"), t("Partner"), t("East")];
    const compass = [t("South"), t("West"), t("North"), t("East")];
    return {
      seat: (seat) => (person ? own[(Number(seat) - viewer + 4) % 4] : compass[Number(seat)]),
      agent: (agent) => (person ? own[(Number(agent.slice(-1)) - viewer + 4) % 4] : compass[Number(agent.slice(-1))]),
      // team_0 is south and north (seats 0 and 2); the viewer's side first
      teams: person ? [t("You and partner"), t("Opponents")] : [t("South and north"), t("West and east")],
      first: viewer % 2, // the team named first
      // the seats in the table's order from the viewer: You, West, Partner, East
      order: (seat) => (Number(seat) - (person ? viewer : 0) + 4) % 4,
    };
  }

  function summaryLines(summary, words) {
    const seats = Object.entries(summary.seats).sort(([a], [b]) => words.order(a) - words.order(b));
    return seats.map(([seat, s]) =>
      t("{seat} — decisions: {decisions}, mistakes: {mistakes}, mean cost per decision: {cost}",
        {seat: words.seat(seat), decisions: window.AluetteText.number(s.decisions),
         mistakes: window.AluetteText.number(s.mistakes), cost: points(s.mean_cost)}));
  }

  async function showReview() {
    const dialog = $("coach-review");
    const body = $("coach-review-body");
    if (!dialog.open) dialog.showModal();
    await loadCards();
    const data = await api("GET", `/api/games/${gameId()}/review`);
    const last = data.deals.length - 1;
    body.replaceChildren();
    if (last < 0) { body.append(el("p", "coach-note", t("No deal of this match has ended yet."))); return; }
    const review = data.deals[last];
    const words = seatWords(data.seats[0], true); // the person's seat, then the partner's
    if (!review) {
      body.append(el("p", "coach-note", t("The review is being computed in the background…")));
      setTimeout(() => { if (dialog.open) showReview().catch(() => {}); }, 1000);
      return;
    }
    body.append(el("h3", "", t("Deal {n}", {n: last + 1})));
    const list = el("ol", "coach-plays");
    for (const play of review.plays) {
      if (!play.review) continue;
      const item = el("li", play.review.mistake ? "coach-mistake" : "");
      const who = words.seat(play.seat);
      item.append(el("span", "", t("Trick {n} · {seat}: {card}",
                                   {n: play.trick + 1, seat: who, card: cardName(play.card)})));
      item.append(el("span", "coach-value", reviewLine(play)));
      list.append(item);
    }
    body.append(list, el("h3", "", t("This match so far")));
    for (const line of summaryLines(data.summary, words)) body.append(el("p", "", line));
    document.body.dataset.review = "shown";
  }

  // ------------------------------------------------------------------ records
  async function openRecord(text) {
    const {id} = await api("POST", "/api/records", text);
    const url = new URL(location.href);
    url.searchParams.set("record", id);
    history.pushState(null, "", url);
    await startReplay(id);
  }

  async function replayThisMatch() {
    const record = await api("GET", `/api/games/${gameId()}/record`);
    const review = await api("GET", `/api/games/${gameId()}/review`);
    viewer = review.seats[0]; // this person's seat in the record
    await openRecord(JSON.stringify(record));
  }
  let viewer = null; // the seat of the person replaying their own match

  async function startReplay(id) {
    await loadCards();
    const data = await api("GET", `/api/records/${id}`);
    // "You" is the person replaying their match, else the record's first person.
    const people = Object.keys(data.record.players).filter((a) => data.record.players[a] === "human");
    const mine = viewer !== null && people.includes(`player_${viewer}`) ? viewer :
      people.length ? Number(people[0].slice(-1)) : 0;
    viewer = null;
    replay = {id, data, deal: 0, step: 0, words: seatWords(mine, people.length > 0)};
    if (!$("replay").open) $("replay").showModal();
    drawReplay();
    if (data.deals.some((d) => d === null)) setTimeout(refreshReplay, REVIEW_POLL_MS);
  }

  async function refreshReplay() {
    if (!replay || !$("replay").open) return;
    try {
      replay.data = await api("GET", `/api/records/${replay.id}`);
      drawReplay();
      if (replay.data.deals.some((d) => d === null)) setTimeout(refreshReplay, REVIEW_POLL_MS);
    } catch (err) { /* the record was dropped: the view keeps what it has */ }
  }

  function drawReplay() {
    const {data, words} = replay;
    const deal = data.record.deals[replay.deal];
    const plays = deal.plays;
    const step = replay.step; // plays shown: 0..36
    // Of the match's deals (the record's num_deals), however many it holds so far.
    $("replay-title").textContent = t("Deal {n} of {total} · play {step} of {plays}",
      {n: replay.deal + 1, total: data.record.num_deals, step, plays: plays.length});
    document.body.dataset.replayStep = `${replay.deal}:${step}`;
    // The server's snapshot after `step` plays: the hands left, the trick on the
    // table and who took it (the page computes none of it).
    const steps = data.steps[replay.deal];
    const snap = steps[step];
    const hands = $("replay-hands");
    hands.replaceChildren();
    for (let seat = 0; seat < 4; seat++) {
      const agent = `player_${seat}`;
      const box = el("div", `replay-hand replay-seat-${seat}`);
      box.dataset.seat = seat;
      const spec = data.record.players[agent];
      box.append(el("h3", "", spec === "human" ? words.agent(agent) :
        `${words.agent(agent)} (${window.AluetteText.playerLabel(spec)})`));
      const row = el("div", "replay-cards");
      for (const c of snap.hands[seat]) {
        const card = el("span", "card mini");
        card.innerHTML = window.AluetteText.cardSvg(c, null, []);
        card.dataset.card = c;
        card.title = cardName(c);
        row.append(card);
      }
      box.append(row);
      hands.append(box);
    }
    const trick = $("replay-trick");
    trick.replaceChildren();
    for (const [agent, c] of snap.trick) trick.append(el("span", "replay-play", `${words.agent(agent)}: ${cardName(c)}`));
    if (snap.done) trick.append(el("strong", "", snap.winner ? t("Taken by {seat}", {seat: words.agent(snap.winner)}) : t("Spoiled")));
    // Every play with the review beside it.
    const review = data.deals[replay.deal];
    const list = $("replay-plays");
    list.replaceChildren();
    plays.forEach(([agent, c], k) => {
      const item = el("li", k === step - 1 ? "current" : "");
      if (steps[k + 1].opened) item.classList.add("trick-start");
      const r = review ? review.plays[k] : null;
      if (r && r.review && r.review.mistake) item.classList.add("coach-mistake");
      item.append(el("span", "", `${words.agent(agent)}: ${cardName(c)}`));
      if (deal.signs) item.append(signLine(deal.signs[k], words));
      item.append(el("span", "coach-value", review ? reviewLine(r) : "…"));
      item.addEventListener("click", () => { replay.step = k + 1; drawReplay(); });
      list.append(item);
    });
    const current = list.querySelector("li.current");
    if (current) current.scrollIntoView({block: "nearest"}); // the play shown stays in view
    const summary = $("replay-summary");
    summary.replaceChildren();
    const result = deal.result;
    if (step === plays.length) {
      summary.append(el("p", "", dealResult(result, words)));
    }
    for (const line of summaryLines(data.summary, words)) summary.append(el("p", "", line));
    $("replay-prev").disabled = replay.deal === 0 && step === 0;
    $("replay-next").disabled = replay.deal === data.record.deals.length - 1 && step === plays.length;
  }

  // A play's sign as a record of a match with signs keeps it ([sign 0-9, [the
  // opponents who caught it]], docs/RECORDS.md): the whole record, so every sign.
  function signLine([sign, caught], words) {
    const text = window.AluetteText;
    const line = el("span", "replay-sign");
    line.dataset.sign = sign;
    line.innerHTML = text.signIcon(sign); // a drawing of the lexicon's own (signs.js)
    const said = sign === 0 ? text.signText(0) : caught.length === 0 ?
      t("Sign: {sign}", {sign: text.signText(sign)}) :
      t("Sign: {sign}, caught by {seats}", {sign: text.signText(sign),
                                            seats: text.list(caught.map(words.agent))});
    line.append(document.createTextNode(said));
    return line;
  }

  // A deal's result as the record states it, in the table's words: the sentence of
  // Narrator.deal_result (aluette_env/apps/narrator.py), the same message ids.
  function dealResult(result, words) {
    const n = window.AluetteText.number;
    const points = [n(result.points.team_0), n(result.points.team_1)];
    const fields = {seat: result.winner ? words.agent(result.winner) : "",
                    team: words.teams[0], points: points[words.first],
                    other: words.teams[1], other_points: points[1 - words.first]};
    if (!result.winner) return t("Nobody won the deal. {team}: {points}, {other}: {other_points}", fields);
    return result.mordienne ?
      t("Deal won by {seat} with a Mordienne. {team}: {points}, {other}: {other_points}", fields) :
      t("Deal won by {seat}. {team}: {points}, {other}: {other_points}", fields);
  }

  function stepReplay(delta) {
    if (!replay) return;
    const deals = replay.data.record.deals;
    const last = (d) => deals[d].plays.length; // the plays the record holds
    let {deal, step} = replay;
    step += delta;
    if (step < 0 && deal > 0) { deal -= 1; step = last(deal); }
    if (step > last(deal) && deal < deals.length - 1) { deal += 1; step = 0; }
    replay.deal = deal;
    replay.step = Math.max(0, Math.min(last(deal), step));
    drawReplay();
  }

  // ------------------------------------------------------------------ wiring
  function syncButtons() {
    const s = state();
    $("coach-hint-button").disabled = s !== "your-turn";
    $("coach-review-button").hidden = !(s === "deal-over" || s === "match-over");
    $("coach-replay-button").hidden = s !== "match-over";
    const id = gameId();
    $("coach-download").href = id ? `/api/games/${id}/record` : "#";
  }

  function setup() {
    $("coach-hint-button").addEventListener("click", showHint);
    $("coach-review-button").addEventListener("click", () => showReview().catch((e) => alert(e.message)));
    $("coach-replay-button").addEventListener("click", () => replayThisMatch().catch((e) => alert(e.message)));
    $("coach-open").addEventListener("click", () => $("coach-file").click());
    $("coach-file").addEventListener("change", async (e) => {
      const file = e.target.files[0];
      if (!file) return;
      try { await openRecord(await file.text()); } catch (err) { alert(err.message); }
      e.target.value = "";
    });
    $("replay-prev").addEventListener("click", () => stepReplay(-1));
    $("replay-next").addEventListener("click", () => stepReplay(1));
    $("replay").addEventListener("keydown", (e) => {
      if (e.key === "ArrowLeft") { stepReplay(-1); e.preventDefault(); }
      if (e.key === "ArrowRight") { stepReplay(1); e.preventDefault(); }
    });
    $("replay").addEventListener("close", () => {
      replay = null;
      const url = new URL(location.href);
      url.searchParams.delete("record");
      history.replaceState(null, "", url);
    });
    document.addEventListener("keydown", (e) => {
      if (e.key.toLowerCase() !== "h" || e.ctrlKey || e.metaKey || e.altKey) return;
      if (document.querySelector("dialog[open]") || /INPUT|SELECT|TEXTAREA/.test(e.target.tagName)) return;
      showHint();
    });
    // render.js publishes the table's state on <body>: a new state clears the hint.
    let last = state();
    new MutationObserver(() => {
      if (state() !== last) { last = state(); clearHint(); }
      syncButtons();
    }).observe(document.body, {attributes: true, attributeFilter: ["data-state", "data-moves"]});
    syncButtons();
    const id = new URL(location.href).searchParams.get("record");
    if (id) startReplay(id).catch((err) => alert(err.message));
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup);
  else setup();
})();
