"""What an SB3 checkpoint keeps beside the model so that a resumed run is the
same run as one never stopped: every random state and the games in progress.

A checkpoint is taken at a rollout boundary (the trainer waits for the rollout
in progress to be trained), so nothing half-done needs keeping: the model and
its optimizer are in SB3's zip, and this module adds one entry to it,
:data:`ENTRY`, with

- the random states: numpy's, torch's and Python's global generators (SB3's
  minibatches, the policy's samples), and every generator that an object of
  the run owns: the engine's deals and catches, the league's and the partner
  pool's draws, the snapshot stack's and each player's samples;
- the games in progress: the engine's arrays and the self-play games' own (who
  sits where, each column's episode so far), and SB3's last observation where
  SB3 steps the env itself;
- the trainer's own counters (``extra``: when the next snapshot, evaluation and
  checkpoint fall due).

It is an ``.npz`` of arrays and one JSON text, read without pickle; SB3's
loader reads only its own entries. A checkpoint without it (a run saved before
it existed) resumes as before, from fresh random states.

May import: numpy and torch.
"""

from __future__ import annotations

import io
import json
import random
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

#: The entry of the checkpoint zip that holds the run's state.
ENTRY = "aluette_resume.npz"

#: The arrays of a :class:`~aluette_env.vector.VectorGame` that make its games.
ENGINE_ARRAYS = ("state", "results", "rewards", "deal_done", "match_done", "obs", "mask",
                 "obs_indices", "hidden_indices", "final_points", "_in_fixed_match")
#: The arrays of the self-play games (``AllSeatGames``) beside them.
GAMES_ARRAYS = ("_episode_start", "_return", "_length")


def owners(env, pool, partners) -> dict[str, Any]:
    """Every object of the run that may own a random generator, by a name that the
    same run, built again, gives the same object: the engine, the pools, the
    snapshot stack and each player (by its pool entry)."""
    games = env.games
    found: dict[str, Any] = {"engine": games.game, "pool": pool, "joint": games.joint,
                             "env": env, "games": games}
    found.update({f"opponent:{name}": player for name, player in pool.players()})
    found.update({f"seated:{name}": p for name, p in games.seated_players().items()})
    if partners is not None:
        found["partners"] = partners
        found.update({f"partner:{name}": player for name, player in partners.players()})
    return {name: obj for name, obj in found.items() if obj is not None}


def _generators(obj: Any) -> dict[str, Any]:
    """The random generators among ``obj``'s attributes, by attribute name."""
    kinds = (np.random.Generator, torch.Generator, random.Random)
    return {k: v for k, v in sorted(vars(obj).items()) if isinstance(v, kinds)}


def _state_of(gen: Any) -> Any:
    if isinstance(gen, np.random.Generator):
        return {"numpy": gen.bit_generator.state}
    if isinstance(gen, torch.Generator):
        return {"torch": gen.get_state().numpy().tolist()}
    version, internal, gauss = gen.getstate()  # a random.Random, or the module
    return {"python": [version, list(internal), gauss]}


def _set_state(gen: Any, state: dict) -> None:
    if "numpy" in state:
        gen.bit_generator.state = state["numpy"]
    elif "torch" in state:
        gen.set_state(torch.tensor(state["torch"], dtype=torch.uint8))
    else:
        version, internal, gauss = state["python"]
        gen.setstate((version, tuple(internal), gauss))


