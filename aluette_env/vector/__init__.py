"""Batched Aluette: N independent matches stepped at once, for self-play.

Each game is a match of ``num_deals`` deals (R2, R5-R16), with exactly the
rules of :mod:`aluette_env.game.rules` and the observation encoding of
:mod:`aluette_env.observation` (same ``OBS_LAYOUT``, bit for bit). The state
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
With ``sparse=True`` the engine also lists, for every game, the entries of
``obs`` set to 1 (``obs_indices``, int16 [N, MAX_ACTIVE], padded with
``ACTIVE_PAD``) and the privileged part of the seat to act's position, the
other three hands and the unused cards (``hidden_indices``, [N, MAX_HIDDEN],
padded with ``HIDDEN_PAD``; :mod:`aluette_env.observation`): what a learner
with a sparse first layer and a critic that sees every hand reads. ``obs``
stays the public observation.
``deal_result(i)`` / ``match_result(i)`` give the AEC env's info dicts for a
game whose ``deal_done`` / ``match_done`` flag is set. With ``auto_reset``
(default) a finished match restarts at once, so every game always has a
decision to make; the results of the finished match stay readable until that
game's next deal ends.

Every game plays one variant (``variant``, an
:class:`aluette_env.game.Variant`; by default the newest default game, the
AEC env's ``aluette_v1``, bit for bit). With the signs variant
(``variant=ALUETTE_SIGNS_V0``; ``signs=True, catch=...``, deprecated, builds it;
docs/RULES.md S1-S5, the AEC env's ``aluette_signs_v0``, bit for bit) each
turn is a sign action (48-57) and then a card, ``obs`` is observation layout 3 ([N,
SIGNS_OBS_SIZE]) and ``mask`` [N, 58]; each deal's catches (S4) are the
variant's draws from ``rng`` or fixed by ``reset(options={"catches": ...})``.

The state of all games is one record array of the named structure
:data:`~.kernels.GAME_STATE` (``game.state``; ``game.state.counts`` is [N, 4]),
stepped by the numba kernels of :mod:`.kernels`, which apply the game core's
own rule functions, compiled (pinned to the core by ``tests/test_vector.py``
too).

May import: numpy, :mod:`aluette_env._jit`, :mod:`aluette_env.game`,
:mod:`aluette_env.observation`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..game import (
    HAND_SIZE,
    NOBODY,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_SEATS,
    NUM_TRICKS,
    SIGN_BASE,
    DealRecord,
    DealScore,
    Variant,
    check_hands,
    deal_result,
    dealer_of,
    describe,
    match_result,
    seat_of,
    team_points,
    variant_of,
)
from ..game.state import SIGN_PHASE
from ..observation import (
    ACTIVE_PAD, HIDDEN_PAD, MAX_ACTIVE, MAX_DEALS, MAX_HIDDEN, OBS_SIZE, SIGNS_OBS_SIZE, observer,
)
from . import kernels
from .kernels import DEAL_ORDER, DEAL_RESULT, GAME_STATE, HAVE_NUMBA, STRENGTH_ARRAY


def _is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _check_seed(seed: Any) -> int | None:
    if seed is not None and (not _is_int(seed) or seed < 0):
        raise ValueError(f"seed must be None or an integer >= 0, got {seed!r}")
    return seed


__all__ = ["DEAL_RESULT", "GAME_STATE", "HAVE_NUMBA", "NOBODY", "VectorGame", "kernel_widths"]


def kernel_widths(variant: Variant) -> tuple[int, int]:
    """The widths of the observation and the mask that the engine's kernels write
    for ``variant``; ValueError for a variant the engine does not play (an
    observation of another width would be written past its buffer's end, so it
    is refused here, whatever made the variant)."""
    variant = variant_of(variant)
    view = observer(variant)
    if view.size < OBS_SIZE:
        raise ValueError(f"{variant.env_id}: the engine writes observations of layout 2 "
                         f"or more (its players read an older layout's prefix), not "
                         f"layout {variant.obs_layout}")
    widths = (SIGNS_OBS_SIZE, NUM_ACTIONS) if variant.signs else (OBS_SIZE, NUM_CARDS)
    if (view.size, variant.num_actions) != widths:
        raise ValueError(f"{variant.env_id}: the engine writes observations of {widths[0]} "
                         f"entries and masks of {widths[1]} with signs={variant.signs}, not "
                         f"{view.size} and {variant.num_actions} "
                         f"(obs_layout {variant.obs_layout})")
    return widths


class VectorGame:
    """N Aluette matches stepped together; see the module docstring."""

    def __init__(self, num_games: int, num_deals: int | None = None, seed: int | None = None,
                 auto_reset: bool = True, sparse: bool = False, signs: bool | None = None,
                 catch: float | None = None, *, variant: Variant | None = None):
        """``variant``: the game every match plays (``signs`` and ``catch``: the
        older keywords for the signs variant, deprecated); ``num_deals`` a
        match's deals, by default the variant's."""
        variant = variant_of(variant, signs, catch)
        if num_deals is None:
            num_deals = variant.num_deals
        if not _is_int(num_games) or not 1 <= num_games <= 1_000_000:
            raise ValueError(f"num_games must be an int from 1 to 1,000,000, got {num_games!r}")
        if not _is_int(num_deals) or not 1 <= num_deals <= MAX_DEALS:
            raise ValueError(f"num_deals must be an int from 1 to {MAX_DEALS}, got {num_deals!r}")
        if not isinstance(auto_reset, (bool, np.bool_)):
            raise TypeError(f"auto_reset must be True or False, got {auto_reset!r}")
        if not isinstance(sparse, (bool, np.bool_)):
            raise TypeError(f"sparse must be True or False, got {sparse!r}")
        self._widths = kernel_widths(variant)
        if variant.signs and sparse:
            raise ValueError(f"sparse index lists are written for the default game only, not "
                             f"for {variant.env_id} (a game with signs)")
        self.variant = variant
        self.signs, self.catch = variant.signs, variant.catch
        n = self.num_games = int(num_games)
        self.num_deals = int(num_deals)
        self.auto_reset = bool(auto_reset)
        self.rng = np.random.default_rng(_check_seed(seed))
        self._started = False
        self.state = kernels.new_state(n, self.num_deals, variant.signs)
        self.results = kernels.new_results(n)
        self._st, self._res = kernels.kernel_view(self.state), kernels.kernel_view(self.results)
        self.rewards = np.zeros((n, NUM_SEATS), np.float32)
        self.deal_done = np.zeros(n, np.bool_)
        self.match_done = np.zeros(n, np.bool_)
        self.obs = np.zeros((n, self._widths[0]), np.int8)  # what the kernels write
        self.mask = np.zeros((n, self._widths[1]), np.int8)
        self.sparse = bool(sparse)
        self.obs_indices = np.full((n, MAX_ACTIVE) if sparse else (n, 0), ACTIVE_PAD, np.int16)
        self.hidden_indices = np.full((n, MAX_HIDDEN) if sparse else (n, 0), HIDDEN_PAD,
                                      np.int16)
        self.final_points = np.zeros((n, 2), np.int16)
        self._fixed_deals: np.ndarray | None = None  # [N, D, 4, 9] for the first match
        self._fixed_dealer: np.ndarray | None = None
        self._fixed_catches: np.ndarray | None = None  # [N, D, 36] caught bits
        self._in_fixed_match = np.zeros(n, np.bool_)
        self._all = np.arange(n)
        self._everyone = np.ones(n, np.bool_)
        self._shapes = self._buffer_shapes()

    # -- reset ------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new match in every game. ``options`` as the AEC env's, per game:
        ``first_dealer`` (a seat / ``"player_k"``, or one per game) and ``deals``
        (array-like [N, D, 4, 9] or [D, 4, 9] for all games) fixing the hands of the
        first D deals of this match."""
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict or None, got {type(options).__name__}")
        options = dict(options or {})
        known = {"first_dealer", "deals", "catches"} if self.signs else {"first_dealer", "deals"}
        unknown = set(options) - known
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(map(str, unknown))}; "
                             f"allowed: {', '.join(repr(k) for k in sorted(known))}")
        n = self.num_games
        fixed_dealer = None
        if options.get("first_dealer") is not None:
            fd = options["first_dealer"]
            if isinstance(fd, (str, int, np.integer)):
                fd = [fd] * n
            if not isinstance(fd, (list, tuple, np.ndarray)) or len(fd) != n:
                raise ValueError(f"first_dealer must be a seat (0-3 or 'player_k') or a list of "
                                 f"one per game ({n}), got {options['first_dealer']!r}")
            try:
                fixed_dealer = np.array([seat_of(x) for x in fd], np.int8)
            except ValueError as err:
                raise ValueError(f"first_dealer: {err}") from None
        fixed_deals = None
        if options.get("deals") is not None:
            fixed_deals = self._check_deals(options["deals"])
        fixed_catches = None
        if options.get("catches") is not None:
            fixed_catches = self._check_catches(options["catches"])
        # Only once every option is known good: a refused reset changes nothing.
        if seed is not None:
            self.rng = np.random.default_rng(_check_seed(seed))
        self._fixed_dealer, self._fixed_deals = fixed_dealer, fixed_deals
        self._fixed_catches = fixed_catches
        self._started = True
        self._check_buffers()
        self._new_matches(self._all, first=True)
        self._observe()

    def _check_deals(self, deals: Any) -> np.ndarray:
        try:
            arr = np.asarray(deals)
        except ValueError:
            raise ValueError("deals must be a rectangular array of card ids, [num_games, D, 4, 9] "
                             "or [D, 4, 9]; got ragged lists") from None
        if arr.ndim == 3:
            arr = np.broadcast_to(arr, (self.num_games,) + arr.shape)
        if arr.ndim != 4 or arr.shape[0] != self.num_games or arr.shape[2:] != (4, HAND_SIZE) \
                or not 1 <= arr.shape[1] <= self.num_deals:
            raise ValueError(f"deals must have shape [num_games={self.num_games}, D, 4, 9] or "
                             f"[D, 4, 9] with 1 <= D <= {self.num_deals}, got {arr.shape}")
        if not np.issubdtype(arr.dtype, np.integer) or arr.min() < 0 or arr.max() >= NUM_CARDS:
            values = (f" with values {arr.min().item()} to {arr.max().item()}"
                      if arr.dtype.kind in "biuf" else "")  # strings, objects: no range
            raise ValueError(f"deals must hold integer card ids 0-47, got dtype "
                             f"{arr.dtype}{values}")
        flat = np.sort(arr.reshape(arr.shape[0], arr.shape[1], NUM_SEATS * HAND_SIZE), axis=2)
        dup = (flat[:, :, 1:] == flat[:, :, :-1]).any(axis=2)
        if dup.any():
            g, d = np.argwhere(dup)[0]
            check_hands(arr[g, d].tolist())  # raises with the card named
        # A copy, never a view of the caller's array: later deals of this match read
        # it, and the caller may reuse its buffer meanwhile.
        return np.array(arr, dtype=np.int8, order="C", copy=True)

    def _check_catches(self, catches: Any) -> np.ndarray:
        """``catches`` ([N, D, 9, 4, 4] or [D, 9, 4, 4] 0/1: trick, signer,
        observer; only the signer's opponents count) as caught bits [N, D, 36]."""
        try:
            arr = np.asarray(catches)
        except ValueError:
            arr = None
        if arr is not None and arr.ndim == 4:
            arr = np.broadcast_to(arr, (self.num_games,) + arr.shape)
        shape = (NUM_TRICKS, NUM_SEATS, NUM_SEATS)
        if arr is None or arr.ndim != 5 or arr.shape[0] != self.num_games \
                or arr.shape[2:] != shape or not 1 <= arr.shape[1] <= self.num_deals \
                or not (np.issubdtype(arr.dtype, np.integer) or arr.dtype == np.bool_) \
                or not np.isin(arr, (0, 1)).all():
            got = getattr(arr, "shape", None)
            raise ValueError(f"catches must be 0/1 of shape [num_games={self.num_games}, D, 9, "
                             f"4, 4] or [D, 9, 4, 4] (trick, signer, observer), 1 <= D <= "
                             f"{self.num_deals}; got "
                             f"{'shape ' + str(got) if got is not None else 'ragged lists'}")
        n, d = arr.shape[:2]
        bits = np.zeros((n, d, NUM_TRICKS, NUM_SEATS), np.uint8)
        for s in range(NUM_SEATS):  # the variant's catchers of each signer, every game at once
            bits[..., s] = self.variant.caught_bits(s, np.moveaxis(arr[..., s, :], -1, 0))
        return bits.reshape(n, d, -1)

    def _new_matches(self, games: np.ndarray, first: bool = False) -> None:
        if len(games) == 0:
            return
        st = self.state
        if first and self._fixed_dealer is not None:
            st.first_dealer[games] = self._fixed_dealer[games]
        else:
            st.first_dealer[games] = self.rng.integers(0, NUM_SEATS, len(games))
        st.points[games] = 0
        st.deal_index[games] = 0
        st.over[games] = False
        # Fixed deals belong to the match started by reset(); auto-reset matches
        # are dealt at random.
        self._in_fixed_match[games] = first and (self._fixed_deals is not None
                                                 or self._fixed_catches is not None)
        self._deal(games)

    def _deal(self, games: np.ndarray) -> None:
        st = self.state
        deal_idx = st.deal_index[games]
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
            dealers = dealer_of(st.first_dealer[games[rand]], deal_idx[rand]).astype(np.int64)
            hands[rand] = kernels.hands_from_decks(decks, dealers, DEAL_ORDER)
        games = games.astype(np.int64)
        # start_deals writes at each card id and game index: both checked first.
        if len(games) and (games.min() < 0 or games.max() >= self.num_games
                           or hands.min() < 0 or hands.max() >= NUM_CARDS):
            raise RuntimeError("a deal of a game or a card outside the engine's arrays")
        kernels.start_deals(self._st, games, hands)
        if self.signs:
            self._deal_catches(games, deal_idx, use_fixed)

    def _deal_catches(self, games: np.ndarray, deal_idx: np.ndarray,
                      use_fixed: np.ndarray) -> None:
        """S4: each new deal's catches, fixed where ``options["catches"]`` names
        the deal (in the match reset() started), else the variant's draws: one
        per catcher of each of the deal's 36 signs, sign after sign."""
        if len(games) == 0:
            return
        variant, k = self.variant, len(games)
        per_sign = len(variant.catchers(0))
        draws = self.rng.random((k, NUM_TRICKS, NUM_SEATS, per_sign))
        caught = np.zeros((k, NUM_TRICKS, NUM_SEATS), np.uint8)
        for s in range(NUM_SEATS):  # every game and trick at once (transpose: np.moveaxis
            # took a third of this at each deal)
            caught[..., s] = variant.caught_from_draws(s, draws[:, :, s].transpose(2, 0, 1))
        caught = caught.reshape(k, NUM_TRICKS * NUM_SEATS)
        fixed = self._fixed_catches
        if fixed is not None:
            mine = self._in_fixed_match[games] & (deal_idx < fixed.shape[1])
            caught[mine] = fixed[games[mine], deal_idx[mine]]
        self.state.caught[games] = caught

    # -- step -------------------------------------------------------------------

    def step(self, actions: Any, active: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play ``actions[i]`` (a card id) for the seat to act in each game
        (only where ``active[i]``, if given: the other games wait).
        Returns (rewards [N, 4], deal_done [N], match_done [N]); these arrays are
        reused by the next step. ValueError if any card is not in that hand."""
        if not self._started:
            raise RuntimeError("VectorGame.step() before reset(): call reset() first")
        if active is None:
            active = self._everyone
        else:
            given = active
            active = np.asarray(active)
            if active.shape != (self.num_games,) or active.dtype != np.bool_:
                raise ValueError(f"active must be {self.num_games} bools (one per game), got "
                                 f"shape {active.shape} dtype {active.dtype}"
                                 + (f" ({given!r})" if active.size <= 8 else ""))
        actions = np.asarray(actions)
        if actions.shape != (self.num_games,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_games} integer card ids, "
                             f"got shape {actions.shape} dtype {actions.dtype}")
        given, actions = actions, actions.astype(np.int64, copy=False)
        self._check_buffers()
        st, res = self._st, self._res
        bad = kernels.find_illegal(st, actions, active)
        if bad >= 0:  # the card as given (a uint64 past 2**63 wraps in the int64 copy)
            self._raise_illegal(bad, int(given[bad]))
        kernels.play(st, actions, active, STRENGTH_ARRAY, res, self.rewards, self.deal_done,
                     self.match_done)
        if self.deal_done.any():
            done = np.flatnonzero(self.deal_done)
            ended = self.match_done[done]
            if ended.any():
                self.final_points[done[ended]] = self.state.points[done[ended]]
            nxt = done[~ended]
            self._deal(nxt)
            if self.auto_reset and ended.any():
                self._new_matches(done[ended])
        self._observe()
        return self.rewards, self.deal_done, self.match_done

    def _raise_illegal(self, game: int, card: int) -> None:
        seat = int(self.state.to_act[game])
        if self.signs and self.state.phase[game] == SIGN_PHASE:
            raise ValueError(f"game {game}: player_{seat} makes a sign first: an action "
                             f"{SIGN_BASE} (no sign) to {NUM_ACTIONS - 1}, got {card}")
        legal = np.flatnonzero(self.state.card_state[game] == seat).tolist()
        what = describe(card) if 0 <= card < NUM_CARDS else str(card)
        raise ValueError(f"game {game}: card {what} is not in player_{seat}'s hand; "
                         f"legal: {legal}")

    def _buffer_shapes(self) -> tuple:
        return (self.obs.shape, self.mask.shape, self._st.shape, self._res.shape,
                self.rewards.shape, self.deal_done.shape, self.match_done.shape,
                self.obs_indices.shape, self.hidden_indices.shape, self._st.dtype.itemsize,
                self._res.dtype.itemsize, self.obs.dtype.itemsize, self.mask.dtype.itemsize,
                self.rewards.dtype.itemsize, self.obs_indices.dtype.itemsize,
                self.hidden_indices.dtype.itemsize)

    def _check_buffers(self) -> None:
        """The arrays the kernels write, checked before they run (one tuple
        compare, a microsecond): one replaced or reshaped by a caller is an error
        here, never a write past its end. Their shapes were made from the variant
        (:func:`kernel_widths`) in ``__init__``."""
        try:
            same = self._buffer_shapes() == self._shapes
        except AttributeError:  # not an array any more
            same = False
        if not same:
            raise RuntimeError(f"the engine's arrays were replaced or reshaped; they must "
                               f"stay as made: obs {self._shapes[0]}, mask {self._shapes[1]}, "
                               f"rewards {self._shapes[4]}")

    def _observe(self) -> None:
        if self.signs:
            kernels.observe_signs(self._st, self.obs, self.mask)
        elif self.sparse:
            kernels.observe_sparse(self._st, self.obs, self.mask, self.obs_indices,
                                   self.hidden_indices)
        else:
            kernels.observe(self._st, self.obs, self.mask)

    @property
    def to_act(self) -> np.ndarray:
        """[N] seat whose decision ``obs`` / ``mask`` describe, per game."""
        return self.state.to_act

    # -- results ------------------------------------------------------------------

    def _game(self, i: object) -> int:
        """``i`` as a game index, 0 to num_games - 1 (no negative indexing from the end)."""
        if not _is_int(i) or not 0 <= i < self.num_games:
            raise ValueError(f"game index must be an int from 0 to {self.num_games - 1}, "
                             f"got {i!r}")
        return int(i)

    def deal_record(self, i: int) -> DealRecord:
        """Game i's latest finished deal as the game core's record."""
        i = self._game(i)
        res = self.results
        score = DealScore(int(res.winner[i]), int(res.score[i]), bool(res.mordienne[i]))
        return DealRecord(int(res.deal[i]), int(res.dealer[i]), [int(w) for w in res.winners[i]],
                          [int(c) for c in res.counts[i]], score,
                          team_points(score.winner, score.points))

    def deal_result(self, i: int) -> dict[str, Any]:
        """The AEC env's ``infos[a]["deal_result"]`` for game i's latest finished deal."""
        return deal_result(self.deal_record(i))

    def match_result(self, i: int) -> dict[str, Any]:
        """The AEC env's ``infos[a]["match_result"]`` for game i's latest finished match."""
        return match_result(self.final_points[self._game(i)])

    def bytes_per_game(self) -> float:
        """Memory of all per-game arrays (state, observation, results) per game."""
        arrays = [self.state, self.results, self.rewards, self.deal_done, self.match_done,
                  self.obs, self.mask, self.final_points, self.obs_indices,
                  self.hidden_indices]
        total = sum(v.nbytes for v in arrays)
        return total / self.num_games
