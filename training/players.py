"""Torch policies as players, for every backend: greedy on the masked logits, or
sampled from softmax(logits / temperature) with a seeded generator. A backend's
player only says how it computes masked logits."""

from __future__ import annotations

import numpy as np
import torch

from aluette_env.players import BatchPlayer


class LogitsPlayer(BatchPlayer):
    """Greedy unless ``temperature`` is set (> 0); subclasses implement ``masked_logits``."""

    def __init__(self, name: str, temperature: float | None = None, seed: int | None = None):
        self.name = name
        self.temperature = 0.0 if temperature is None else float(temperature)
        self.generator = torch.Generator().manual_seed(seed if seed is not None else 0)

    def masked_logits(self, observations: np.ndarray, masks: np.ndarray) -> torch.Tensor:
        """[N, 48] logits with the illegal cards at -inf (no gradient)."""
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
