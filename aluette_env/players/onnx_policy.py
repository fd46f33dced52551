"""Exported policies (``.onnx``) as players, with onnxruntime only.

Importing this module never imports torch, stable_baselines3, pettingzoo or
numba: an exported AI runs anywhere onnxruntime does. The model's inputs are
``observation`` (float32 [batch, OBS_SIZE]) and ``action_mask`` (float32
[batch, 48]); its output ``logits`` has illegal cards at -1e9. The player
checks these names and shapes when it loads a model, and that its logits are
finite on a few real positions (:func:`probe_positions`: a model with a NaN
or infinite weight is refused), and applies the mask itself, so no model
output can make it play a card that is not in hand.
``metadata_props`` carry ``obs_layout``, ``obs_size``, ``num_actions``, the
project version, the training config, the steps trained and the evaluation
summary. A model of an earlier ``obs_layout`` reads that layout's fields,
the first ``obs_size(layout)`` entries of today's vector
(:mod:`aluette_env.observation`), so it plays exactly as it did. A model of
the signs variant (``obs_layout`` 3: 1,395 inputs, 58 actions, docs/SIGNS.md)
plays signs itself (``plays_signs``) at a table with signs.

Specs: ``path/to/model.onnx`` (greedy) or ``path/to/model.onnx:temperature=0.7``
(sampled from softmax(logits / T)); ``ai`` is the newest shipped model and
``ai:version=1`` to ``ai:version=5`` an earlier one (for comparisons).
"""

from __future__ import annotations

import functools
import os
import random
import warnings
from pathlib import Path

import numpy as np

from ..game import ALUETTE_SIGNS_V0, ALUETTE_V1, NUM_ACTIONS, NUM_CARDS, NUM_UNUSED, SIGN_BASE, Variant
from ..observation import (
    LAYOUT_ENDS_BEFORE, LAYOUT_KEY, OBS_LAYOUT, SIGNS_OBS_LAYOUT, encode_observation,
    encode_signs_observation, obs_size, saved_layout,
)
from . import (
    SEED, TEMPERATURE, BatchPlayer, Loader, Option, PlayerSpecError, check_batch, checked_seed,
)

_MODELS = Path(__file__).resolve().parents[1] / "models"
#: The shipped AIs by version (installed inside the package); the newest is ``ai``,
#: the default player of the games.
SHIPPED_MODELS = {1: _MODELS / "aluette-ppo-v1.onnx", 2: _MODELS / "aluette-ppo-v2.onnx",
                  3: _MODELS / "aluette-ppo-v3.onnx", 4: _MODELS / "aluette-ppo-v4.onnx",
                  5: _MODELS / "aluette-ppo-v5.onnx", 6: _MODELS / "aluette-ppo-v6.onnx",
                  7: _MODELS / "aluette-ppo-v7.onnx"}
LATEST_VERSION = max(SHIPPED_MODELS)
SHIPPED_MODEL = SHIPPED_MODELS[LATEST_VERSION]  # the model ``ai`` loads

OPTIONS = {"temperature": TEMPERATURE, "seed": SEED}
VERSION = Option(int, LATEST_VERSION, "which shipped model: 1 (aluette-ppo-v1), 2 "
                 "(aluette-ppo-v2), 3 (aluette-ppo-v3), 4 (aluette-ppo-v4), 5 "
                 "(aluette-ppo-v5, the first to read the order of play), 6 "
                 "(aluette-ppo-v6: trained beside many partners) or 7 (aluette-ppo-v7, "
                 "the default: made from nothing by configs/recipe_v7.yaml)",
                 check=lambda v: v in SHIPPED_MODELS,
                 allowed=" or ".join(str(v) for v in SHIPPED_MODELS))


class ModelError(PlayerSpecError):
    """A missing, truncated, non-ONNX or mismatched model (one-line message)."""


#: Largest model file read (the shipped ones are well under 1 MB).
MAX_MODEL_BYTES = 512 << 20


