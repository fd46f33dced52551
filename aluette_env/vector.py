"""Batched Aluette: N independent matches stepped at once, for self-play.

Each game is a match of ``num_deals`` deals (R2, R5-R16), with exactly the
rules of :mod:`aluette_env.rules` and the observation encoding of
:mod:`aluette_env.observation` (same ``OBS_VERSION``, bit for bit). The state
is a few small arrays per game (under 200 bytes; the observation buffer adds
``OBS_SIZE`` bytes); the hot path is compiled with numba into one loop over
games per call, and no Python code runs per game.

    game = VectorGame(num_games=1024, seed=0)
    game.reset()
    while True:
        actions = pick(game.obs, game.mask)        # one card id per game, for game.to_act
        rewards, deal_done, match_done = game.step(actions)

After each ``step`` the arrays ``obs`` (int8, [N, OBS_SIZE]), ``mask``
(int8, [N, 48]) and ``to_act`` (seat, [N]) describe the next decision of every
game; ``rewards`` ([N, 4], by absolute seat) are the deal points of games
whose deal ended in that step (same sign convention as the AEC env).
``deal_result(i)`` / ``match_result(i)`` give the AEC env's info dicts for a
game whose ``deal_done`` / ``match_done`` flag is set. With ``auto_reset``
(default) a finished match restarts at once, so every game always has a
decision to make; the results of the finished match stay readable until that
game's next deal ends.

Card codes in ``card_state`` ([N, 48]): 0-3 in that seat's hand, 4 unused,
5-8 in the trick in progress (played by seat code-5), 9-12 played in an
earlier trick of this deal (by seat code-9).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .cards import NUM_CARDS, STRENGTH, describe
from .env import AGENTS, TEAMS, seat_of
from .observation import MAX_DEALS, MAX_POINTS, OBS_SIZE, OFFSET
from .rules import HAND_SIZE, NUM_SEATS, NUM_TRICKS, check_hands, deal_order

try:
    from numba import njit
    HAVE_NUMBA = True
except ImportError:  # the same code runs as plain Python: correct, but slow
    HAVE_NUMBA = False

    def njit(*args, **kwargs):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f

UNUSED, IN_TRICK, PLAYED = 4, 5, 9
_STRENGTH = np.array(STRENGTH, np.int8)
# _DEAL_ORDER[dealer, k]: seat receiving the k-th card of the shuffled deck (R5).
_DEAL_ORDER = np.array([deal_order(d) for d in range(NUM_SEATS)], np.int8)

_O_HAND = OFFSET["hand"]
_O_TRICK = OFFSET["trick"]
_O_PLAYED = OFFSET["played"]
_O_WINNERS = OFFSET["trick_winners"]
_O_COUNTS = OFFSET["trick_counts"]
_O_REACHED = OFFSET["reached"]
_O_WON = OFFSET["won_a_trick"]
_O_RUN = OFFSET["in_run"]
_O_LEADER = OFFSET["leader"]
_O_TO_ACT = OFFSET["to_act"]
_O_TRICK_INDEX = OFFSET["trick_index"]
_O_DEALER = OFFSET["dealer"]
_O_DEAL = OFFSET["deal"]
_O_DEALS_LEFT = OFFSET["deals_left"]
_O_POINTS_OWN = OFFSET["points_own"]
_O_POINTS_OPP = OFFSET["points_opp"]


@njit(cache=True)
def _find_illegal(card_state, to_act, over, actions, active):
    """Index of the first live, active game whose action is not in the hand to act, or -1."""
    for i in range(actions.shape[0]):
        if over[i] or not active[i]:
            continue
        a = actions[i]
        if a < 0 or a >= 48 or card_state[i, a] != to_act[i]:
            return i
    return -1


@njit(cache=True)
def _play(card_state, trick_winners, counts, reached, in_run, leader, to_act, n_in_trick,
          trick_index, best, best_seat, tied, dealer, deal_index, num_deals, points, over,
          actions, active, strength, rewards, deal_done, match_done,
          res_winners, res_counts, res_winner, res_mordienne, res_points, res_dealer, res_deal):
    """Play one card in every live game (R9-R12); score finished deals (R13-R16)
    and matches (R2). Marks deal_done / match_done; the caller deals anew."""
    n_games = actions.shape[0]
    for i in range(n_games):
        deal_done[i] = False
        match_done[i] = False
        for s in range(4):
            rewards[i, s] = 0.0
        if over[i] or not active[i]:
            continue
        seat = int(to_act[i])
        card = actions[i]
        card_state[i, card] = 5 + seat
        st = strength[card]
        if n_in_trick[i] == 0 or st > best[i]:
            best[i] = st
            best_seat[i] = seat
            tied[i] = False
        elif st == best[i]:
            tied[i] = True
        n_in_trick[i] += 1
        if n_in_trick[i] < 4:
            to_act[i] = (seat + 1) & 3
            continue
        # The trick is complete (R10, R11).
        t = int(trick_index[i])
        for c in range(48):
            if card_state[i, c] >= 5 and card_state[i, c] < 9:
                card_state[i, c] += 4
        if tied[i]:
            trick_winners[i, t] = 4
            for s in range(4):
                in_run[i, s] = False
        else:
            w = int(best_seat[i])
            trick_winners[i, t] = w
            live = counts[i, w] == 0 or in_run[i, w]
            for s in range(4):
                in_run[i, s] = False
            in_run[i, w] = live
            counts[i, w] += 1
            reached[i, w] = t
            leader[i] = w
        to_act[i] = leader[i]
        n_in_trick[i] = 0
        trick_index[i] = t + 1
        if t + 1 < 9:
            continue
        # The deal is over: R13 most tricks, R14 first to reach, R15, R16.
        winner = -1
        for s in range(4):
            if counts[i, s] == 0:
                continue
            if winner < 0 or counts[i, s] > counts[i, winner] or (
                    counts[i, s] == counts[i, winner] and reached[i, s] < reached[i, winner]):
                winner = s
        mordienne = winner >= 0 and in_run[i, winner] and counts[i, winner] >= 2
        pts = 0 if winner < 0 else (2 if mordienne else 1)
        res_points[i, 0] = 0
        res_points[i, 1] = 0
        if winner >= 0:
            res_points[i, winner & 1] = pts
            points[i, winner & 1] += pts
            for s in range(4):
                rewards[i, s] = pts if (s & 1) == (winner & 1) else -pts
        for k in range(9):
            res_winners[i, k] = trick_winners[i, k]
        for s in range(4):
            res_counts[i, s] = counts[i, s]
        res_winner[i] = winner
        res_mordienne[i] = mordienne
        res_dealer[i] = dealer[i]
        res_deal[i] = deal_index[i]
        deal_done[i] = True
        deal_index[i] += 1
        if deal_index[i] >= num_deals:
            match_done[i] = True
            over[i] = True


@njit(cache=True)
def _start_deals(games, hands, card_state, trick_winners, counts, reached, in_run, leader,
                 to_act, n_in_trick, trick_index, dealer, first_dealer, deal_index):
    """Deal ``hands[k]`` (4 x 9 card ids) to game ``games[k]`` for its deal
    ``deal_index`` (dealer rotating from the first dealer, R6)."""
    for k in range(games.shape[0]):
        i = games[k]
        for c in range(48):
            card_state[i, c] = 4
        for s in range(4):
            for j in range(9):
                card_state[i, hands[k, s, j]] = s
            counts[i, s] = 0
            reached[i, s] = -1
            in_run[i, s] = False
        for t in range(9):
            trick_winners[i, t] = -1
        d = (int(first_dealer[i]) + int(deal_index[i])) & 3
        dealer[i] = d
        leader[i] = (d + 1) & 3
        to_act[i] = (d + 1) & 3
        n_in_trick[i] = 0
        trick_index[i] = 0


@njit(cache=True)
def _hands_from_decks(decks, dealers, order):
    """R5: deal shuffled decks clockwise from each dealer's left in packets of three."""
    n = decks.shape[0]
    hands = np.empty((n, 4, 9), np.int8)
    for k in range(n):
        filled = np.zeros(4, np.int64)
        for j in range(36):
            s = order[dealers[k], j]
            hands[k, s, filled[s]] = decks[k, j]
            filled[s] += 1
    return hands


