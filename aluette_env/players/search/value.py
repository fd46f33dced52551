"""Values of fully known positions at a depth limit: the search's rollouts stop
at the end of the current trick (or of the next) and a value network says what
the rest of the deal is worth, instead of playing it out.

The network reads one game record of the batched engine at the start of a trick
(:func:`write_features`), every hand known, as the search's rollouts see a world
it drew: never the true deal. Its output is the expected points of the leading
seat's team minus the other team's at the end of the deal, if every seat went
on playing the guiding policy from its own view (what a rollout to the end
measures once, it learns as a mean: ``training/value_net.py``).

The features, relative to the seat that leads the trick (seat ``r`` is the
leader's ``r``-th seat clockwise, so the leader's team is seats 0 and 2):

=====================  ==========================================================
entries                what
=====================  ==========================================================
``card * 6 + k``       card ``card`` is in relative seat ``k``'s hand (k 0-3),
                       played this deal (k 4) or one of the unused twelve (k 5)
``288 + r``            relative seat r's tricks won this deal / 9 (R13)
``292 + r``            (the trick of its latest win + 1) / 9, 0 none (R14)
``296 + r``            1 while it can still make Mordienne (R16)
``300 + t``            1 for the trick about to start, t (0-8)
=====================  ==========================================================
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

from ..._jit import njit
from ...game import plays_left
from ...game.state import NUM_SEATS, UNUSED
from ...vector.kernels import observe, play
from .rollouts import policy_rollouts
from .worlds import STRENGTH_ARRAY

VALUE_WIDTH = 48 * 6 + 3 * NUM_SEATS + 9
#: The shipped value networks by version (``expert:depth=N`` reads ``value=v1``).
_MODELS = Path(__file__).resolve().parents[2] / "models"
SHIPPED_VALUES = {1: _MODELS / "aluette-value-v1.onnx"}


@njit(cache=True)
def write_features(st, n, out):
    """``out[g]``: the features of game g of ``st`` (g < n), at the start of a
    trick, relative to its leader (the module's table)."""
    for g in range(n):
        game = st[g]
        lead = game.leader
        for i in range(out.shape[1]):
            out[g, i] = 0.0
        for c in range(48):
            code = game.card_state[c]
            if code < NUM_SEATS:
                k = (code - lead) % NUM_SEATS
            elif code == UNUSED:
                k = 5
            else:  # in a finished trick, or in the trick in progress
                k = 4
            out[g, c * 6 + k] = 1.0
        for r in range(NUM_SEATS):
            s = (lead + r) % NUM_SEATS
            out[g, 288 + r] = game.counts[s] / 9.0
            out[g, 292 + r] = (game.reached[s] + 1) / 9.0
            out[g, 296 + r] = 1.0 if game.in_run[s] else 0.0
        t = game.trick_index
        if 0 <= t < 9:
            out[g, 300 + t] = 1.0


class ValueNet:
    """A value network exported as ONNX: input ``features`` (float32
    [batch, VALUE_WIDTH]), output ``value`` (float32 [batch]): the leading
    team's expected points minus the other team's."""

    def __init__(self, path: str | os.PathLike):
        import onnxruntime as ort

        from ..onnx_policy import ModelError, _session
        self.path = Path(path)
        self.session = _session(self.path, ort)
        inputs = {i.name: i.shape for i in self.session.get_inputs()}
        outputs = [o.name for o in self.session.get_outputs()]
        if list(inputs) != ["features"] or inputs["features"][-1] != VALUE_WIDTH or \
                outputs != ["value"]:
            raise ModelError(f"{self.path}: not a value network (input 'features' of "
                             f"{VALUE_WIDTH}, output 'value'); got inputs {inputs}, "
                             f"outputs {outputs}")
        probe = np.zeros((2, VALUE_WIDTH), np.float32)
        if not np.isfinite(self(probe)).all():
            raise ModelError(f"{self.path}: its values are NaN or infinite; not a "
                             f"usable value network")

    def __call__(self, features: np.ndarray) -> np.ndarray:
        out = self.session.run(["value"], {"features": features.astype(np.float32,
                                                                         copy=False)})[0]
        return np.asarray(out, np.float64).reshape(len(features))


def shipped_or_path(spec: str) -> ValueNet:
    """The value network ``spec`` names: ``vN``, a shipped one, or an .onnx path;
    ValueError with one line otherwise."""
    from ..onnx_policy import ModelError
    digits = spec[1:]
    # ASCII digits only: int() refuses a superscript 2 (a digit to isdigit) and
    # more than 4,300 digits.
    if spec.startswith("v") and digits.isascii() and digits.isdigit():
        number = int(digits) if len(digits) <= 6 else None
        if number not in SHIPPED_VALUES:
            shown = repr(spec) if len(spec) <= 40 else repr(spec[:40]) + "..."
            raise ValueError(f"value {shown}: no such shipped value network; shipped: "
                             + ", ".join(f"v{k}" for k in SHIPPED_VALUES))
        return _load(str(SHIPPED_VALUES[number]))
    try:
        return _load(spec)
    except ModelError as err:
        raise ValueError(f"value: {err}") from None


@functools.lru_cache(maxsize=8)
def _load(path: str) -> ValueNet:
    return ValueNet(path)


def depth_rollouts(policy, net: ValueNet, tricks: int, n_games: int, n_plays: int,
                   plays: np.ndarray, st: np.ndarray, res: np.ndarray, obs: np.ndarray,
                   mask: np.ndarray, value: np.ndarray, features: np.ndarray | None = None
                   ) -> None:
    """As :func:`~.rollouts.policy_rollouts` (game g plays ``plays[g % n_plays]``,
    then every seat the policy from its own view), but only until ``tricks``
    tricks have ended (1: the end of the current trick); ``value[g]``: team 0's
    points minus team 1's, from the deal's result if only the last trick (forced:
    one card in each hand) or nothing was left by then, else from ``net`` on the
    position reached. ``features``: room for the batch."""
    t0, n_in = int(st["trick_index"][0]), int(st["n_in_trick"][0])
    steps = min(plays_left(t0, n_in), 4 - n_in + 4 * (tricks - 1))
    policy_rollouts(policy, n_games, n_plays, plays, st, res, obs, mask, value, steps)
    left = plays_left(t0, n_in) - steps
    if left == 0:
        return
    if left <= NUM_SEATS:  # the last trick: one card in each hand, nothing to choose
        obs, mask = obs[:n_games], mask[:n_games]
        active = np.ones(n_games, np.bool_)
        rewards = np.zeros((n_games, 4), np.float32)
        deal_done = np.zeros(n_games, np.bool_)
        match_done = np.zeros(n_games, np.bool_)
        for _ in range(left):
            observe(st, obs, mask)
            play(st, mask.argmax(1).astype(np.int64), active, STRENGTH_ARRAY, res, rewards,
                 deal_done, match_done)
        points = res["points"][:n_games]
        value[:] = points[:, 0] - points[:, 1]
        return
    if features is None or len(features) < n_games:
        features = np.zeros((n_games, VALUE_WIDTH), np.float32)
    features = features[:n_games]
    write_features(st, n_games, features)
    lead_team = st["leader"][:n_games] % 2
    v = net(features)
    value[:] = np.where(lead_team == 0, v, -v)
