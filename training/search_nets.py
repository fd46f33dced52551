"""What the search's networks (``training/value_net.py``,
``training/belief_net.py``) share: their data, deals of the batched engine
played by a guiding policy at every seat with a little exploration so that
the positions spread (:func:`guided_deals`, :func:`guided_cards`), and their
export as ONNX (:func:`export_onnx`)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

#: The policy that plays the deals: the guide of ``expert`` version 5.
GUIDE = "ai:version=4"


def guided_deals(deals: int, seed: int,
                 batch: int = 4096) -> Iterator[tuple[object, np.random.Generator]]:
    """``deals`` one-deal games of the batched engine, ``batch`` at a time, each
    batch reset and yielded with the random source that seeded it (the caller
    draws its own choices from it, so a seed gives the same data)."""
    from aluette_env.vector import VectorGame

    rng = np.random.default_rng(seed)
    done = 0
    while done < deals:
        n = min(batch, deals - done)
        game = VectorGame(n, num_deals=1, seed=int(rng.integers(1 << 62)))
        game.reset()
        yield game, rng
        done += n


def guided_cards(policy, game, rng: np.random.Generator,
                 explore: float) -> tuple[np.ndarray, np.ndarray]:
    """(the guide's own card, a card drawn from its probabilities mixed with a
    uniform choice among the legal cards by ``explore``) in every game of
    ``game``, each from the view of its seat to act."""
    logits = policy.logits(game.obs, game.mask).astype(np.float64)
    legal = game.mask > 0
    z = np.where(legal, logits, -np.inf)
    greedy = z.argmax(1)
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    p = (1 - explore) * p + explore * legal / legal.sum(1, keepdims=True)
    drawn = (p.cumsum(1) > rng.random((len(p), 1))).argmax(1)
    return greedy, drawn


def export_onnx(net, path: Path, width: int, names: tuple[str, str], meta: dict[str, str],
                edit: Callable | None = None) -> None:
    """The torch module ``net`` (input ``names[0]``, float32 [batch, width]; output
    ``names[1]``) written to ``path`` as ONNX with ``meta`` as its metadata, once
    ``edit`` (if any) has changed the graph; checked, then moved into place."""
    import onnx
    import torch
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with warnings.catch_warnings():  # the TorchScript exporter, as training/export.py
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(net, torch.zeros(1, width), str(tmp), input_names=[names[0]],
                          output_names=[names[1]], dynamo=False, opset_version=17,
                          dynamic_axes={names[0]: {0: "batch"}, names[1]: {0: "batch"}})
    model = onnx.load(str(tmp))
    if edit is not None:
        edit(model)
    for k, v in meta.items():
        model.metadata_props.append(onnx.StringStringEntryProto(key=k, value=v))
    onnx.checker.check_model(model)
    onnx.save(model, str(tmp))
    tmp.replace(path)


def out_of_bounds(prog: str, bounds) -> str | None:
    """The one-line error for the first ``(flag, value, low, high)`` of ``bounds``
    whose integer value lies outside [low, high], or None."""
    for name, value, low, high in bounds:
        if not low <= value <= high:
            return f"{prog}: --{name} must be an integer from {low} to {high:,}, got {value}"
    return None
