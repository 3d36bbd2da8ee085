"""The batched rules engine: pure functions over a :class:`State` of arrays."""

from .codes import PHASE_NAMES, ROLE_NAMES, WITHOUT_SOLO, Phase, Role
from .core import (init, init_from_deals, is_legal_one, legal_set_one, random_actions, reset_done, step, step_inplace,
                   step_one)
from .deal import MAX_SEED, deal_from_seeds, hands_to_deal
from .scoring import seat_roles
from .state import MAX_AUCTION_LENGTH, Hidden, State, concatenate

__all__ = [
    "init", "init_from_deals", "step", "step_inplace", "step_one", "is_legal_one", "legal_set_one", "reset_done",
    "random_actions",
    "deal_from_seeds", "hands_to_deal", "MAX_SEED", "State", "Hidden", "concatenate",
    "Phase", "Role", "PHASE_NAMES", "ROLE_NAMES", "WITHOUT_SOLO", "seat_roles", "MAX_AUCTION_LENGTH",
]
