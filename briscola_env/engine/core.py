"""Creating and advancing batches of games: ``init``, ``init_from_deals``,
``step`` (pure), ``step_inplace``, ``reset_done``.

Every function acts on whole batches; the only Python loops are over the four
phases and over rule tables, never over games.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ..actions import NUM_ACTIONS, action_to_text
from ..cards import NUM_SEATS
from ..rules import RulesConfig
from .bits import NUM_WORDS, sample_actions
from .deal import check_deals, deal_from_seeds, hand_bits
from .legal import set_auction_legal
from .phases import apply_auction, apply_call, apply_play
from .state import AUCTION, CALL, PHASE_NAMES, PLAY, State, empty_state
from .tables import rule_tables

_APPLY = {AUCTION: apply_auction, CALL: apply_call, PLAY: apply_play}


def _rules(rules: Optional[RulesConfig]) -> RulesConfig:
    if rules is None:
        return RulesConfig()
    if not isinstance(rules, RulesConfig):
        raise ValueError(f"rules must be a RulesConfig (see briscola_env.rules); got {type(rules).__name__}")
    return rules


def init_from_deals(deals, dealers, rules: Optional[RulesConfig] = None) -> State:
    """New games from given deals (``(B, 40)``: the seat holding each card) and dealers ``(B,)``."""
    rules = _rules(rules)
    deals, dealers = check_deals(deals, dealers)
    state = empty_state(rules, len(deals))
    state.dealer[:] = dealers
    state.current_player[:] = (dealers + 1) % NUM_SEATS
    state.hidden.hand_bits[:] = hand_bits(deals)
    set_auction_legal(state, rule_tables(rules), np.arange(len(deals)))
    return state


def init(seeds, rules: Optional[RulesConfig] = None) -> State:
    """New games, one per seed: each game's deal and dealer depend on its seed alone."""
    deals, dealers = deal_from_seeds(seeds)
    return init_from_deals(deals, dealers, rules)


def step(state: State, actions, active=None) -> State:
    """The state after each game's current player takes ``actions[b]``; ``state`` is not changed.

    ``active`` (``(B,)`` bool, default all) says which games take part; games
    not taking part and games already finished are left as they are, whatever
    their action. An illegal action raises ValueError.
    """
    new = state.copy()
    step_inplace(new, actions, active)
    return new


def step_inplace(state: State, actions, active=None) -> State:
    """As :func:`step`, but changes ``state`` in place (faster: no copy) and returns it."""
    B = state.batch_size
    actions = np.asarray(actions)
    if actions.shape != (B,) or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(f"actions must be an int array of shape ({B},), one per game; "
                         f"got shape {actions.shape}, dtype {actions.dtype}")
    playing = ~state.terminated
    if active is not None:
        active = np.asarray(active)
        if active.shape != (B,) or active.dtype != bool:
            raise ValueError(f"active must be a bool array of shape ({B},); got shape {active.shape}, "
                             f"dtype {active.dtype}")
        playing &= active
    g = np.flatnonzero(playing)
    a = actions[g].astype(np.int64)
    _check_legal(state, g, a)

    tables = rule_tables(state.rules)
    # No need to clear rewards: they are only ever set on a game's last step,
    # and a finished game never steps again (reset_done gives it fresh zeros).
    phase = state.phase[g]
    for p, apply in _APPLY.items():
        in_phase = phase == p
        if in_phase.any():
            apply(state, tables, g[in_phase], a[in_phase])
    return state


def _check_legal(state: State, g: np.ndarray, a: np.ndarray) -> None:
    in_range = (a >= 0) & (a < NUM_ACTIONS)
    safe = np.where(in_range, a, 0).astype(np.uint64)
    words = state._legal.reshape(-1)[g * NUM_WORDS + (safe >> np.uint64(6)).astype(np.intp)]
    ok = in_range & (((words >> (safe & np.uint64(63))) & np.uint64(1)) != 0)
    if ok.all():
        return
    i = int(np.argmin(ok))
    game, action = int(g[i]), int(a[i])
    ten = state.rules.ten_card
    legal = [action_to_text(x, ten) for x in np.flatnonzero(state.legal_action_mask[game])]
    what = f"{action} ({action_to_text(action, ten)!r})" if in_range[i] else f"{action} (not an action id 0..150)"
    raise ValueError(
        f"game {game}: illegal action {what} for player {state.current_player[game]} in phase "
        f"{PHASE_NAMES[state.phase[game]]!r}; legal actions: {', '.join(legal)}"
    )


def reset_done(state: State, seeds) -> State:
    """Re-deal, in place, the finished games (auto-reset): game ``b`` gets a new
    deal from ``seeds[b]`` if it is done; the others are untouched."""
    seeds = np.asarray(seeds)
    if seeds.shape != (state.batch_size,):
        raise ValueError(f"seeds must have shape ({state.batch_size},), one per game; got {seeds.shape}")
    done = np.flatnonzero(state.terminated)
    if done.size:
        state.put(done, init(seeds[done], state.rules))
    return state


def random_actions(state: State, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per game (-1 for finished games)."""
    return sample_actions(state._legal, rng.random(state.batch_size))
