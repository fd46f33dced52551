// The page's shared state, in one place: the game on screen and what the
// person is doing with it. Every other module keeps its own state to itself
// and reads or changes this only through get and set; subscribe hears each
// change (push.js follows the game shown).
//   gameId: the link's token of the game shown (null: none)
//   draft: the deal shown as the page opened, not kept yet (null: none), which
//     its first move keeps (match.js)
//   view: what is on screen, a view the server sent
//   selected: the card chosen but not yet played; focusIndex: the hand's roving focus
//   busy: a request or an animation is in progress
//   lost: the server no longer knows this game: only a new match helps
//   showLastTrick: the side panel shows the last trick
const state = {gameId: null, draft: null, view: null, selected: null, focusIndex: 0, busy: false, lost: false,
               showLastTrick: false};
const listeners = [];

export function get(key) { return state[key]; }

// Change some keys at once ({key: value, ...}); the listeners hear the change.
export function set(change) {
  for (const key of Object.keys(change)) {
    if (!(key in state)) throw new Error(`state.js has no key ${key}`);
  }
  Object.assign(state, change);
  for (const listener of [...listeners]) listener(change);
}

export function subscribe(listener) { listeners.push(listener); }

// A promise kept once the page is not busy (no request, no animation).
export function free() {
  if (!state.busy) return Promise.resolve();
  return new Promise((resolve) => {
    const wait = (change) => {
      if (change.busy !== false) return;
      listeners.splice(listeners.indexOf(wait), 1);
      resolve();
    };
    listeners.push(wait);
  });
}

// The newest view of this game the page was told of (an answer, a push), and
// its game: what the page shows once it is not busy, so that a push that
// arrives during an answer's animation is shown after it, never dropped.
let newest = null;
let newestFor = null;

// A view of the game the page was told of: kept if it is the newest (a
// same-version view replaces it: new words, in another language); returns
// the newest, which is what the page shows when it is free.
export function told(view) {
  const shown = state.gameId || state.draft;
  if (newestFor !== shown) { newest = null; newestFor = shown; }
  if (!newest || view.version >= newest.version) newest = view;
  return newest;
}
