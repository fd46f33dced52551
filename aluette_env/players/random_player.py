"""``random``: uniform over the legal cards, reproducible from its seed."""

from __future__ import annotations

import numpy as np

from . import SEED, BatchPlayer, check_batch, checked_seed


class RandomPlayer(BatchPlayer):
    """Uniform over the legal cards, reproducible from its seed."""

    OPTIONS = {"seed": SEED}

    def __init__(self, seed: int | None = None):
        self.name = "random" if seed is None else f"random:seed={seed}"
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if checked_seed(seed) is not None:
            self.rng = np.random.default_rng(seed)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        _, masks = check_batch(observations, masks)
        return (self.rng.random(masks.shape) * masks).argmax(1) if len(masks) else \
            np.zeros(0, np.int64)
