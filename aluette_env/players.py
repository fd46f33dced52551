"""AI players for Aluette and the registry that names them by spec strings.

A player is anything with ``act(observation, action_mask) -> card id`` (one
seat's observation vector, :mod:`aluette_env.observation` layout) and,
optionally, ``act_batch(observations, masks) -> card ids`` for many games at
once and ``reset(seed)`` called before each deal. The AEC env, the evaluator,
training (as opponents) and the terminal game all use this protocol.

Spec strings name players everywhere on the command line:

``random`` / ``random:seed=3``
    uniform over the legal cards, seeded.
``heuristic``
    the rule-based player documented on :class:`HeuristicPlayer`.
a path
    an exported policy or a training checkpoint, through the loaders that the
    export and training modules register with :func:`register_loader`.
"""

from __future__ import annotations

import os
from typing import Callable, Protocol, runtime_checkable

import numpy as np

from .cards import NUM_CARDS, STRENGTH
from .observation import OBS_SIZE, OFFSET
from .vector import njit

_STRENGTH = np.array(STRENGTH, np.int8)


@runtime_checkable
class Player(Protocol):
    """What every AI player provides."""

    name: str

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The card id to play for the seat whose observation this is."""
        ...


class BatchPlayer:
    """Base for players that decide many games at once; ``act`` is a batch of one."""

    name = "player"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.act_batch(observation[None, :], action_mask[None, :])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def reset(self, seed: int | None = None) -> None:
        """Called before each deal; stateless players ignore it."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def act_batch(player: Player, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Decisions for a batch from any player, batched when it can."""
    if hasattr(player, "act_batch"):
        return np.asarray(player.act_batch(observations, masks), np.int64)
    return np.array([player.act(o, m) for o, m in zip(observations, masks)], np.int64)


class RandomPlayer(BatchPlayer):
    """Uniform over the legal cards, reproducible from its seed."""

    def __init__(self, seed: int | None = None):
        self.name = "random" if seed is None else f"random:seed={seed}"
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if masks.ndim != 2 or masks.shape[1] != NUM_CARDS or (masks.sum(1) == 0).any():
            raise ValueError("every action mask must be 48 wide with at least one legal card")
        return (self.rng.random(masks.shape) * masks).argmax(1) if len(masks) else \
            np.zeros(0, np.int64)


_HAND, _TRICK, _PLAYED = OFFSET["hand"], OFFSET["trick"], OFFSET["played"]
_COUNTS, _RUN, _LEADER = OFFSET["trick_counts"], OFFSET["in_run"], OFFSET["leader"]
_TRICK_INDEX = OFFSET["trick_index"]


@njit(cache=True)
def _heuristic(obs, mask, strength, out):
    for i in range(obs.shape[0]):
        row = obs[i]
        # The trick in progress: cards by relative seat (0 me, 1 left, 2 partner, 3 right).
        trick = np.full(4, -1, np.int64)
        unseen_max = -1
        for c in range(48):
            seen = row[_HAND + c] == 1
            for r in range(4):
                if row[_TRICK + r * 48 + c] == 1:
                    trick[r] = c
                    seen = True
                if row[_PLAYED + r * 48 + c] == 1:
                    seen = True
            if not seen and strength[c] > unseen_max:
                unseen_max = strength[c]
        counts = np.zeros(4, np.int64)
        for r in range(4):
            for k in range(9):
                counts[r] += row[_COUNTS + r * 9 + k]
        t = 0
        for k in range(9):
            if row[_TRICK_INDEX + k] == 1:
                t = k
        remaining = 9 - t
        # My cards, weakest first (ties: lowest id), and how many are sure winners.
        weakest, strongest, n_sure = -1, -1, 0
        for c in range(48):
            if mask[i, c] == 1:
                if weakest < 0 or strength[c] < strength[weakest]:
                    weakest = c
                if strongest < 0 or strength[c] > strength[strongest]:
                    strongest = c
                if strength[c] > unseen_max:
                    n_sure += 1
        n_in = 0
        best, best_rel, tied = -1, -1, False
        for r in range(1, 4):
            if trick[r] >= 0:
                n_in += 1
                s = strength[trick[r]]
                if s > best:
                    best, best_rel, tied = s, r, False
                elif s == best:
                    tied = True
        my_run = counts[0] == 0 or row[_RUN] == 1
        choice = weakest
        if n_in == 0:
            # Leading. A late run of sure winners to the end can make Mordienne
            # (R16): play it out. Otherwise cash a sure winner unless it is being
            # saved for such a run, or lead the weakest card.
            if n_sure >= remaining:
                choice = strongest
            elif n_sure > 0 and not (counts[0] == 0 and n_sure >= 2):
                choice = -2  # cheapest sure winner, below
        else:
            last = n_in == 3
            partner_wins = (not tied) and best_rel == 2
            if partner_wins and (last or best > unseen_max):
                choice = weakest  # don't overtake the partner
            else:
                # Cheapest card that beats the best card so far (R10).
                beat = -1
                for c in range(48):
                    if mask[i, c] == 1 and strength[c] > best:
                        if beat < 0 or strength[c] < strength[beat]:
                            beat = c
                if partner_wins:
                    choice = weakest
                elif beat >= 0 and (last or strength[beat] > unseen_max or not tied):
                    # Save sure winners for a Mordienne run when nothing is won yet
                    # and enough of them remain; otherwise take the trick now
                    # (earlier wins also decide ties, R14).
                    if counts[0] == 0 and my_run and n_sure >= remaining - 1 and n_sure >= 2 \
                            and strength[beat] > unseen_max and not last:
                        choice = weakest
                    else:
                        choice = beat
                elif (not tied) and best_rel != 2:
                    # An opponent is winning and can't be beaten: spoil it with an
                    # equal card (R11) when its trick would threaten the deal.
                    our = max(counts[0], counts[2])
                    threat = counts[best_rel] + 1 >= our or row[_RUN + best_rel] == 1
                    match = -1
                    for c in range(48):
                        if mask[i, c] == 1 and strength[c] == best:
                            match = c
                            break
                    if match >= 0 and threat:
                        choice = match
        if choice == -2:
            sure = -1
            for c in range(48):
                if mask[i, c] == 1 and strength[c] > unseen_max:
                    if sure < 0 or strength[c] < strength[sure]:
                        sure = c
            choice = sure
        out[i] = choice


