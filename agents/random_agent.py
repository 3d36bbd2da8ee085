"""The random agent: uniform over the legal actions."""

from __future__ import annotations

import numpy as np

from .base import Agent


class RandomAgent(Agent):
    """Picks each game's action uniformly among its legal ones."""

    name = "random"
    reads_history = False

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if not mask.any(axis=1).all():
            raise ValueError("every game passed to act() needs at least one legal action")
        # The legal action with the highest uniform key is a uniform choice among them.
        keys = np.where(mask, self.rng.random(mask.shape), -1.0)
        return keys.argmax(axis=1)