def capture(model, env, pool, partners, extra: dict) -> bytes:
    """The run's state now (see the module docstring), as the bytes of :data:`ENTRY`."""
    arrays: dict[str, np.ndarray] = {}
    np_state = np.random.get_state()
    arrays["numpy_keys"] = np_state[1]
    arrays["torch_global"] = torch.get_rng_state().numpy()
    meta: dict[str, Any] = {
        "numpy_global": [np_state[0], int(np_state[2]), int(np_state[3]), float(np_state[4])],
        "python_global": _state_of(random)["python"],
        "generators": {name: {attr: _state_of(gen) for attr, gen in _generators(obj).items()}
                       for name, obj in owners(env, pool, partners).items()},
        "extra": extra,
    }
    games = env.games
    for name in ENGINE_ARRAYS:
        arrays[f"engine.{name}"] = np.asarray(getattr(games.game, name))
    for name in GAMES_ARRAYS:
        if hasattr(games, name):
            arrays[f"games.{name}"] = getattr(games, name)
    if hasattr(games, "seated"):  # all-seat games: opponents by name
        meta["opponent"] = [str(x) for x in games.opponent]
        meta["seated"] = games.seated()
        # A snapshot the pool let go while a match still plays it: its weights.
        pools = {False: dict(pool.players()),
                 True: dict(partners.players()) if partners is not None else {}}
        players = games.seated_players()
        meta["let_go"] = [name for name, partner in meta["seated"]
                          if name not in pools[partner]]
        for i, name in enumerate(meta["let_go"]):
            for key, value in players[name].policy.state_dict().items():
                arrays[f"let_go{i}:{key}"] = value.numpy()
    else:
        arrays["games.opponent"] = games.opponent
    for name in ("_ep_return", "_ep_len"):
        if hasattr(env, name):
            arrays[f"env.{name}"] = getattr(env, name)
    last = getattr(model, "_last_obs", None)
    if isinstance(last, np.ndarray) and not hasattr(games, "seated"):
        arrays["model._last_obs"] = last
        arrays["model._last_episode_starts"] = np.asarray(model._last_episode_starts)
    arrays["meta"] = np.array(json.dumps(meta))
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


def restore(blob: bytes, model, env, pool, partners, revive) -> dict:
    """Put the run back in the state :func:`capture` took (after SB3 has reset
    the env and seeded its globals: this comes last). ``revive(name, weights)``
    makes the player of a snapshot that the pool let go from its weights (a
    policy's state dict). Returns the state's ``extra``. ValueError when the
    state does not fit this run (another config)."""
    data = np.load(io.BytesIO(blob), allow_pickle=False)
    meta = json.loads(str(data["meta"]))
    kind, pos, has_gauss, gauss = meta["numpy_global"]
    np.random.set_state((kind, data["numpy_keys"], pos, has_gauss, gauss))
    torch.set_rng_state(torch.as_tensor(data["torch_global"]))
    _set_state(random, {"python": meta["python_global"]})
    games = env.games
    for name in ENGINE_ARRAYS:
        _put(games.game, name, data[f"engine.{name}"])
    for name in GAMES_ARRAYS:
        if f"games.{name}" in data:
            _put(games, name, data[f"games.{name}"])
    if "seated" in meta:
        others = {}
        for i, name in enumerate(meta["let_go"]):
            prefix = f"let_go{i}:"
            others[name] = revive(name, {k[len(prefix):]: torch.from_numpy(data[k])
                                         for k in data.files if k.startswith(prefix)})
        games.reseat(meta["opponent"], [tuple(s) for s in meta["seated"]], others)
    else:
        _put(games, "opponent", data["games.opponent"])
    for name in ("_ep_return", "_ep_len"):
        if f"env.{name}" in data:
            _put(env, name, data[f"env.{name}"])
    if "model._last_obs" in data:
        model._last_obs = data["model._last_obs"].copy()
        model._last_episode_starts = data["model._last_episode_starts"].copy()
    run = owners(env, pool, partners)
    for name, states in meta["generators"].items():
        gens = _generators(run[name]) if name in run else {}
        for attr, state in states.items():
            if attr not in gens:
                raise ValueError(f"the saved run has a random generator {name}.{attr} that "
                                 f"this run does not")
            _set_state(gens[attr], state)
    return meta["extra"]


def _put(obj: Any, name: str, saved: np.ndarray) -> None:
    """``saved`` into ``obj``'s array ``name`` in place (the engine's kernels hold
    views of its arrays); ValueError when its shape or type is not the array's."""
    now = getattr(obj, name)
    if now.shape != saved.shape:
        raise ValueError(f"the saved {name} has shape {saved.shape}, this run's {now.shape}")
    if now.dtype.descr != saved.dtype.descr:
        raise ValueError(f"the saved {name} holds other fields or types than this run's")
    now[...] = saved


def save_in(path: Path, blob: bytes) -> None:
    """Add the run's state to the checkpoint zip ``path`` (before it is renamed
    into place: it is one write with the model)."""
    with zipfile.ZipFile(path, "a") as z:
        z.writestr(ENTRY, blob)


def read_from(path: Path) -> bytes | None:
    """The run's state in the checkpoint zip ``path``; None for a checkpoint
    saved without it."""
    with zipfile.ZipFile(path) as z:
        return z.read(ENTRY) if ENTRY in z.namelist() else None