class HeuristicPlayer(BatchPlayer):
    """A rule-based player a decent human would recognise.

    * Partner winning the trick (uniquely, and safely: last to play or a card
      nobody unseen can beat): never overtake it, throw the weakest card.
    * An opponent winning or the trick spoiled so far: win it with the cheapest
      card that beats the best card (earlier wins also decide ties, R14).
    * An opponent winning with a card that can't be beaten: spoil the trick
      with an equal card (R11) when that trick would bring the opponent level
      with our best count or extend its Mordienne run; else throw the weakest.
    * Keep strong cards for a late run: with no trick won yet and enough sure
      winners (cards stronger than every unseen card) for the rest of the deal,
      don't spend them early; once the sure winners cover every remaining
      trick, lead them out to make Mordienne (R16).
    * Leading otherwise: cash a sure winner if any, else lead the weakest card.

    Deterministic (equal cards: the lowest id), so ``seed`` changes nothing; it
    is accepted for the common player interface.
    """

    def __init__(self, seed: int | None = None):
        self.name = "heuristic"
        self.seed = seed

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs = np.ascontiguousarray(observations, np.int8)
        masks = np.ascontiguousarray(masks, np.int8)
        if obs.ndim != 2 or obs.shape[1] != OBS_SIZE or masks.shape != (len(obs), NUM_CARDS):
            raise ValueError(f"observations must be [N, {OBS_SIZE}] and masks [N, 48], "
                             f"got {obs.shape} and {masks.shape}")
        out = np.empty(len(obs), np.int64)
        _heuristic(obs, masks, _STRENGTH, out)
        return out


# ---------------------------------------------------------------------------- registry


class PlayerSpecError(ValueError):
    """A player spec that names nothing loadable."""


_BY_NAME: dict[str, Callable[..., Player]] = {
    "random": RandomPlayer,
    "heuristic": HeuristicPlayer,
}
# (predicate on the spec, factory(spec, seed)) for paths: exported policies,
# checkpoints. Registered by the modules that know those formats.
_LOADERS: list[tuple[Callable[[str], bool], Callable[[str, int | None], Player]]] = []


def register_player(name: str, factory: Callable[..., Player]) -> None:
    """Make ``name`` (and ``name:key=value,...``) a player spec."""
    _BY_NAME[name] = factory


def register_loader(accepts: Callable[[str], bool],
                    factory: Callable[[str, int | None], Player]) -> None:
    """Let specs for which ``accepts(spec)`` is true load through ``factory``."""
    _LOADERS.append((accepts, factory))


def _parse_kwargs(spec: str, text: str) -> dict[str, object]:
    kwargs: dict[str, object] = {}
    for part in filter(None, text.split(",")):
        key, sep, value = part.partition("=")
        if not sep or not key:
            raise PlayerSpecError(f"player spec {spec!r}: expected key=value after ':', got {part!r}")
        try:
            kwargs[key] = int(value)
        except ValueError:
            try:
                kwargs[key] = float(value)
            except ValueError:
                kwargs[key] = value
    return kwargs


def load_player(spec: str, seed: int | None = None) -> Player:
    """The player named by a spec string (see the module docstring)."""
    if not isinstance(spec, str) or not spec:
        raise PlayerSpecError(f"a player spec must be a non-empty string, got {spec!r}")
    _load_plugins()
    name, _, rest = spec.partition(":")
    if name in _BY_NAME:
        kwargs = _parse_kwargs(spec, rest)
        if seed is not None:
            kwargs.setdefault("seed", seed)
        try:
            return _BY_NAME[name](**kwargs)
        except TypeError as err:
            raise PlayerSpecError(f"player spec {spec!r}: {err}") from None
    for accepts, factory in _LOADERS:
        if accepts(spec):
            return factory(spec, seed)
    if os.path.sep in spec or "." in spec:
        if not os.path.exists(spec):
            raise PlayerSpecError(f"player spec {spec!r}: no such file or directory")
        raise PlayerSpecError(f"player spec {spec!r}: not a model this installation can load "
                              f"(exported .onnx policy or training checkpoint)")
    raise PlayerSpecError(f"unknown player {spec!r}; known: {', '.join(sorted(_BY_NAME))} "
                          f"or a path to an exported policy or checkpoint")


_PLUGINS = ("aluette_env.onnx_player", "aluette_env.search", "training.checkpoints")
_plugins_loaded = False


def _load_plugins() -> None:
    """Import the modules that register model loaders, where they exist."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    import importlib
    import importlib.util
    for module in _PLUGINS:
        try:
            if importlib.util.find_spec(module) is not None:
                importlib.import_module(module)
        except ImportError:
            pass
