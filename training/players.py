"""Torch policies as players, for every backend: greedy on the masked logits, or
sampled from softmax(logits / temperature) with a seeded generator. A backend's
player only says how it computes masked logits."""

from __future__ import annotations

import numpy as np
import torch

from aluette_env.players import BatchPlayer

#: The logit of an illegal card, wherever training masks one: the learner's
#: log-softmax, players' greedy and sampled choices, and exported models' output
#: (``logits``, read by :mod:`aluette_env.players.onnx_policy`). Finite, so ONNX
#: runtimes and softmax stay well defined; far enough below any real logit that
#: exp() of it is 0 in float32 (sampling never draws it); the learner's entropy
#: clamps it at -80 before its exp(), so no gradient depends on its value.
ILLEGAL_LOGIT = -1e9


def mask_logits(logits: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with the illegal cards (``action_mask`` 0) at :data:`ILLEGAL_LOGIT`."""
    if not isinstance(action_mask, torch.Tensor):  # as_tensor would be a constant in a trace
        action_mask = torch.as_tensor(action_mask)
    return logits.masked_fill(action_mask <= 0, ILLEGAL_LOGIT)


class LogitsPlayer(BatchPlayer):
    """Greedy unless ``temperature`` is set (> 0); subclasses implement ``masked_logits``."""

    def __init__(self, name: str, temperature: float | None = None, seed: int | None = None):
        self.name = name
        self.temperature = 0.0 if temperature is None else float(temperature)
        self.generator = torch.Generator().manual_seed(seed if seed is not None else 0)

    def masked_logits(self, observations: np.ndarray, masks: np.ndarray) -> torch.Tensor:
        """[N, 48] logits with the illegal cards at :data:`ILLEGAL_LOGIT` (no gradient)."""
        raise NotImplementedError

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if len(observations) == 0:
            return np.zeros(0, np.int64)
        with torch.no_grad():
            logits = self.masked_logits(observations, masks)
            if self.temperature <= 0:
                return logits.argmax(1).numpy()
            probs = torch.softmax(logits / self.temperature, dim=1)
            return torch.multinomial(probs, 1, generator=self.generator)[:, 0].numpy()
