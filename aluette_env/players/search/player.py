"""The ``expert`` player (:class:`ExpertPlayer`) and its ``pimc`` preset: a
decision read from the observation (:mod:`.worlds`), its worlds drawn and
weighed (:mod:`.belief`), each searched play valued in each world
(:mod:`.rollouts`) and the move chosen (:mod:`.choice`).

At a table with signs (S1-S5) it makes the truthful convention's signs (as
``heuristic``) and reads every sign it sees as truthful: a named card its
partner signed, or an opponent it caught signing, and not played since, is in
that seat's hand in every world it searches (:meth:`~.worlds.View.constrain`).
Its rollouts and its guiding policy play the default game."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ...game import ALUETTE_SIGNS_V0, NUM_CARDS, NUM_SIGNS, SIGN_BASE, SIGN_OF_CARD, tricks_left
from ...observation import OBS_SIZE, SHAPES, SIGNS_OBS_LAYOUT, SLICES, layout_of
from ...vector.kernels import kernel_view, new_results, new_state
from .. import BatchPlayer, PlayerSpecError, check_batch, load_player
from ..heuristic import signs_seen, truthful_sign
from ..solver import Solver
from .belief import Belief, Rows, draw_worlds
from .choice import CardValues, choose, classes, paired_gain, searched_plays
from .rollouts import heuristic_rollouts, policy_rollouts, solve_worlds
from .places import sampler_net, sized
from .value import depth_rollouts, shipped_or_path
from .versions import LATEST, OPTIONS, PIMC_OPTIONS, VERSIONS, check, with_defaults
from .worlds import (
    I_PLAYS, I_T, I_UNSEEN, STRENGTH_ARRAY, View, decision_rng, fill_worlds, match_context,
)

#: Worlds per batch when ``max_seconds`` limits a move: the granularity of the time check.
#: Without a limit a decision's worlds are one batch (the rollout policy's forward
#: pass costs about half as much per row in batches of hundreds as in batches of 16).
WORLD_CHUNK = 8


class ExpertPlayer(BatchPlayer):
    """Policy-guided PIMC with policy rollouts and exact endgames (the package's
    docstring). Options as keywords (:data:`OPTIONS`; an unset one, or None,
    stands at its default, ``worlds``, ``policy`` and ``infer`` at the version's
    own)."""

    OPTIONS = OPTIONS

    def __init__(self, **options: Any):
        version = options.get("version")
        version = LATEST if version is None else version
        # An unset worlds, policy or infer is the version's own (a bad version is
        # named by its check).
        own = VERSIONS[version if isinstance(version, int) and version in VERSIONS else LATEST]
        policy = options.get("policy")
        if version != LATEST and policy not in (None, own.policy):
            raise ValueError(f"version={version} is the expert guided by "
                             f"{own.policy}: set version or policy, not both "
                             f"(got policy={policy!r})")
        defaults = {"worlds": own.worlds, "infer": own.infer, "policy": own.policy,
                    "depth": own.depth, "value": own.value}
        values = with_defaults(OPTIONS, options, "ExpertPlayer", defaults)
        seed = values.pop("seed")
        check(OPTIONS, values)
        if values["policy"] == "none" and values["rollout"] == "ai":
            raise ValueError("policy=none plays its rollouts by the heuristic: set "
                             "rollout=heuristic (rollout=ai needs a policy)")
        if values["depth"] and (values["policy"] == "none" or values["rollout"] != "ai"):
            raise ValueError("depth > 0 stops the guiding policy's rollouts: it needs a "
                             "policy and rollout=ai")
        self.worlds, self.solve_tricks = int(values["worlds"]), int(values["solve_tricks"])
        self.solve_worlds = int(values["solve_worlds"])
        self.rollout = values["rollout"]
        self.min_prob, self.confidence = float(values["min_prob"]), float(values["confidence"])
        self.belief, self.draws = float(values["belief"]), int(values["draws"])
        self.infer, self.infer_rows = values["infer"], int(values["infer_rows"])
        self.min_ess = float(values["min_ess"])
        #: The last decision that weighed its worlds by the deal: the effective sample
        #: size of its drawn worlds' weights ((sum w)^2 / sum w^2) and the power its
        #: likelihoods were tempered by (1: none).
        self.last_ess, self.last_temper = 0.0, 1.0
        self.max_seconds = float(values["max_seconds"])
        self.signs = bool(values["signs"])
        self.seed = 0 if seed is None else int(seed)
        # The name is the spec: the options that differ from their defaults.
        changed = [f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                   for k, v in values.items() if v != defaults.get(k, OPTIONS[k].default)]
        self.name = "expert" + (":" + ",".join(changed) if changed else "")
        self._policy = None if values["policy"] == "none" else guiding_policy(values["policy"])
        self.depth = int(values["depth"])
        self._value = shipped_or_path(values["value"]) if self.depth else None
        self._sampler = sampler_net(values["sampler"])
        self._solver = Solver()
        most = max(self.worlds, self.solve_worlds)
        self._chunk = min(WORLD_CHUNK, most) if self.max_seconds else most
        chunk = self._chunk * 19
        self._st, self._res = kernel_view(new_state(chunk)), kernel_view(new_results(chunk))
        self._obs = np.zeros((chunk, OBS_SIZE), np.int8)
        self._mask = np.zeros((chunk, 48), np.int8)
        self._view = View()
        self._rows = Rows()  # the belief's policy evaluations, grown on demand
        self._class_prob = np.zeros(19)
        self._card_class = np.zeros(48, np.int64)
        self._holders: np.ndarray | None = None  # this decision's cards placed by signs
        self._seen = np.zeros((4, NUM_SIGNS + 1), np.bool_)

    #: It takes the signs variant's arrays itself (see :func:`~aluette_env.players.for_signs`).
    plays_signs = True

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs, masks = check_batch(observations, masks, variant=ALUETTE_SIGNS_V0)
        if len(obs) == 0:
            return np.zeros(0, np.int64)
        if layout_of(obs) == SIGNS_OBS_LAYOUT:
            return self._act_with_signs(obs, masks)
        probs = self._probabilities(obs, masks)
        return np.array([self._decide(o, m, p) for o, m, p in zip(obs, masks, probs)], np.int64)

    def _act_with_signs(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The signs variant's rows: a sign (the truthful convention, or silence),
        or a card searched in worlds that put the signed cards where the signs say."""
        out = np.full(len(obs), SIGN_BASE, np.int64)
        cards = np.flatnonzero(masks[:, :NUM_CARDS].any(axis=1))
        for i in np.flatnonzero(~masks[:, :NUM_CARDS].any(axis=1)):
            if self.signs:
                signs_seen(obs[i], self._seen)
                out[i] = truthful_sign(obs[i], STRENGTH_ARRAY, _SIGN_OF_CARD, self._seen)
        if not len(cards):
            return out
        plain, plain_masks = obs[cards, :OBS_SIZE], masks[cards, :NUM_CARDS]
        probs = self._probabilities(plain, plain_masks)
        for i, row, mask, p in zip(cards, plain, plain_masks, probs):
            self._holders = self._signed_holders(obs[i])
            try:
                out[i] = self._decide(row, mask, p)
            finally:
                self._holders = None
        return out

    def _signed_holders(self, row: np.ndarray) -> np.ndarray:
        """[48] by card: the relative seat (1-3) that a sign it saw puts the card
        with (a named card signed and not seen played or in its hand), 0 none."""
        signs_seen(row, self._seen)
        holders = np.zeros(48, np.int64)
        # Cards this seat has seen: its hand and every card played this deal.
        seen = (row[SLICES["hand"]] != 0) | \
            row[SLICES["history"]].reshape(SHAPES["history"]).any(axis=0)
        for card in range(NUM_CARDS):
            k = _SIGN_OF_CARD[card]
            if not 0 < k < NUM_SIGNS or seen[card]:  # an Ace sign names no one card
                continue
            for r in (2, 1, 3):  # the partner's word first
                if self._seen[r, k]:
                    holders[card] = r
                    break
        return holders

    def card_values(self, observation: np.ndarray, action_mask: np.ndarray) -> CardValues:
        """The search's estimate for every legal card of this decision (every play
        is searched, whatever ``min_prob``), computed from this seat's observation
        only, exactly as a move."""
        obs, masks = check_batch(np.asarray(observation)[None, :],
                                 np.asarray(action_mask)[None, :])
        row, mask = obs[0], masks[0]
        probs = self._probabilities(obs, masks)[0]
        legal = np.flatnonzero(mask)
        found = self._search(row, mask, probs, min_prob=0.0)
        if found is None:  # one play: every legal card is worth the same
            best = self._decide(row, mask, probs)
            zeros = np.zeros(len(legal))
            return CardValues(legal, zeros, zeros, best, 0)
        values, weights, home, candidates, favourite = found
        w = weights / weights.sum()
        mean = w @ values
        best = self._choose(values, weights, home, candidates, favourite)
        # The expert's card as the reference of the paired standard errors.
        _, se = paired_gain(values, w, int(self._card_class[best]))
        cls = self._card_class[legal]
        return CardValues(legal, mean[cls].astype(np.float64), se[cls].astype(np.float64),
                          best, len(values))

    def sample_worlds(self, observation: np.ndarray,
                      action_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The worlds this decision's search would weigh (``worlds`` of them, as a
        move draws them), from this seat's observation only: ``holders[w, c]`` is
        the relative seat (1-3) holding card ``c`` in world ``w``, 4 for a card
        left out of the deal, -1 for a card this seat has seen (in its hand or
        played); and each world's weight. For analysis of the belief
        (``benchmarks/belief.py``)."""
        obs, masks = check_batch(np.asarray(observation)[None, :],
                                 np.asarray(action_mask)[None, :])
        row = obs[0]
        self._view.read(row, masks[0])
        keys, weights = self._worlds(decision_rng(self.seed, row), self.worlds,
                                     self._view.info, match_context(row), row)
        return self._view.holders(keys), weights

    def _probabilities(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self._policy is not None:
            return self._policy.probabilities(obs, masks)
        # No policy: the weakest legal card is the default play (plain PIMC keeps it
        # unless another play has a better mean).
        weakest = np.where(masks > 0, STRENGTH_ARRAY[None, :] * 64 + np.arange(48)[None, :],
                           1 << 20)
        probs = np.zeros(masks.shape)
        probs[np.arange(len(masks)), weakest.argmin(1)] = 1.0
        return probs

    def _decide(self, row: np.ndarray, mask: np.ndarray, probs: np.ndarray) -> int:
        found = self._search(row, mask, probs, self.min_prob if self._policy else 0.0)
        if found is None:
            return int(np.argmax(probs))
        return self._choose(*found)

    def _choose(self, values: np.ndarray, weights: np.ndarray, home: int,
                candidates: np.ndarray, favourite: int) -> int:
        return choose(values, weights, home, candidates, favourite, self.confidence)

    def _search(self, row: np.ndarray, mask: np.ndarray, probs: np.ndarray, min_prob: float):
        """The searched plays' values in each world, or None when only one play is
        worth searching: (values [worlds, plays], world weights, the policy's play
        among them, the plays' cards, the policy's card)."""
        view = self._view
        view.read(row, mask, self._holders)
        info, plays = view.info, view.plays
        favourite = int(np.argmax(probs))
        n_plays = int(info[I_PLAYS])
        classes(mask, plays, n_plays, STRENGTH_ARRAY, probs, self._class_prob, self._card_class)
        if n_plays == 1:
            return None
        # Search only the plays the policy finds plausible (its own always).
        home = int(self._card_class[favourite])
        keep = searched_plays(n_plays, self._class_prob, home, min_prob)
        if len(keep) == 1:
            return None
        candidates = plays[keep].copy()
        renumber = np.full(n_plays, -1, np.int64)
        renumber[keep] = np.arange(len(keep))
        self._card_class[:] = np.where(self._card_class >= 0,
                                       renumber[np.maximum(self._card_class, 0)], -1)
        home = keep.index(home)
        plays[:len(keep)] = candidates
        info[I_PLAYS] = n_plays = len(keep)
        # The worlds come from the seed and the position, never from the call order.
        exact = tricks_left(int(info[I_T])) <= self.solve_tricks
        n_worlds = self.solve_worlds if exact else self.worlds
        context = match_context(row)
        keys, weights = self._worlds(decision_rng(self.seed, row), n_worlds, info, context,
                                     row)
        values = np.zeros((len(keys), n_plays))
        start = time.perf_counter()
        done = 0
        for w0 in range(0, len(keys), self._chunk):
            chunk = keys[w0:w0 + self._chunk]
            out = values[w0:w0 + len(chunk)]
            if exact:
                solve_worlds(chunk, info, view.cards, view.trick, *view.tally, view.unseen,
                             view.n_left, plays, STRENGTH_ARRAY, *self._solver.tables, out)
            else:
                fill_worlds(chunk, info, view.cards, view.card_trick, view.trick, view.winners,
                            *view.tally, view.unseen, view.n_left, plays, context,
                            STRENGTH_ARRAY, self._st)
                value = np.zeros(len(chunk) * n_plays, np.float64 if self.depth else np.int64)
                if self.depth:
                    depth_rollouts(self._policy, self._value, self.depth, len(value), n_plays,
                                   plays, self._st, self._res, self._obs, self._mask, value)
                elif self.rollout == "heuristic":
                    heuristic_rollouts(len(value), n_plays, plays, STRENGTH_ARRAY, self._st,
                                       self._res, value)
                else:
                    policy_rollouts(self._policy, len(value), n_plays, plays, self._st,
                                    self._res, self._obs, self._mask, value)
                out[:] = value.reshape(len(chunk), n_plays)
            done = w0 + len(chunk)
            if self.max_seconds and time.perf_counter() - start > self.max_seconds:
                break
        return values[:done], weights[:done], home, candidates, favourite

    def _worlds(self, rng: np.random.Generator, n_worlds: int, info: np.ndarray,
                context: np.ndarray, row: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
        """The worlds of a decision (:func:`~.belief.draw_worlds`) as keys and
        weights; the position is the last one read into ``self._view`` (from the
        observation ``row``, which ``sampler=net`` reads), whose ``info`` is ``info``."""
        places = None
        if self._sampler is not None:  # sampler=net: the proposal, from row alone
            places = sized(self._sampler(row[None])[0], self._view.unseen,
                           int(info[I_UNSEEN]), self._view.n_left)
        belief = Belief(self._policy, self.belief, self.infer, self.draws, self.min_ess,
                        self.infer_rows, places)
        keys, weights, spread = draw_worlds(rng, n_worlds, self._view, context, belief,
                                            self._rows)
        if spread is not None:
            self.last_ess, self.last_temper = spread
        return keys, weights


_SIGN_OF_CARD = np.array(SIGN_OF_CARD, np.int8)


def guiding_policy(spec: str):
    """The ONNX policy named by ``spec`` (its card probabilities guide the search);
    ValueError with one line when ``spec`` names no such policy."""
    try:
        player = load_player(spec)
    except PlayerSpecError as err:
        shown = repr(spec) if len(spec) <= 120 else repr(spec[:120]) + "..."
        raise ValueError(f"policy {shown}: {err}") from None
    if not hasattr(player, "probabilities"):
        raise ValueError(f"policy must be an ONNX policy (ai, ai:version=N or an exported "
                         f".onnx file) or none, got {spec!r}"[:300])
    return player


def pimc(**options: Any) -> ExpertPlayer:
    """The spec ``pimc``: plain Perfect Information Monte Carlo, a preset of
    :class:`ExpertPlayer` (``policy=none``): ``worlds`` uniform worlds per
    decision, every play searched, heuristic rollouts until ``solve_tricks``
    tricks remain and exact solving after, the best mean (the weakest card on
    ties). A baseline for the expert, which adds the policy's guidance. Options
    as keywords (:data:`PIMC_OPTIONS`)."""
    v = with_defaults(PIMC_OPTIONS, options, "pimc")
    player = ExpertPlayer(worlds=v["worlds"], solve_worlds=v["worlds"],
                          solve_tricks=v["solve_tricks"], policy="none", rollout="heuristic",
                          min_prob=0.0, confidence=0.0, belief=0.0,
                          max_seconds=v["max_seconds"], signs=v["signs"], seed=v["seed"])
    player.name = f"pimc:worlds={v['worlds']},solve_tricks={v['solve_tricks']}" + \
        ("" if v["signs"] else ",signs=false")
    return player


pimc.OPTIONS = PIMC_OPTIONS  # type: ignore[attr-defined]
