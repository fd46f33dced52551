"""AI players for Aluette: the protocol, and the registry that names them by spec.

A player is anything with ``act(observation, action_mask) -> card id`` (one
seat's observation vector, :mod:`aluette_env.observation` layout) and,
optionally, ``act_batch(observations, masks) -> card ids`` for many games at
once and ``reset(seed)``. The AEC env, the evaluator, training (as
opponents) and the games all use this protocol.

One spec syntax names every player, on the command line and in configs:

``name`` / ``name:key=value,key=value``
    a registered player: ``random:seed=3``, ``heuristic``, ``ai``,
    ``pimc:worlds=32``.
``path`` / ``path:key=value,...``
    a model file or training run folder, loaded by the first registered
    loader that accepts it: ``model.onnx:temperature=0.5``.

Players and loaders register through package entry points (groups
``aluette.players`` and ``aluette.loaders`` in ``pyproject.toml``), so a
spec loads only the modules it needs: an ``.onnx`` player never imports
numba, pettingzoo or torch. Each factory declares its options in
``OPTIONS`` (a dict of :class:`Option`); every option is checked when the
player is loaded, and a bad spec raises :class:`PlayerSpecError` naming the
spec, the option and what is allowed.

May import: numpy, :mod:`aluette_env.game`, :mod:`aluette_env.observation`;
player modules may add :mod:`aluette_env._jit` (numba), onnxruntime, and the
batched engine :mod:`aluette_env.vector` (the search players' rollouts);
never torch, gymnasium or pettingzoo.
"""

from __future__ import annotations

import functools
import math
import os
import warnings
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Protocol, runtime_checkable
from collections.abc import Callable

import numpy as np

