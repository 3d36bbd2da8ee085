"""Per-agent statistics of evaluation games: payoff by role, auction and play."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from agents import HeuristicAgent
from briscola_env.actions import MIN_POINTS, POINT_BID_OFFSET
from briscola_env.cards import TOTAL_POINTS
from briscola_env.engine import Role, State, seat_roles

from .bootstrap import bootstrap_ci

# The roles reported, by the names the reports give them: the defenders of a solo count as defenders.
ROLES = {"caller": Role.CALLER, "partner": Role.PARTNER, "defender": Role.DEFENDER, "solo": Role.SOLO_CALLER}


def roles(state: State) -> np.ndarray:
    """``(G, seats)`` the reported :class:`Role` of each seat (one of :data:`ROLES`), -1 in a void hand."""
    role = np.full(state.rewards.shape, -1, dtype=np.int64)
    played = np.flatnonzero(state.caller >= 0)
    seat = seat_roles(state.caller[played], state.hidden.partner[played], state.tables.shape.seats)
    role[played] = np.where(seat == Role.SOLO_DEFENDER, Role.DEFENDER, seat)
    return role


@dataclass
class AgentStats:
    hands: int
    mean_payoff: float
    mean_payoff_ci: tuple  # 95% bootstrap interval over deals
    role_share: dict  # role -> share of hands
    role_payoff: dict  # role -> mean payoff in that role (None if never)
    auction_win_rate: float  # hands it was the caller
    success_rate: float  # of its contracts, the share made
    solo_rate: float  # of its contracts, the share played solo
    points_bid_rate: float  # of its contracts, the share won in points
    mean_point_contract: float  # mean points of its point contracts (None if none)
    mean_captured_points: float  # card points its own seat took
    cappotto_rate: float  # hands its side took every point or every trick
    mean_top_bid: float  # its highest bid in a hand (an action id; 0 if it only passed), on average
    bid_strength_correlation: float  # of its highest bid with the heuristic's value of the hand dealt (None if flat)

    def as_dict(self) -> dict:
        return asdict(self)


def agent_stats(state: State, seat_of: np.ndarray, deal_of: np.ndarray, ci_rng: np.random.Generator,
                dealt: np.ndarray) -> AgentStats:
    """Statistics of the agent sitting at ``seat_of[g]`` in each game ``g`` of ``state``;
    ``deal_of[g]`` (0..D-1) groups the games by deal for the bootstrap; ``dealt`` ``(G, 40)``
    bool is the hand it was dealt."""
    games = np.arange(state.batch_size)
    seat_of = np.asarray(seat_of)
    payoff = state.rewards[games, seat_of]
    role = roles(state)[games, seat_of]
    calls = (role == Role.CALLER) | (role == Role.SOLO_CALLER)
    point_contract = calls & (state.high_bid >= POINT_BID_OFFSET)
    side = (role >= 0) & (role != Role.DEFENDER)
    team = np.where(side, state.team_points, TOTAL_POINTS - state.team_points)
    caller_tricks = (state.tricks_won[games, np.maximum(state.caller, 0)]
                     + state.tricks_won[games, np.maximum(state.hidden.partner, 0)]
                     * (state.hidden.partner != state.caller))
    every_trick = state.tables.shape.tricks  # 8, 7 with a monte, 10 at four seats
    tricks = np.where(side, caller_tricks, every_trick - caller_tricks)
    cappotto = (role >= 0) & ((team == TOTAL_POINTS) | (tricks == every_trick))

    def mean(values, where) -> float | None:
        return float(values[where].mean()) if where.any() else None

    # Does it bid higher with a stronger hand? Its highest bid against the heuristic's hand value.
    mine = (state.auction_seats == seat_of[:, None]) & (state.auction_actions > 0)
    top_bid = np.where(mine, state.auction_actions, 0).max(axis=1).astype(float)
    strength = HeuristicAgent(state.rules).hand_value(dealt).astype(float)
    flat = top_bid.std() == 0 or strength.std() == 0
    correlation = None if flat else float(np.corrcoef(top_bid, strength)[0, 1])

    return AgentStats(
        hands=int(state.batch_size),
        mean_payoff=float(payoff.mean()),
        mean_payoff_ci=bootstrap_ci(np.bincount(deal_of, payoff) / np.bincount(deal_of), ci_rng),
        role_share={name: float((role == code).mean()) for name, code in ROLES.items()},
        role_payoff={name: mean(payoff, role == code) for name, code in ROLES.items()},
        auction_win_rate=float(calls.mean()),
        success_rate=mean(state.contract_made, calls),
        solo_rate=mean(role == Role.SOLO_CALLER, calls),
        points_bid_rate=mean(point_contract, calls),
        mean_point_contract=mean(state.high_bid.astype(np.int64) - POINT_BID_OFFSET + MIN_POINTS, point_contract),
        mean_captured_points=float(state.captured_points[games, seat_of].mean()),
        cappotto_rate=float(cappotto.mean()),
        mean_top_bid=float(top_bid.mean()),
        bid_strength_correlation=correlation,
    )
