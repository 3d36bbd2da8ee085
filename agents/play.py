"""Playing a fixed set of games with a given agent at each seat, batched: the table that the
evaluation (:mod:`evaluation`) and the belief model's data (:func:`agents.belief.collect_views`) play at."""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import numpy as np

from briscola_env import BatchedEnv, engine
from briscola_env.batched_env import BatchStep
from briscola_env.rules import RulesConfig, resolve_rules

from .base import Agent


def play_games(agents: Sequence[Agent], seat_agents: np.ndarray, deal_seeds: np.ndarray,
               rules: Optional[RulesConfig] = None,
               observe: Optional[Callable[[BatchedEnv, BatchStep], None]] = None) -> tuple[engine.State, np.ndarray]:
    """Play game ``g`` from ``deal_seeds[g]`` with ``agents[seat_agents[g, s]]`` at seat ``s`` of the
    table of ``rules`` (five seats, or four: ``RulesConfig.players``).

    All games are stepped together; at each step every agent acts once, for
    the games where it is to act. Returns the final engine state (payoffs in
    ``rewards``, the result in ``caller``, ``team_points``, ...) and the
    actions, ``(G, steps)`` int16, -1 after a game's end (for game records). ``observe(env, out)``,
    if given, sees every step's environment and output before the agents act."""
    seat_agents = np.asarray(seat_agents)
    deal_seeds = np.asarray(deal_seeds)
    n, seats = len(deal_seeds), resolve_rules(rules).table_shape.seats
    if seat_agents.shape != (n, seats) or seat_agents.min() < 0 or seat_agents.max() >= len(agents):
        raise ValueError(f"seat_agents must be ({n}, {seats}) indices into the {len(agents)} agents, one a seat of "
                         f"the table of {seats}; got shape {seat_agents.shape}")
    env = BatchedEnv(n, rules, auto_reset=False)
    out = env.reset(deal_seeds=deal_seeds)
    games = np.arange(n)
    history = []
    while not env.state.terminated.all():
        if observe:
            observe(env, out)
        live = ~env.state.terminated
        who = seat_agents[games, out.seat]
        actions = np.full(n, -1, dtype=np.int64)
        for i, agent in enumerate(agents):
            mine = np.flatnonzero(live & (who == i))
            if mine.size:
                actions[mine] = agent.act(out.obs[mine], out.mask[mine])
        history.append(actions.astype(np.int16))
        out = env.step(actions)
    return env.state, np.stack(history, axis=1)