from ..game import ALUETTE_SIGNS_V0, NUM_ACTIONS, NUM_CARDS, SIGN_BASE, Variant
from ..observation import OBS_SIZE, SIGNS_OBS_LAYOUT, SIGNS_OBS_SIZE, layout_of


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
        # asarray: a list is a batch of one too; a scalar is refused by act_batch's check
        observations, masks = np.asarray(observation)[None], np.asarray(action_mask)[None]
        return int(self.act_batch(observations, masks)[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def reset(self, seed: int | None = None) -> None:
        """Called before each deal; stateless players ignore it (a bad seed is
        refused all the same: :func:`checked_seed`)."""
        checked_seed(seed)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def act_batch(player: Player, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Decisions for a batch from any player, batched when it can."""
    if hasattr(player, "act_batch"):
        return np.asarray(player.act_batch(observations, masks), np.int64)
    return np.array([player.act(o, m) for o, m in zip(observations, masks)], np.int64)


def check_batch(observations: np.ndarray, masks: np.ndarray, signs: bool = False, *,
                variant: Variant | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Contiguous int8 ``[N, OBS_SIZE]`` / ``[N, 48]`` arrays, every mask with a legal
    card; ValueError naming the problem otherwise. ``variant``: a player of a
    game with signs (:data:`~aluette_env.game.ALUETTE_SIGNS_V0`) also takes its
    ``[N, SIGNS_OBS_SIZE]`` / ``[N, 58]`` arrays; ``signs=True``, the older way
    to say it, is deprecated."""
    if signs:
        warnings.warn("check_batch(signs=True) is deprecated; use "
                      "check_batch(variant=ALUETTE_SIGNS_V0)", DeprecationWarning, stacklevel=2)
    with_signs = bool(signs) or (variant is not None and variant.signs)
    obs = np.ascontiguousarray(observations, np.int8)
    masks = np.ascontiguousarray(masks, np.int8)
    shapes = ((OBS_SIZE, NUM_CARDS), (SIGNS_OBS_SIZE, NUM_ACTIONS)) if with_signs else \
        ((OBS_SIZE, NUM_CARDS),)
    if obs.ndim != 2 or masks.ndim != 2 or len(masks) != len(obs) \
            or (obs.shape[1], masks.shape[1]) not in shapes:
        wanted = " or ".join(f"[N, {o}] and [N, {m}]" for o, m in shapes)
        raise ValueError(f"observations and masks must be {wanted}, got {obs.shape} and "
                         f"{masks.shape}")
    if len(masks) and not masks.any(axis=1).all():
        raise ValueError("every action mask needs at least one legal card")
    return obs, masks


class Silent(BatchPlayer):
    """A player of the default game at a table with signs (docs/RULES.md S1-S5):
    it makes no sign, and plays its cards from the layout-2 part of the
    observation (it reads no sign). A player whose ``plays_signs`` is True
    takes the signs variant's arrays itself and is not wrapped
    (:func:`for_signs`)."""

    def __init__(self, player: Player):
        self.player = player
        self.name = getattr(player, "name", "player")

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        obs, masks = check_batch(observations, masks, variant=ALUETTE_SIGNS_V0)
        out = np.full(len(obs), SIGN_BASE, np.int64)  # silence in the sign phase
        if layout_of(obs) != SIGNS_OBS_LAYOUT:
            return act_batch(self.player, obs, masks)
        cards = masks[:, :NUM_CARDS].any(axis=1)
        if cards.any():
            out[cards] = act_batch(self.player, obs[cards, :OBS_SIZE], masks[cards, :NUM_CARDS])
        return out

    def reset(self, seed: int | None = None) -> None:
        reset = getattr(self.player, "reset", None)
        if reset is not None:
            reset(seed)


def for_the_default_game(player: Player, spec: str) -> Player:
    """``player`` (loaded from ``spec``) if it plays the default game;
    PlayerSpecError for a policy of the signs variant (``signs_only``), which
    plays only at a table with signs."""
    if getattr(player, "signs_only", False):
        raise PlayerSpecError(f"player spec {_shown(spec)}: a policy of the signs variant plays "
                              f"only at a table with signs (docs/SIGNS.md)")
    return player


def for_signs(player: Player) -> Player:
    """``player`` at a table with signs: itself if it plays signs
    (``plays_signs``), else :class:`Silent` around it."""
    return player if getattr(player, "plays_signs", False) else Silent(player)


# ---------------------------------------------------------------------------- options


class PlayerSpecError(ValueError):
    """A player spec that names nothing loadable, or a bad option (one-line message)."""


@dataclass(frozen=True)
class Option:
    """One ``key=value`` option of a player spec.

    ``kind`` is int, float, bool or str; ``check`` tells whether a parsed value
    is allowed and ``allowed`` says so in words for the error message.
    """

    kind: type
    default: Any
    help: str
    check: Callable[[Any], bool] | None = None
    allowed: str = ""

    def parse(self, text: str) -> Any:
        """The value of ``text``; ValueError with what is allowed otherwise."""
        what = self.allowed or _KIND_WORDS[self.kind]
        try:
            if self.kind is bool:  # the words the message names, and only those
                if text not in _BOOLS:
                    raise ValueError
                value: Any = _BOOLS[text]
            elif self.kind is int:
                value = int(text)
            elif self.kind is float:
                value = float(text)
                if not math.isfinite(value):
                    raise ValueError
            else:
                value = text
        except ValueError:
            raise ValueError(f"got {text!r}; allowed: {what}") from None
        if self.check is not None and not self.check(value):
            raise ValueError(f"got {text!r}; allowed: {what}")
        return value


_BOOLS = {"true": True, "false": False}
_KIND_WORDS = {int: "an integer", float: "a finite number", bool: " or ".join(_BOOLS),
               str: "text"}

#: The ``seed`` option every seeded player accepts.
SEED = Option(int, None, "seed of the player's random choices",
              check=lambda v: 0 <= v < 2 ** 63, allowed="an integer from 0 to 2**63-1")


def checked_seed(seed: Any) -> int | None:
    """``seed`` for a player's ``reset``: None, or an integer the ``seed`` option
    takes (0 to 2**63-1); ValueError naming it otherwise."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) \
            or not SEED.check(int(seed)):
        raise ValueError(f"seed must be None or {SEED.allowed}, got {seed!r}")
    return int(seed)


#: The ``temperature`` option of policy players (exported models, checkpoints).
TEMPERATURE = Option(float, None, "sample from softmax(logits / T); unset: greedy (the most "
                     "likely legal card)", check=lambda t: 1e-3 <= t <= 100,
                     allowed="a number from 0.001 to 100 (leave it out for greedy play)")


def parse_options(spec: str, text: str, options: dict[str, Option]) -> dict[str, Any]:
    """``key=value,...`` checked against ``options``; PlayerSpecError naming the culprit."""
    values: dict[str, Any] = {}
    for part in text.split(","):
        key, sep, raw = part.partition("=")
        key = key.strip()
        if not sep or not key:
            raise PlayerSpecError(f"player spec {_shown(spec)}: expected key=value after ':', "
                                  f"got {part!r}"[:400])
        if key.startswith(":"):
            raise PlayerSpecError(f"player spec {_shown(spec)}: one ':' separates the player from "
                                  f"its options (name:key=value,...), got '::'")
        if key not in options:
            allowed = ", ".join(sorted(options)) or "none"
            raise PlayerSpecError(f"player spec {_shown(spec)}: unknown option {key!r}; "
                                  f"options: {allowed}"[:400])
        if key in values:
            raise PlayerSpecError(f"player spec {_shown(spec)}: option {key!r} is given twice")
        try:
            values[key] = options[key].parse(raw.strip())
        except ValueError as err:
            message = f"player spec {_shown(spec)}: option {key!r} {err}"
            raise PlayerSpecError(message[:400]) from None
    return values


def split_specs(text: str) -> list[str]:
    """A comma-separated list of player specs, where a spec's own options also
    follow commas: ``"heuristic,ai:version=5,temperature=2,random"`` is
    ``["heuristic", "ai:version=5,temperature=2", "random"]``. A piece of the
    form ``key=value`` with no ``:`` names no player (player names hold no
    ``=``), so it is an option of the spec before it. Pieces are stripped."""
    specs: list[str] = []
    for piece in text.split(","):
        piece = piece.strip()
        key, sep, _ = piece.partition("=")
        if specs and sep and ":" not in key and "/" not in key and "." not in key \
                and ":" in specs[-1]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


# ---------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class Loader:
    """Loads players from paths (model files, run folders) that ``accepts`` them."""

    name: str
    accepts: Callable[[str], bool]
    load: Callable[..., Player]  # load(path, seed=None, **options)
    options: dict[str, Option]


_PLAYERS: dict[str, Callable[..., Player]] = {}
_LOADERS: dict[str, Loader] = {}
_discovered = False


def register_player(name: str, factory: Callable[..., Player]) -> None:
    """Make ``name`` a player spec at run time (entry points do this for installed
    packages). ``factory(seed=None, **options)`` with ``factory.OPTIONS``."""
    _discover()
    _PLAYERS[name] = factory


def register_loader(loader: Loader) -> None:
    """Let paths that ``loader.accepts`` load through it (entry points do this for
    installed packages)."""
    _discover()
    _LOADERS[loader.name] = loader


def _discover() -> None:
    """Read the ``aluette.players`` / ``aluette.loaders`` entry points once. Entries are
    loaded (imported) only when a spec names them."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    for ep in metadata.entry_points(group="aluette.players"):
        _PLAYERS.setdefault(ep.name, _Lazy(ep))
    for ep in metadata.entry_points(group="aluette.loaders"):
        _LOADERS.setdefault(ep.name, _Lazy(ep))  # type: ignore[arg-type]


class _Lazy:
    """An entry point, imported on first use."""

    def __init__(self, ep: metadata.EntryPoint):
        self.ep = ep
        self._obj: Any = None

    def get(self) -> Any:
        if self._obj is None:
            self._obj = self.ep.load()
        return self._obj


def _resolve(obj: Any) -> Any:
    return obj.get() if isinstance(obj, _Lazy) else obj


def player_names() -> list[str]:
    """Every registered player name (``random``, ``heuristic``, ``ai``, ...)."""
    _discover()
    return sorted(_PLAYERS)


def player_options(name: str) -> dict[str, Option]:
    """The options a registered player accepts."""
    _discover()
    if name not in _PLAYERS:
        raise PlayerSpecError(f"unknown player {name!r}; known: {', '.join(player_names())}")
    return dict(getattr(_resolve(_PLAYERS[name]), "OPTIONS", {}))


def load_player(spec: str, seed: int | None = None) -> Player:
    """The player named by a spec string (see the module docstring). ``seed`` seeds
    it unless the spec sets ``seed=`` itself. Any spec that names nothing
    loadable (a misspelt name, a missing, unreadable or overlong path) raises
    :class:`PlayerSpecError`."""
    if not isinstance(spec, str) or not spec.strip():
        raise PlayerSpecError(f"a player spec must be a non-empty string, got {spec!r}"[:300])
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                             or not 0 <= seed < 2 ** 63):
        raise PlayerSpecError(f"player spec {_shown(spec)}: seed must be an integer from 0 to "
                              f"2**63-1, got {seed!r}"[:400])
    try:
        return _load(spec, seed)
    except OSError as err:  # a path the system refuses: too long, a loop of links...
        raise PlayerSpecError(f"player spec {_shown(spec)}: {err.strerror or err}") from None
    except UnicodeError:  # a lone surrogate: no file can have that name
        raise PlayerSpecError(f"player spec {_shown(spec)}: not valid text (a lone "
                              f"surrogate)") from None


def _shown(spec: str) -> str:
    """A spec as messages quote it: at most 120 characters, escapes visible."""
    return repr(spec) if len(spec) <= 120 else repr(spec[:120]) + f"... ({len(spec)} characters)"


def _load(spec: str, seed: int | None) -> Player:
    _discover()
    name, sep, text = spec.partition(":")
    if name in _PLAYERS:
        factory = _resolve(_PLAYERS[name])
        options: dict[str, Option] = getattr(factory, "OPTIONS", {})
        values = parse_options(spec, text, options) if sep else {}
        if "seed" in options:
            values.setdefault("seed", seed)
        return _build(spec, factory, values)
    path, text = _split_path(spec)
    for entry in list(_LOADERS.values()):
        loader: Loader = _resolve(entry)
        if loader.accepts(path):
            values = parse_options(spec, text, loader.options) if text else {}
            if "seed" in loader.options:
                values.setdefault("seed", seed)
            return _build(spec, functools.partial(loader.load, path), values)
    if os.path.sep in path or "." in path:
        if not os.path.exists(path):
            raise PlayerSpecError(f"player spec {_shown(spec)}: no such file or directory")
        raise PlayerSpecError(f"player spec {_shown(spec)}: not a model this installation can "
                              f"load (an exported .onnx policy or a training run "
                              f"folder/checkpoint)")
    raise PlayerSpecError(f"unknown player {_shown(spec)}; known: {', '.join(player_names())} "
                          f"or a path to an exported policy or training run")


def _split_path(spec: str) -> tuple[str, str]:
    """``path:key=value,...`` -> (path, options text); a spec naming an existing
    path is all path."""
    if ":" not in spec or os.path.exists(spec):
        return spec, ""
    path, _, text = spec.rpartition(":")
    if "=" not in text:
        return spec, ""
    if path.endswith(":"):
        raise PlayerSpecError(f"player spec {_shown(spec)}: options follow one ':' "
                              f"(path:key=value,...), not '::'")
    return path, text


def _build(spec: str, factory: Callable[..., Player], values: dict[str, Any]) -> Player:
    try:
        player = factory(**values)
    except PlayerSpecError:
        raise
    except (TypeError, ValueError) as err:
        raise PlayerSpecError(f"player spec {_shown(spec)}: {err}") from None
    return player


__all__ = ["SEED", "TEMPERATURE", "BatchPlayer", "Loader", "Option", "Player", "PlayerSpecError",
           "Silent", "act_batch", "check_batch", "checked_seed", "for_signs",
           "for_the_default_game", "load_player", "parse_options", "split_specs",
           "player_names", "player_options", "register_loader", "register_player"]
