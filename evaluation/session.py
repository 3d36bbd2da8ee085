"""Sessions: matches of many hands, as docs/RULES.md describes them.

The deal passes to the next player each hand. A session ends after
``hands`` hands, or once a player's total reaches ``target``; the highest
total wins. With 6 players the dealer sits out each hand, with 7 the dealer
and the player before him: the five who play are always the five after the
dealer. Many sessions are played at once, hand by hand.

At a table of four (``RulesConfig(players=4)``) a session has four players: RULES.md has players
sit out only so that five play, so no other size is played there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Union

import numpy as np

from agents import Agent, make_agent
from agents.play import play_games
from briscola_env import engine
from briscola_env.cards import NUM_SEATS
from briscola_env.rules import RulesConfig, resolve_rules

TABLE_SIZES = (5, 6, 7)  # players of a session of five-seat hands: five play, the others sit out


def table_sizes(seats: int = NUM_SEATS) -> tuple[int, ...]:
    """The players a session may have when ``seats`` play each hand: :data:`TABLE_SIZES` for five, else ``seats``."""
    return TABLE_SIZES if seats == NUM_SEATS else (seats,)


@dataclass
class SessionResult:
    totals: np.ndarray  # (S, P) each player's score at the end
    hands: np.ndarray  # (S,) hands played
    winners: np.ndarray  # (S, P) bool, the highest total (ties share)


def seat_players(dealer: np.ndarray, engine_dealer: np.ndarray, players: int, seats: int = NUM_SEATS) -> np.ndarray:
    """``(S, seats)``: the player at each engine seat. The engine's first speaker
    (``engine_dealer + 1``) is the player after the session's ``dealer``."""
    order = (np.arange(seats)[None, :] - engine_dealer[:, None] - 1) % seats  # 0 for the first speaker
    return (dealer[:, None] + 1 + order) % players


def play_sessions(agents: Sequence[Agent], players: np.ndarray, hands: Optional[int] = None,
                  target: Optional[float] = None, seed: int = 0, rules: Optional[RulesConfig] = None,
                  max_hands: int = 1000) -> SessionResult:
    """Play ``len(players)`` sessions; ``players[s, p]`` is the agent (index into
    ``agents``) of player ``p`` at session ``s``'s table of 5, 6 or 7 (of 4 under four-player rules)."""
    players = np.asarray(players)
    seats = resolve_rules(rules).table_shape.seats
    sizes = table_sizes(seats)
    if players.ndim != 2 or players.shape[1] not in sizes or len(players) < 1:
        allowed = ", ".join(map(str, sizes[:-1])) + " or " + str(sizes[-1]) if len(sizes) > 1 else str(sizes[0])
        why = "" if seats == NUM_SEATS else f" (a hand of these rules seats {seats}, and nobody sits out)"
        raise ValueError(f"players must be (sessions, {allowed}) agent indices, at least one session; "
                         f"got shape {players.shape}{why}")
    if hands is None and target is None:
        raise ValueError("a session needs an end: a number of hands, a target score, or both")
    if hands is not None and hands < 1:
        raise ValueError(f"hands must be at least 1; got {hands}")
    if target is not None and not 0 < target < np.inf:  # totals start at 0: a target of 0 or less ends at once
        raise ValueError(f"target must be a finite score above 0; got {target}")
    sessions, size = players.shape
    rng = np.random.default_rng(seed)
    dealer = rng.integers(0, size, sessions)
    totals = np.zeros((sessions, size))
    played = np.zeros(sessions, dtype=np.int64)
    live = np.ones(sessions, dtype=bool)
    limit = hands if hands is not None else max_hands
    while live.any() and played.max() < limit:
        s = np.flatnonzero(live)
        deal_seeds = rng.integers(0, engine.MAX_SEED, len(s))
        _, engine_dealer = engine.deal_from_seeds(deal_seeds, rules)
        at_seat = seat_players(dealer[s], engine_dealer.astype(np.int64), size, seats)  # (n, seats) player per seat
        state, _ = play_games(agents, players[s[:, None], at_seat], deal_seeds, rules)
        np.add.at(totals, (s[:, None], at_seat), state.rewards)
        played[s] += 1
        dealer[s] = (dealer[s] + 1) % size
        if target is not None:
            live[s] &= totals[s].max(axis=1) < target
    winners = totals == totals.max(axis=1, keepdims=True)
    return SessionResult(totals, played, winners)


def session_report(specs: Sequence[str], sessions: int, hands: Optional[int], target: Optional[float], seed: int,
                   rules: Union[RulesConfig, str]) -> str:
    """``sessions`` sessions of the agents ``specs`` (player p is ``specs[p]``, seeded ``seed + p``; 5, 6
    or 7 players) as a Markdown table of each player's mean total and share of wins: ``briscola session``."""
    rules = resolve_rules(rules)
    agents = [make_agent(spec, seed=seed + i, rules=rules) for i, spec in enumerate(specs)]
    players = np.tile(np.arange(len(specs)), (sessions, 1))
    result = play_sessions(agents, players, hands, target, seed, rules)
    rows = [f"{sessions} sessions of {len(specs)} players; hands per session: mean {result.hands.mean():.1f}",
            "", "| player | agent | mean total | wins (ties shared) |", "|---|---|---:|---:|"]
    share = result.winners / result.winners.sum(axis=1, keepdims=True)
    for p, spec in enumerate(specs):
        rows.append(f"| {p} | {spec} | {result.totals[:, p].mean():+.2f} | {share[:, p].mean():.1%} |")
    return "\n".join(rows)
