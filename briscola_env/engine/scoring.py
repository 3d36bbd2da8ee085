"""Scoring a finished hand, in small named steps: team points, target,
multiplier, payoffs."""

from __future__ import annotations

import numpy as np

from ..cards import NUM_SEATS, TOTAL_POINTS
from .bits import to_bool
from .state import State
from .codes import Role
from .tables import RuleTables


def team_totals(state: State, tables: RuleTables, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points and tricks of the caller's side (the caller alone for a solo), the discards' points
    with a monte (they count for the caller)."""
    seats = tables.shape.seats
    at_caller = g * seats + state.caller[g]
    at_partner = g * seats + state.hidden.partner[g]
    with_partner = at_partner != at_caller
    points, tricks = state.captured_points.reshape(-1), state.tricks_won.reshape(-1)
    team = points[at_caller] + points[at_partner] * with_partner
    if state.hidden.discards is not None:
        team = team + discard_points(state, tables, g)
    return team, tricks[at_caller] + tricks[at_partner] * with_partner


def discard_points(state: State, tables: RuleTables, g: np.ndarray) -> np.ndarray:
    """``(n,)`` int16, the card points of the caller's discards in the games ``g``."""
    discards = state.hidden.discards
    assert discards is not None, "discards are kept in games with a monte only"
    return to_bool(discards[g, None], len(tables.points)) @ tables.points


def is_cappotto(state: State, tables: RuleTables, points: np.ndarray, tricks: np.ndarray) -> np.ndarray:
    mode = state.rules.cappotto
    if mode == "points":
        return (points == TOTAL_POINTS) | (points == 0)
    if mode == "tricks":
        return (tricks == tables.shape.tricks) | (tricks == 0)
    return np.zeros(points.shape, dtype=bool)


def seat_roles(caller: np.ndarray, partner: np.ndarray, seats: int = NUM_SEATS) -> np.ndarray:
    """``(n, seats)`` the :class:`Role` of every seat, in games with a caller (``caller >= 0``) and
    their ``partner`` (the caller himself for a solo), at a table of ``seats`` (5 by default)."""
    solo = partner == caller
    role = np.where(solo, Role.SOLO_DEFENDER, Role.DEFENDER)[:, None].repeat(seats, axis=1)
    flat = role.reshape(-1)
    at = np.arange(len(caller)) * seats
    flat[at + partner] = Role.PARTNER  # overwritten just below for a solo
    flat[at + caller] = np.where(solo, Role.SOLO_CALLER, Role.CALLER)
    return role


def payoffs(state: State, tables: RuleTables, g: np.ndarray, made: np.ndarray,
            multiplier: np.ndarray) -> np.ndarray:
    """``(n, seats)`` session points from the payoff table, signed by the result."""
    role = seat_roles(state.caller[g], state.hidden.partner[g], tables.shape.seats)
    return tables.payoff_by_role[role] * np.where(made, multiplier, -multiplier)[:, None]


def score(state: State, tables: RuleTables, g: np.ndarray) -> None:
    """Write the result and the rewards of the games ``g``, whose last trick is done."""
    points, tricks = team_totals(state, tables, g)
    bid = state.high_bid[g]
    made = points >= tables.target[bid]
    multiplier = tables.multiplier[bid] * np.where(is_cappotto(state, tables, points, tricks),
                                                   state.rules.cappotto_multiplier, 1).astype(np.int16)
    state.team_points[g] = points
    state.contract_made[g] = made
    state.multiplier[g] = multiplier
    state.rewards[g] = payoffs(state, tables, g, made, multiplier)
