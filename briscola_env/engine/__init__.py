"""The batched rules engine: pure functions over a :class:`State` of arrays."""

from .core import init, init_from_deals, random_actions, reset_done, step, step_inplace
from .deal import MAX_SEED, deal_from_seeds, hands_to_deal
from .state import AUCTION, CALL, DONE, MAX_AUCTION_LENGTH, PHASE_NAMES, PLAY, Hidden, State, concatenate

__all__ = [
    "init", "init_from_deals", "step", "step_inplace", "reset_done", "random_actions",
    "deal_from_seeds", "hands_to_deal", "MAX_SEED", "State", "Hidden", "concatenate",
    "AUCTION", "CALL", "PLAY", "DONE", "PHASE_NAMES", "MAX_AUCTION_LENGTH",
]
