"""A belief network: where each card the deciding seat has not seen is, read
from that seat's observation alone (``training/belief_net.py``; neural
card-location sampling, Solinas et al. 2019, arXiv 1903.09604), and the
expert's worlds drawn from it (``expert:sampler=net``): its probabilities
scaled until each place holds its number of cards (:func:`sized`), then each
world dealt card by card (:func:`draw_places`)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

from ..._jit import njit
from ...observation import OBS_SIZE

#: Places of a card, relative to the deciding seat: seats 1, 2, 3 and out of the deal.
PLACES = 4


class BeliefNet:
    """A belief network exported as ONNX: input ``observation`` (float32
    [batch, OBS_SIZE]), output ``places`` (float32 [batch, 48, 4]): each card's
    log-probability of being with relative seat 1, 2 or 3, or out of the deal
    (meaningless for a card the seat has seen). ValueError with one line for a
    file that is no such network."""

    def __init__(self, path: str | os.PathLike):
        import onnxruntime as ort

        from ..onnx_policy import ModelError, _session
        self.path = Path(path)
        try:
            self.session = _session(self.path, ort)
        except ModelError as err:
            raise ValueError(str(err)) from None
        inputs = {i.name: i.shape for i in self.session.get_inputs()}
        outputs = {o.name: o.shape for o in self.session.get_outputs()}
        if list(inputs) != ["observation"] or inputs["observation"][-1] != OBS_SIZE or \
                list(outputs) != ["places"] or outputs["places"][1:] != [48, PLACES]:
            raise ValueError(f"{self.path}: not a belief network (input 'observation' of "
                             f"{OBS_SIZE}, output 'places' of 48 x {PLACES}); got inputs "
                             f"{inputs}, outputs {outputs}")
        self.metadata = dict(self.session.get_modelmeta().custom_metadata_map)

    def __call__(self, observations: np.ndarray) -> np.ndarray:
        """[N, 48, 4] log-probabilities from observations [N, OBS_SIZE]."""
        x = np.asarray(observations)[:, :OBS_SIZE].astype(np.float32)
        return np.asarray(self.session.run(["places"], {"observation": x})[0], np.float64)


#: The shipped belief networks (``sampler=net`` reads v1), by version.
_MODELS = Path(__file__).resolve().parents[2] / "models"
SHIPPED_BELIEFS = {1: _MODELS / "aluette-belief-v1.onnx"}


def sampler_net(spec: str) -> BeliefNet | None:
    """The belief network the ``sampler`` option names: None for ``uniform``, the
    shipped one for ``net``, else an .onnx path; ValueError with one line otherwise."""
    if spec == "uniform":
        return None
    try:
        return _load(str(SHIPPED_BELIEFS[1]) if spec == "net" else spec)
    except ValueError as err:
        raise ValueError(f"sampler: {err}; allowed: uniform, net or a .onnx file made by "
                         f"python -m training.belief_net") from None


@functools.lru_cache(maxsize=8)
def _load(path: str) -> BeliefNet:
    return BeliefNet(path)


def sized(log_places: np.ndarray, unseen: np.ndarray, n_unseen: int,
          n_left: np.ndarray, rounds: int = 50) -> np.ndarray:
    """[n_unseen, 4] each unseen card's probability of each place (relative seats
    1-3, out of the deal) from the network's log-probabilities ([48, 4]), scaled
    in turn (Sinkhorn) until each place also holds its number of cards, as every
    drawn world must; never below 1e-6, so that a draw can put any card anywhere."""
    p = np.maximum(np.exp(log_places[unseen[:n_unseen]]), 1e-6)
    sizes = np.array([n_left[1], n_left[2], n_left[3], 0], np.float64)
    sizes[3] = n_unseen - sizes[:3].sum()
    for _ in range(rounds):
        p /= p.sum(1, keepdims=True)
        p *= np.where(sizes > 0, sizes / np.maximum(p.sum(0), 1e-300), 0.0)
    return np.maximum(p / np.maximum(p.sum(1, keepdims=True), 1e-300), 1e-6)


@njit(cache=True)
def draw_places(p, n_unseen, n_left, known, u, keys):
    """World w of ``keys``: each unseen card dealt in turn (in the order of
    ``u[w, 0]``) to a place drawn in proportion to ``p[k]`` among the places
    with room left (a card the seat knows the place of, from signs, first to
    that place), written as keys that :func:`~.worlds.deal_world` deals so:
    place j's cards rank in [j / 4, (j + 1) / 4)."""
    n_out = n_unseen - n_left[1] - n_left[2] - n_left[3]
    room = np.zeros(4, np.int64)
    placed = np.zeros(n_unseen, np.bool_)
    for w in range(keys.shape[0]):
        room[0], room[1], room[2], room[3] = n_left[1], n_left[2], n_left[3], n_out
        placed[:] = False
        for k in range(n_unseen):
            r = known[k]
            if r > 0 and room[r - 1] > 0:
                room[r - 1] -= 1
                keys[w, k] = (r - 1 + u[w, 2, k]) / 4
                placed[k] = True
        order = np.argsort(u[w, 0, :n_unseen])
        for i in range(n_unseen):
            k = order[i]
            if placed[k]:
                continue
            total = 0.0
            for j in range(4):
                if room[j] > 0:
                    total += p[k, j]
            x = u[w, 1, k] * total
            pick = -1
            for j in range(4):
                if room[j] > 0:
                    pick = j
                    x -= p[k, j]
                    if x < 0:
                        break
            room[pick] -= 1
            keys[w, k] = (pick + u[w, 2, k]) / 4
