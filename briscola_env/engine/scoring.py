"""Scoring a finished hand, in small named steps: team points, target,
multiplier, payoffs."""

from __future__ import annotations

import numpy as np

from ..cards import NUM_SEATS, NUM_TRICKS, TOTAL_POINTS
from .state import State
from .tables import RuleTables


def team_totals(state: State, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points and tricks of the caller's side (the caller alone for a solo)."""
    caller, partner = state.caller[g], state.hidden.partner[g]
    with_partner = partner != caller
    points = state.captured_points[g, caller] + state.captured_points[g, partner] * with_partner
    tricks = state.tricks_won[g, caller] + state.tricks_won[g, partner] * with_partner
    return points.astype(np.int16), tricks


def is_cappotto(state: State, points: np.ndarray, tricks: np.ndarray) -> np.ndarray:
    mode = state.rules.cappotto
    if mode == "points":
        return (points == TOTAL_POINTS) | (points == 0)
    if mode == "tricks":
        return (tricks == NUM_TRICKS) | (tricks == 0)
    return np.zeros(points.shape, dtype=bool)


def payoffs(state: State, g: np.ndarray, made: np.ndarray, multiplier: np.ndarray) -> np.ndarray:
    """``(n, 5)`` session points from the payoff table, signed by the result."""
    table = state.rules.payoff_table
    caller, partner = state.caller[g], state.hidden.partner[g]
    solo = partner == caller
    scale = np.where(made, multiplier, -multiplier).astype(np.float32)
    rows = np.arange(len(g))
    out = np.where(solo, table.solo_defender, table.defender).astype(np.float32)[:, None].repeat(NUM_SEATS, 1)
    out[rows[~solo], partner[~solo]] = table.partner
    out[rows, caller] = np.where(solo, table.solo_caller, table.caller)
    return out * scale[:, None]


def score(state: State, tables: RuleTables, g: np.ndarray) -> None:
    """Write the result and the rewards of the games ``g``, whose last trick is done."""
    points, tricks = team_totals(state, g)
    bid = state.high_bid[g]
    made = points >= tables.target[bid]
    multiplier = tables.multiplier[bid] * np.where(is_cappotto(state, points, tricks),
                                                   state.rules.cappotto_multiplier, 1).astype(np.int16)
    state.team_points[g] = points
    state.contract_made[g] = made
    state.multiplier[g] = multiplier
    state.rewards[g] = payoffs(state, g, made, multiplier)
