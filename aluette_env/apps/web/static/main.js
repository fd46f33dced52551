// The Aluette table in the browser. The server holds the game and sends the
// view of your seat (south, player_0), and the events of each move each with
// the view just after it, with their words in your language (the same words
// as the terminal game); the page only shows those views and sends your
// choices. It states no rule of the game and works nothing out: the cards you
// may play, how many cards each seat holds, the trick's number, who wins a
// trick and why, who leads next, the tally, the Mordienne line and the deal's
// result all come from the server. With signs, the signs you may make now
// (sign_choices) and the signs your seat saw come from the server too.
//
// One module per feature, each keeping its own state; what they share (the
// game shown, the chosen card, busy…) is state.js's. This one starts the
// page: it wires the buttons and opens the game of the link or a new deal.
import {api, showError} from "./api.js";
import {cardSvg, setDeck} from "./deck.js";
import {$, STORE} from "./dom.js";
import {cardName, list, number, signIcon, signText, t} from "./i18n.js";
import {setupInvite} from "./invite.js";
import {setupKeys} from "./keys.js";
import {languageReady, setLanguage, setLanguages} from "./language.js";
import {askFirst, confirmed, dealDraft, kept, newMatch, nextDeal, showLost, startGame, takeSeatBack} from "./match.js";
import {showing, showMyMatches} from "./matches.js";
import {choosePlayersFor, playerLabel, setupPlayers, syncPlayers} from "./players.js";
import {followShownGame} from "./push.js";
import {atTable, focusHand, render} from "./render.js";
import {setupSettings} from "./settings.js";
import {setupTips} from "./tips.js";
import {get, set, told} from "./state.js";

// The page's words for its other scripts (coach.js): t() and the card names
// and faces, and a promise kept once the deck and the first language are loaded.
// kept(): the token of the game shown, the deal shown as the page opened kept
// first (the coach's hint asks of a kept game).
window.AluetteText = {t, cardName, cardSvg, number, list, signText, signIcon, ready: languageReady, api, playerLabel, kept};

async function main() {
  setupSettings();
  followShownGame();
  setupKeys();
  setupTips();
  $("new-match").addEventListener("click", () => newMatch(false));
  $("confirm-new").addEventListener("close", () => { if ($("confirm-new").returnValue === "discard") confirmed(); });
  $("take-back").addEventListener("click", takeSeatBack);
  $("lost").addEventListener("close", () => { if ($("lost").returnValue === "new") newMatch(true); });
  // A deal's summary (render.js): the next deal, or a new match once it is over.
  $("summary").addEventListener("click", (e) => {
    if (e.target.closest("#next-deal")) nextDeal();
    else if (e.target.closest("#summary-new-match")) newMatch(true);
  });
  $("open-rules").addEventListener("click", () => $("rules").showModal());
  $("open-settings").addEventListener("click", () => {
    $("settings").showModal();
    showMyMatches().catch(showError);
  });
  setupInvite();
  // Playing with signs: the AI seats take the server's players that sign (a
  // choice may still change them), and a new match starts from the settings.
  $("signs-on").addEventListener("change", () => choosePlayersFor($("signs-on").checked));
  $("start-new").addEventListener("click", () => {
    $("settings").close();
    askFirst(() => {
      set({showLastTrick: false});
      startGame();
    });
  });
  $("last-trick-button").addEventListener("click", () => { set({showLastTrick: !get("showLastTrick")}); render(); });
  const meta = await Promise.all([api("GET", "/api/deck"), api("GET", "/api/languages")]);
  setDeck(meta[0]);
  const picker = $("language");
  setLanguages(Object.keys(meta[1].languages));
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
  // An invitation (?seat=TOKEN) or a spectator's link (?watch=TOKEN) opens that
  // seat; else this tab's game, else the table of people this browser sat at
  // last; else a deal that is kept only once it is played (a reload of this
  // tab shows it again).
  const params = new URLSearchParams(location.search);
  const saved = params.get("seat") || params.get("watch") || sessionStorage.getItem(STORE.game) ||
    localStorage.getItem(STORE.table);
  if (saved) {
    try {
      const state = (await api("GET", `/api/games/${saved}`)).state;
      set({gameId: saved});
      set({view: told(state)});
      showing(saved, atTable(state) || null);
      syncPlayers();
      render();
      if (get("view").your_turn) focusHand();
      return;
    } catch (err) {
      if (err.code === "no_game") { showLost(); return; }
      throw err;
    }
  }
  await dealDraft(sessionStorage.getItem(STORE.draft));
  syncPlayers();
}

main().catch(showError);
