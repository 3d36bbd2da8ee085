"""The codes of the game's phases and roles: one numbering for the engine, the views, the
reference game, the agents and the evaluation.

They are plain ints in a namespace class rather than IntEnum members: the engine compares its
int8 arrays with them at every step, and NumPy compares an array with a plain int several times
faster than with an IntEnum member (which it first turns into an int64 array).
"""

from __future__ import annotations

import numpy as np


class Phase:
    """The phases of a hand: the values of ``State.phase`` and of ``ReferenceGame.phase``, the order
    of the views' ``phase`` section. A standard hand goes through the first four in order;
    ``DISCARD`` (the caller's discards after taking the monte, ``RulesConfig.monte``) comes between
    the auction and the call, but is numbered last so that the standard game's codes and views stay
    what they were."""

    AUCTION = 0
    CALL = 1
    PLAY = 2
    DONE = 3
    DISCARD = 4


class Role:
    """The roles at the table once the auction is won, indexing ``RuleTables.payoff_by_role``;
    named as the fields of :class:`~briscola_env.rules.PayoffTable`."""

    CALLER = 0
    PARTNER = 1  # the holder of the called card, when it is not the caller
    DEFENDER = 2  # against a caller and a partner
    SOLO_CALLER = 3  # a caller who called a card of his own
    SOLO_DEFENDER = 4  # against a solo caller


def code_names(codes: type) -> tuple[str, ...]:
    """The lower-case names of the codes of ``codes`` (:class:`Phase` or :class:`Role`), indexed by code."""
    named = {value: name.lower() for name, value in vars(codes).items() if name.isupper()}
    if sorted(named) != list(range(len(named))):
        raise ValueError(f"the codes of {codes.__name__} must be 0, 1, ... with one name each")
    return tuple(named[code] for code in range(len(named)))


PHASE_NAMES = code_names(Phase)  # ("auction", "call", "play", "done", "discard")
ROLE_NAMES = code_names(Role)  # ("caller", "partner", "defender", "solo_caller", "solo_defender")

# Each role with the solo told apart no more: a solo caller is a caller, his defenders defenders.
WITHOUT_SOLO = np.array([Role.CALLER, Role.PARTNER, Role.DEFENDER, Role.CALLER, Role.DEFENDER], dtype=np.int64)
assert len(WITHOUT_SOLO) == len(ROLE_NAMES)