def _session(path, ort):
    from .._files import read_regular
    path = Path(path)
    shown = str(path) if len(str(path)) <= 200 else str(path)[:200] + "..."
    try:
        model = read_regular(path, MAX_MODEL_BYTES)  # never a pipe, a device or a folder
    except FileNotFoundError:
        raise ModelError(f"{shown}: no such model file") from None
    except OSError as err:
        raise ModelError(f"{shown}: {err.strerror or err}") from None
    try:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        return ort.InferenceSession(model, sess_options=opts,
                                    providers=["CPUExecutionProvider"])
    except Exception as err:  # noqa: BLE001 - onnxruntime raises its own types
        first = str(err).strip().splitlines()[0][:160] if str(err).strip() else type(err).__name__
        raise ModelError(f"{path}: not a readable ONNX model ({first})") from None


class OnnxPlayer(BatchPlayer):
    """A policy exported by ``aluette export``; greedy unless ``temperature`` is set."""

    def __init__(self, path: str | os.PathLike, temperature: float | None = None,
                 seed: int | None = None, name: str | None = None):
        import onnxruntime as ort
        if temperature is not None and not (1e-3 <= float(temperature) <= 100):
            raise ModelError(f"temperature must be from 0.001 to 100 (or None for greedy), "
                             f"got {temperature!r}")
        self.path = Path(path)
        self.session = _session(self.path, ort)
        self.metadata = dict(self.session.get_modelmeta().custom_metadata_map)
        #: The observation layout the model reads, and its width (a prefix of OBS_SIZE).
        self.obs_layout = _check_model(self.path, self.session, self.metadata)
        self.obs_width = obs_size(self.obs_layout)
        #: A model of the signs variant: it makes its signs and reads them itself,
        #: and plays only at a table with signs.
        self.plays_signs = self.signs_only = self.obs_layout == SIGNS_OBS_LAYOUT
        self.num_actions = NUM_ACTIONS if self.plays_signs else NUM_CARDS
        self.temperature = None if temperature is None else float(temperature)
        self.rng = np.random.default_rng(seed)
        self.name = name or self.path.name
        self._buf = np.zeros((1, self.obs_width), np.float32)
        self._mbuf = np.zeros((1, self.num_actions), np.float32)
        self._check_finite()

    @property
    def obs_version(self) -> int:
        """Deprecated: :attr:`obs_layout` (its name until the layout was named for what it is)."""
        warnings.warn("OnnxPlayer.obs_version is deprecated; use OnnxPlayer.obs_layout",
                      DeprecationWarning, stacklevel=2)
        return self.obs_layout

    def _check_finite(self) -> None:
        """ModelError unless the model's logits of the legal actions are finite on
        :func:`probe_positions` (a model with a NaN or infinite weight plays its
        first legal card, or makes training fail long after its start)."""
        obs, masks = probe_positions(ALUETTE_SIGNS_V0 if self.plays_signs else ALUETTE_V1)
        try:
            logits = np.asarray(self.logits(obs, masks), np.float64)
        except Exception as err:  # noqa: BLE001 - onnxruntime raises its own types
            first = str(err).strip().splitlines()[0][:160] if str(err).strip() else \
                type(err).__name__
            raise ModelError(f"{self.path}: fails on real positions ({first})") from None
        if logits.shape != masks.shape:
            raise ModelError(f"{self.path}: logits of shape {_shown(logits.shape)} for "
                             f"{len(obs)} positions; expected {list(masks.shape)}")
        bad = int((~np.isfinite(logits) & (masks > 0)).any(1).sum())
        if bad:
            raise ModelError(f"{self.path}: its logits are NaN or infinite on {bad} of "
                             f"{len(obs)} real positions (NaN or infinite weights?); not a "
                             f"playable policy")

    def reset(self, seed: int | None = None) -> None:
        if checked_seed(seed) is not None:
            self.rng = np.random.default_rng(seed)

    def logits(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The model's raw logits ([N, 48]) for observations of today's
        ``OBS_LAYOUT`` (the model reads its own layout's prefix)."""
        return self.session.run(["logits"], {
            "observation": np.asarray(np.asarray(observations)[:, :self.obs_width], np.float32),
            "action_mask": np.asarray(masks, np.float32)})[0]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        try:
            self._buf[0] = observation[:self.obs_width]
            self._mbuf[0] = action_mask
        except (ValueError, TypeError, IndexError):  # a shape numpy cannot fit in the buffers
            raise ValueError(f"an observation and an action mask must be [{self.obs_width}] "
                             f"(or longer) and [{self._mbuf.shape[1]}], got "
                             f"{np.shape(observation)} and {np.shape(action_mask)}") from None
        if not self._mbuf.any():
            raise ValueError("the action mask has no legal card")
        return int(self._choose(self.logits(self._buf, self._mbuf), self._mbuf)[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if len(observations) == 0:
            return np.zeros(0, np.int64)
        observations, masks = check_batch(observations, masks,
                                          variant=ALUETTE_SIGNS_V0 if self.plays_signs else None)
        if masks.shape[1] != self.num_actions:
            raise ValueError(f"{self.name} is a policy of the signs variant: it plays at a "
                             f"table with signs (observations of {self.obs_width} entries, "
                             f"masks of {self.num_actions}), got masks of {masks.shape[1]}")
        return self._choose(self.logits(observations, masks), masks)

    def probabilities(self, observations: np.ndarray, masks: np.ndarray,
                      temperature: float = 1.0) -> np.ndarray:
        """Each card's probability under the model at ``temperature`` ([N, 48];
        0 for an illegal card)."""
        return _softmax(_masked(self.logits(observations, masks), masks), temperature)

    def _choose(self, logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
        z = _masked(logits, masks)
        if self.temperature is None:
            return z.argmax(1)
        p = _softmax(z, self.temperature)
        legal = np.asarray(masks) > 0
        u = self.rng.random((len(p), 1))
        choice = np.minimum((p.cumsum(1) < u).sum(1), np.int64(self.num_actions - 1))
        # Rounding can step onto an illegal card after the last legal one.
        bad = ~legal[np.arange(len(p)), choice]
        choice[bad] = z[bad].argmax(1)
        return choice


@functools.cache
def probe_positions(variant: Variant = ALUETTE_V1) -> tuple[np.ndarray, np.ndarray]:
    """A few real positions, on which a model's logits must be finite when it
    loads: two seeded deals of ``variant`` played at random on the game core
    (signs too, in a game with signs), each seat's first decisions (a whole hand: the second deal deals
    the first one's unused cards, so every action is legal somewhere) and every
    ninth decision after, as float32 observations (today's OBS_LAYOUT, or the
    signs variant's) and the variant's legal-action masks. Built once a process."""
    rng = random.Random(59)
    deck = rng.sample(range(NUM_CARDS), NUM_CARDS)
    encode = encode_signs_observation if variant.signs else encode_observation
    obs, masks = [], []
    for dealer in range(2):
        deal = variant.new_match(first_dealer=dealer, num_deals=1).deal_deck(deck)
        deck = deck[-NUM_UNUSED:] + deck[:-NUM_UNUSED]  # R5: the unused cards are the last
        decision = 0
        while deal.record is None:
            legal = variant.legal_actions(deal.state)
            mask = np.zeros(variant.num_actions, np.float32)
            mask[legal] = 1
            if deal.trick_index == 0 or decision % 9 == 0:
                obs.append(encode(deal, deal.to_act).astype(np.float32))
                masks.append(mask)
            action = rng.choice(legal)
            if deal.signing:
                deal.sign(action - SIGN_BASE)
            else:
                deal.play(action)
            decision += 1
    obs, masks = np.stack(obs), np.stack(masks)
    obs.setflags(write=False)  # shared by every load
    masks.setflags(write=False)
    return obs, masks


def _masked(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Float64 logits with the illegal cards at -inf. The mask is applied here,
    not trusted to the model; a non-finite logit of a legal card counts as the
    weakest legal choice (or the strongest: +inf)."""
    finite = np.nan_to_num(np.asarray(logits, np.float64), nan=-1e300, posinf=1e300,
                           neginf=-1e300)
    return np.where(np.asarray(masks) > 0, finite, -np.inf)


def _softmax(z: np.ndarray, temperature: float) -> np.ndarray:
    p = np.exp((z - z.max(1, keepdims=True)) / temperature)
    return p / p.sum(1, keepdims=True)


def _shown(value: object) -> str:
    """A value read from a model file as an error shows it: at most 40 characters
    (a file may carry anything in its metadata and names)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def _whole_number(text: str) -> int:
    """A number of the metadata as ``aluette export`` writes it: ASCII digits in
    canonical form ("2"; not " 2 ", "02", "+2" or "\u0662", which int() reads too);
    ValueError otherwise."""
    if not (text.isascii() and text.isdigit() and text == str(int(text))):
        raise ValueError(f"not a whole number in canonical form: {_shown(text)}")
    return int(text)


def _check_model(path: Path, session, metadata: dict[str, str]) -> int:
    """Metadata, input and output names and shapes of an Aluette policy; its
    observation layout, or ModelError. What the file says is shown cut short."""
    written = saved_layout(metadata)
    if written is None:
        raise ModelError(f"{path}: no {LAYOUT_KEY} in its metadata; not an Aluette policy")
    try:
        layout = _whole_number(written)
        sizes = _whole_number(metadata.get("obs_size", "0")), \
            _whole_number(metadata.get("num_actions", "0"))
    except ValueError:  # not a number, or a number of more digits than int() reads
        raise ModelError(f"{path}: unreadable metadata ({LAYOUT_KEY} {_shown(written)}, obs_size "
                         f"{_shown(metadata.get('obs_size'))}, num_actions "
                         f"{_shown(metadata.get('num_actions'))})") from None
    if layout not in LAYOUT_ENDS_BEFORE and layout != SIGNS_OBS_LAYOUT:
        raise ModelError(f"{path}: exported for observation layout {_shown(layout)}, this "
                         f"environment reads observation layouts {min(LAYOUT_ENDS_BEFORE)} to "
                         f"{OBS_LAYOUT} (and {SIGNS_OBS_LAYOUT}, the signs "
                         f"variant's); re-export it from its checkpoint")
    width = obs_size(layout)
    actions = NUM_ACTIONS if layout == SIGNS_OBS_LAYOUT else NUM_CARDS
    if sizes != (width, actions):
        raise ModelError(f"{path}: observation/action sizes {_shown(sizes[0])}/"
                         f"{_shown(sizes[1])} differ from observation layout {layout}'s "
                         f"{width}/{actions}")
    expected = {"observation": width, "action_mask": actions}
    inputs = {i.name: i.shape for i in session.get_inputs()}
    outputs = {o.name: o.shape for o in session.get_outputs()}
    if set(inputs) != set(expected) or "logits" not in outputs:
        raise ModelError(f"{path}: inputs {_shown(sorted(inputs))} and outputs "
                         f"{_shown(sorted(outputs))}; "
                         f"an Aluette policy has inputs ['action_mask', 'observation'] and "
                         f"output 'logits'")
    for name, size in (*expected.items(), ("logits", actions)):
        shape = inputs.get(name) or outputs.get(name)
        if len(shape) != 2 or shape[1] != size:
            raise ModelError(f"{path}: {name} has shape {_shown(shape)}; expected [batch, "
                             f"{size}]")
    return layout


def onnx_player(path: str, temperature: float | None = None,
                seed: int | None = None) -> OnnxPlayer:
    return OnnxPlayer(path, temperature=temperature, seed=seed,
                      name=Path(path).name if temperature is None
                      else f"{Path(path).name}:temperature={temperature:g}")


def shipped_player(seed: int | None = None, temperature: float | None = None,
                   version: int = LATEST_VERSION) -> OnnxPlayer:
    """A shipped AI (spec ``ai``, ``ai:version=1``)."""
    path = SHIPPED_MODELS[version]
    if not path.exists():
        raise ModelError(f"{path}: the shipped model is missing from this installation")
    name = "ai" if version == LATEST_VERSION else f"ai:version={version}"
    return OnnxPlayer(path, temperature=temperature, seed=seed, name=name)


shipped_player.OPTIONS = {**OPTIONS, "version": VERSION}  # type: ignore[attr-defined]

#: Entry point ``aluette.loaders: onnx``.
LOADER = Loader("onnx", accepts=lambda path: path.endswith(".onnx"), load=onnx_player,
                options=OPTIONS)
