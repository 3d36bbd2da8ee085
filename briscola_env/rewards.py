"""What a finished hand pays each seat, under the reward options of the
environments: ``"payoff"`` (session points, the default), ``"points"``
(the card points of one's side, over 120) or ``"win_loss"`` (+1 for the
winning side, -1 for the losing one)."""

from __future__ import annotations

import numpy as np

from .cards import NUM_SEATS, TOTAL_POINTS
from .engine import State

REWARD_MODES = ("payoff", "points", "win_loss")


def check_reward_mode(mode: str) -> str:
    if mode not in REWARD_MODES:
        raise ValueError(f"reward must be one of {', '.join(map(repr, REWARD_MODES))}; got {mode!r}")
    return mode


def hand_rewards(state: State, g: np.ndarray, mode: str) -> np.ndarray:
    """``(len(g), 5)`` float32 rewards of the finished games ``g`` (0 for a void hand)."""
    if mode == "payoff":
        return state.rewards[g]
    caller, partner = state.caller[g], state.hidden.partner[g]
    seats = np.arange(NUM_SEATS)
    with_caller = (seats == caller[:, None]) | (seats == partner[:, None])
    played = caller >= 0  # not a void hand
    if mode == "points":
        team = state.team_points[g].astype(np.float32)[:, None]
        return np.where(with_caller, team, TOTAL_POINTS - team) * played[:, None] / TOTAL_POINTS
    made = np.where(state.contract_made[g], 1.0, -1.0)[:, None]
    return (np.where(with_caller, made, -made) * played[:, None]).astype(np.float32)
