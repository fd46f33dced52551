"""Exported policies (``.onnx``) as players, with onnxruntime only.

Importing this module never imports torch or stable_baselines3: an exported
AI runs anywhere onnxruntime does. The model's inputs are ``observation``
(float32 [batch, OBS_SIZE]) and ``action_mask`` (float32 [batch, 48]); its
output ``logits`` has illegal cards at -1e9. ``metadata_props`` carry
``obs_version``, ``obs_size``, ``num_actions``, the project version, the
training config, the steps trained and the evaluation summary.

Spec: ``path/to/model.onnx`` (greedy) or ``path/to/model.onnx::temperature=0.7``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .cards import NUM_CARDS
from .observation import OBS_SIZE, OBS_VERSION
from .players import BatchPlayer, PlayerSpecError, register_loader, register_player

#: The shipped AI (``aluette-ppo-v1.onnx``), the default player of ``aluette play``.
SHIPPED_MODEL = Path(__file__).resolve().parents[1] / "checkpoints" / "aluette-ppo-v1.onnx"


class ModelError(PlayerSpecError):
    """A missing, truncated, non-ONNX or mismatched model (one-line message)."""


def read_metadata(path: str | os.PathLike) -> dict[str, str]:
    import onnxruntime as ort
    return dict(_session(path, ort).get_modelmeta().custom_metadata_map)


def _session(path, ort):
    path = Path(path)
    if not path.exists():
        raise ModelError(f"{path}: no such model file")
    try:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        return ort.InferenceSession(str(path), sess_options=opts,
                                    providers=["CPUExecutionProvider"])
    except Exception as err:  # noqa: BLE001 - onnxruntime raises its own types
        first = str(err).strip().splitlines()[0][:160] if str(err).strip() else type(err).__name__
        raise ModelError(f"{path}: not a readable ONNX model ({first})") from None


class OnnxPlayer(BatchPlayer):
    """A policy exported by ``aluette export``; greedy unless ``temperature > 0``."""

    def __init__(self, path: str | os.PathLike, temperature: float = 0.0, seed: int | None = None,
                 name: str | None = None):
        import onnxruntime as ort
        self.path = Path(path)
        self.session = _session(self.path, ort)
        self.metadata = dict(self.session.get_modelmeta().custom_metadata_map)
        version = self.metadata.get("obs_version")
        if version is None:
            raise ModelError(f"{self.path}: no obs_version in its metadata; not an Aluette policy")
        if int(version) != OBS_VERSION:
            raise ModelError(f"{self.path}: exported for OBS_VERSION {version}, this environment "
                             f"uses OBS_VERSION {OBS_VERSION}; re-export it from its checkpoint")
        if int(self.metadata.get("obs_size", -1)) != OBS_SIZE or \
                int(self.metadata.get("num_actions", -1)) != NUM_CARDS:
            raise ModelError(f"{self.path}: observation/action sizes "
                             f"{self.metadata.get('obs_size')}/{self.metadata.get('num_actions')} "
                             f"differ from {OBS_SIZE}/{NUM_CARDS}")
        self.temperature = float(temperature)
        self.rng = np.random.default_rng(seed)
        self.name = name or self.path.name
        self._buf = np.zeros((1, OBS_SIZE), np.float32)
        self._mbuf = np.zeros((1, NUM_CARDS), np.float32)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def logits(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return self.session.run(["logits"], {
            "observation": np.asarray(observations, np.float32),
            "action_mask": np.asarray(masks, np.float32)})[0]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self._buf[0] = observation
        self._mbuf[0] = action_mask
        return int(self._choose(self.logits(self._buf, self._mbuf), self._mbuf)[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if len(observations) == 0:
            return np.zeros(0, np.int64)
        return self._choose(self.logits(observations, masks), masks)

    def _choose(self, logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if self.temperature <= 0:
            return logits.argmax(1)
        z = logits / self.temperature
        z = z - z.max(1, keepdims=True)
        p = np.exp(z) * (np.asarray(masks) > 0)
        p /= p.sum(1, keepdims=True)
        u = self.rng.random((len(p), 1))
        return np.minimum((p.cumsum(1) < u).sum(1), NUM_CARDS - 1)


def _parse(spec: str) -> tuple[str, float]:
    path, _, opts = spec.partition("::")
    temperature = 0.0
    if opts:
        key, _, value = opts.partition("=")
        try:
            if key != "temperature":
                raise ValueError
            temperature = float(value)
        except ValueError:
            raise ModelError(f"player spec {spec!r}: options are '::temperature=T'") from None
    return path, temperature


def onnx_player(spec: str, seed: int | None = None) -> OnnxPlayer:
    path, temperature = _parse(spec)
    return OnnxPlayer(path, temperature=temperature, seed=seed, name=spec)


def shipped_player(seed: int | None = None, temperature: float = 0.0) -> OnnxPlayer:
    """The shipped AI (spec ``ai``)."""
    if not SHIPPED_MODEL.exists():
        raise ModelError(f"{SHIPPED_MODEL}: the shipped model is missing from this checkout")
    return OnnxPlayer(SHIPPED_MODEL, temperature=temperature, seed=seed, name="ai")


register_loader(lambda spec: spec.partition("::")[0].endswith(".onnx"), onnx_player)
register_player("ai", shipped_player)