@njit(cache=True)
def _observe(card_state, trick_winners, counts, reached, in_run, leader, to_act, n_in_trick,
             trick_index, dealer, deal_index, num_deals, points, over, obs, mask):
    """Write the observation (OBS_VERSION layout) and mask of the seat to act."""
    for i in range(obs.shape[0]):
        o = int(to_act[i])
        row = obs[i]
        row[:] = 0
        for c in range(48):
            code = int(card_state[i, c])
            if code == o:
                row[_O_HAND + c] = 1
            elif code >= 9:
                row[_O_PLAYED + ((code - 9 - o) & 3) * 48 + c] = 1
            elif code >= 5:
                row[_O_TRICK + ((code - 5 - o) & 3) * 48 + c] = 1
        for t in range(9):
            w = int(trick_winners[i, t])
            if w < 0:
                break
            row[_O_WINNERS + t * 5 + (4 if w == 4 else (w - o) & 3)] = 1
        for s in range(4):
            r = (s - o) & 3
            n = int(counts[i, s])
            for k in range(n):
                row[_O_COUNTS + r * 9 + k] = 1
            if n > 0:
                row[_O_REACHED + r * 9 + int(reached[i, s])] = 1
                row[_O_WON + r] = 1
            if in_run[i, s]:
                row[_O_RUN + r] = 1
        row[_O_DEALER + ((int(dealer[i]) - o) & 3)] = 1
        ti = int(trick_index[i])
        if ti < 9:
            row[_O_LEADER + ((int(leader[i]) - o) & 3)] = 1
            row[_O_TO_ACT] = 1
            row[_O_TRICK_INDEX + ti] = 1
        if not over[i]:
            k = int(deal_index[i])
            row[_O_DEAL + min(k, MAX_DEALS - 1)] = 1
            row[_O_DEALS_LEFT + min(num_deals - k, MAX_DEALS) - 1] = 1
        own = min(int(points[i, o & 1]), MAX_POINTS)
        opp = min(int(points[i, 1 - (o & 1)]), MAX_POINTS)
        for k in range(own):
            row[_O_POINTS_OWN + k] = 1
        for k in range(opp):
            row[_O_POINTS_OPP + k] = 1
        live = not over[i]
        for c in range(48):
            mask[i, c] = row[_O_HAND + c] if live else 0


