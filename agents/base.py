"""The agent interface: one action per game, for a whole batch at once."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Optional

import numpy as np


class Agent(ABC):
    """A policy for a batch of games.

    ``act`` gets ``obs`` (``(n, SPEC.size)`` uint8, each row the view of the
    player to act in one game) and ``mask`` (``(n, 151)`` bool, his legal
    actions) and returns ``(n,)`` int64 legal action ids. An agent sees
    nothing else, so it can sit at any seat of any table, batched or not.
    Randomness comes from the agent's own generator, seeded by :meth:`reset`.
    """

    name = "agent"
    reads_records = True
    """Whether ``act`` reads the record sections of the view (:data:`~briscola_env.observation.RECORDS`).
    An agent that does not may be given views cut short before them (``(n, RECORDS.start)``):
    search rollouts then skip building them."""

    def __init__(self, seed: Optional[int] = None):
        self.reset(seed)

    def reset(self, seed: Optional[int] = None) -> None:
        """Reseed the agent's generator (and forget anything it remembered)."""
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        ...

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
