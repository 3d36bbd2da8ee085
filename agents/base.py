"""The agent interface: one action per game, for a whole batch at once."""

from __future__ import annotations

from abc import ABC, abstractmethod
import math
from numbers import Integral, Real
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
    reads_history = True
    """Whether ``act`` reads the history sections of the view (:data:`~briscola_env.observation.HISTORY`).
    An agent that does not may be given views cut short before them (``(n, HISTORY.start)``):
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


def check_number(owner: str, name: str, value, integer: bool = False,
                 least: Optional[float] = None, most: Optional[float] = None):
    """``value`` of an agent's option ``name`` as an int (``integer``) or a float, within
    ``least..most`` (either end open when None); else a ValueError saying what is allowed."""
    kind = "an int" if integer else "a finite number"
    if least is not None and most is not None:
        allowed = f"{kind} in {least}..{most}"
    else:
        allowed = kind + (f" >= {least}" if least is not None else "") + (f" <= {most}" if most is not None else "")
    ok = isinstance(value, Integral if integer else Real) and not isinstance(value, bool) and math.isfinite(value) \
        and (least is None or value >= least) and (most is None or value <= most)
    if not ok:
        raise ValueError(f"{owner}: {name} must be {allowed}; got {value!r}")
    return int(value) if integer else float(value)