class VectorGame:
    """N Aluette matches stepped together; see the module docstring."""

    def __init__(self, num_games: int, num_deals: int = 5, seed: int | None = None,
                 auto_reset: bool = True):
        if not isinstance(num_games, (int, np.integer)) or not 1 <= num_games <= 1_000_000:
            raise ValueError(f"num_games must be an int from 1 to 1,000,000, got {num_games!r}")
        if not isinstance(num_deals, (int, np.integer)) or not 1 <= num_deals <= MAX_DEALS:
            raise ValueError(f"num_deals must be an int from 1 to {MAX_DEALS}, got {num_deals!r}")
        n = self.num_games = int(num_games)
        self.num_deals = int(num_deals)
        self.auto_reset = auto_reset
        self.rng = np.random.default_rng(seed)
        i8 = np.int8
        self.card_state = np.full((n, NUM_CARDS), UNUSED, i8)
        self.trick_winners = np.full((n, NUM_TRICKS), -1, i8)
        self.counts = np.zeros((n, NUM_SEATS), i8)
        self.reached = np.full((n, NUM_SEATS), -1, i8)
        self.in_run = np.zeros((n, NUM_SEATS), np.bool_)
        self.leader = np.zeros(n, i8)
        self.to_act = np.zeros(n, i8)
        self.n_in_trick = np.zeros(n, i8)
        self.trick_index = np.zeros(n, i8)
        self.best = np.zeros(n, i8)
        self.best_seat = np.zeros(n, i8)
        self.tied = np.zeros(n, np.bool_)
        self.dealer = np.zeros(n, i8)
        self.first_dealer = np.zeros(n, i8)
        self.deal_index = np.zeros(n, i8)
        self.points = np.zeros((n, 2), np.int16)
        self.over = np.zeros(n, np.bool_)
        self.obs = np.zeros((n, OBS_SIZE), i8)
        self.mask = np.zeros((n, NUM_CARDS), i8)
        self.rewards = np.zeros((n, NUM_SEATS), np.float32)
        self.deal_done = np.zeros(n, np.bool_)
        self.match_done = np.zeros(n, np.bool_)
        # Results of each game's latest finished deal / match.
        self.res_winners = np.full((n, NUM_TRICKS), -1, i8)
        self.res_counts = np.zeros((n, NUM_SEATS), i8)
        self.res_winner = np.full(n, -1, i8)
        self.res_mordienne = np.zeros(n, np.bool_)
        self.res_points = np.zeros((n, 2), i8)
        self.res_dealer = np.zeros(n, i8)
        self.res_deal = np.zeros(n, i8)
        self.final_points = np.zeros((n, 2), np.int16)
        self._fixed_deals: np.ndarray | None = None  # [N, D, 4, 9] for the first match
        self._fixed_dealer: np.ndarray | None = None
        self._in_fixed_match = np.zeros(n, np.bool_)
        self._all = np.arange(n)
        self._everyone = np.ones(n, np.bool_)

    # -- reset ------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new match in every game. ``options`` as the AEC env's, per game:
        ``first_dealer`` (a seat / ``"player_k"``, or one per game) and ``deals``
        (array-like [N, D, 4, 9] or [D, 4, 9] for all games) fixing the hands of the
        first D deals of this match."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        options = dict(options or {})
        unknown = set(options) - {"first_dealer", "deals"}
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; "
                             f"allowed: 'first_dealer', 'deals'")
        n = self.num_games
        self._fixed_dealer = None
        if options.get("first_dealer") is not None:
            fd = options["first_dealer"]
            if isinstance(fd, (str, int, np.integer)):
                fd = [fd] * n
            if len(fd) != n:
                raise ValueError(f"first_dealer needs one seat per game ({n}), got {len(fd)}")
            self._fixed_dealer = np.array([seat_of(x) for x in fd], np.int8)
        self._fixed_deals = None
        if options.get("deals") is not None:
            self._fixed_deals = self._check_deals(options["deals"])
        self._new_matches(self._all, first=True)
        self._observe()

    def _check_deals(self, deals: Any) -> np.ndarray:
        arr = np.asarray(deals)
        if arr.ndim == 3:
            arr = np.broadcast_to(arr, (self.num_games,) + arr.shape)
        if arr.ndim != 4 or arr.shape[0] != self.num_games or arr.shape[2:] != (4, HAND_SIZE) \
                or not 1 <= arr.shape[1] <= self.num_deals:
            raise ValueError(f"deals must have shape [num_games={self.num_games}, D, 4, 9] or "
                             f"[D, 4, 9] with 1 <= D <= {self.num_deals}, got {arr.shape}")
        if not np.issubdtype(arr.dtype, np.integer) or arr.min() < 0 or arr.max() >= NUM_CARDS:
            raise ValueError("deals must hold card ids 0-47")
        flat = np.sort(arr.reshape(arr.shape[0], arr.shape[1], 36), axis=2)
        dup = (flat[:, :, 1:] == flat[:, :, :-1]).any(axis=2)
        if dup.any():
            g, d = np.argwhere(dup)[0]
            check_hands(arr[g, d].tolist())  # raises with the card named
        return np.ascontiguousarray(arr, dtype=np.int8)

    def _new_matches(self, games: np.ndarray, first: bool = False) -> None:
        if len(games) == 0:
            return
        if first and self._fixed_dealer is not None:
            self.first_dealer[games] = self._fixed_dealer[games]
        else:
            self.first_dealer[games] = self.rng.integers(0, NUM_SEATS, len(games))
        self.points[games] = 0
        self.deal_index[games] = 0
        self.over[games] = False
        # Fixed deals belong to the match started by reset(); auto-reset matches
        # are dealt at random.
        self._in_fixed_match[games] = first and self._fixed_deals is not None
        self._deal(games)

    def _deal(self, games: np.ndarray) -> None:
        deal_idx = self.deal_index[games]
        hands = np.empty((len(games), NUM_SEATS, HAND_SIZE), np.int8)
        use_fixed = np.zeros(len(games), np.bool_)
        if self._fixed_deals is not None:
            use_fixed = self._in_fixed_match[games] & (deal_idx < self._fixed_deals.shape[1])
            if use_fixed.any():
                hands[use_fixed] = self._fixed_deals[games[use_fixed], deal_idx[use_fixed]]
        rand = ~use_fixed
        if rand.any():
            k = int(rand.sum())
            decks = self.rng.random((k, NUM_CARDS)).argsort(axis=1).astype(np.int8)
            dealers = ((self.first_dealer[games[rand]] + deal_idx[rand]) & 3).astype(np.int64)
            hands[rand] = _hands_from_decks(decks, dealers, _DEAL_ORDER)
        _start_deals(games.astype(np.int64), hands, self.card_state, self.trick_winners,
                     self.counts, self.reached, self.in_run, self.leader, self.to_act,
                     self.n_in_trick, self.trick_index, self.dealer, self.first_dealer,
                     self.deal_index)

    # -- step -------------------------------------------------------------------

    def step(self, actions: Any, active: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play ``actions[i]`` (a card id) for the seat to act in each game
        (only where ``active[i]``, if given: the other games wait).
        Returns (rewards [N, 4], deal_done [N], match_done [N]); these arrays are
        reused by the next step. ValueError if any card is not in that hand."""
        if active is None:
            active = self._everyone
        elif active.shape != (self.num_games,) or active.dtype != np.bool_:
            raise ValueError(f"active must be a bool array of shape ({self.num_games},)")
        actions = np.asarray(actions)
        if actions.shape != (self.num_games,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_games} integer card ids, "
                             f"got shape {actions.shape} dtype {actions.dtype}")
        actions = actions.astype(np.int64, copy=False)
        bad = _find_illegal(self.card_state, self.to_act, self.over, actions, active)
        if bad >= 0:
            self._raise_illegal(bad, int(actions[bad]))
        _play(self.card_state, self.trick_winners, self.counts, self.reached, self.in_run,
              self.leader, self.to_act, self.n_in_trick, self.trick_index, self.best,
              self.best_seat, self.tied, self.dealer, self.deal_index, self.num_deals,
              self.points, self.over, actions, active, _STRENGTH, self.rewards, self.deal_done,
              self.match_done, self.res_winners, self.res_counts, self.res_winner,
              self.res_mordienne, self.res_points, self.res_dealer, self.res_deal)
        if self.deal_done.any():
            done = np.flatnonzero(self.deal_done)
            ended = self.match_done[done]
            if ended.any():
                self.final_points[done[ended]] = self.points[done[ended]]
            nxt = done[~ended]
            self._deal(nxt)
            if self.auto_reset and ended.any():
                self._new_matches(done[ended])
        self._observe()
        return self.rewards, self.deal_done, self.match_done

    def _raise_illegal(self, game: int, card: int) -> None:
        seat = int(self.to_act[game])
        legal = np.flatnonzero(self.card_state[game] == seat).tolist()
        what = describe(card) if 0 <= card < NUM_CARDS else str(card)
        raise ValueError(f"game {game}: card {what} is not in player_{seat}'s hand; "
                         f"legal: {legal}")

    def _observe(self) -> None:
        _observe(self.card_state, self.trick_winners, self.counts, self.reached, self.in_run,
                 self.leader, self.to_act, self.n_in_trick, self.trick_index, self.dealer,
                 self.deal_index, self.num_deals, self.points, self.over, self.obs, self.mask)

    # -- results ------------------------------------------------------------------

    def deal_result(self, i: int) -> dict[str, Any]:
        """The AEC env's ``infos[a]["deal_result"]`` for game i's latest finished deal."""
        return {
            "deal": int(self.res_deal[i]),
            "dealer": AGENTS[int(self.res_dealer[i])],
            "trick_winners": [None if w == 4 else AGENTS[int(w)] for w in self.res_winners[i]],
            "trick_counts": {AGENTS[s]: int(self.res_counts[i, s]) for s in range(NUM_SEATS)},
            "winner": None if self.res_winner[i] < 0 else AGENTS[int(self.res_winner[i])],
            "mordienne": bool(self.res_mordienne[i]),
            "points": {"team_0": int(self.res_points[i, 0]), "team_1": int(self.res_points[i, 1])},
        }

    def match_result(self, i: int) -> dict[str, Any]:
        """The AEC env's ``infos[a]["match_result"]`` for game i's latest finished match."""
        p0, p1 = int(self.final_points[i, 0]), int(self.final_points[i, 1])
        return {"points": {"team_0": p0, "team_1": p1},
                "winner": None if p0 == p1 else TEAMS[0 if p0 > p1 else 1]}

    def bytes_per_game(self) -> float:
        """Memory of all per-game arrays (state, observation, results) per game."""
        total = sum(v.nbytes for v in vars(self).values()
                    if isinstance(v, np.ndarray) and v.shape[:1] == (self.num_games,))
        return total / self.num_games
