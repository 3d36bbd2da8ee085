"""Creating and advancing batches of games: ``init``, ``init_from_deals``,
``step`` (pure), ``step_inplace``, ``step_one`` (a batch of one), ``reset_done``.

Every function acts on whole batches; the only Python loops are over the
playing phases and over rule tables, never over games.
"""

from __future__ import annotations

import operator
from typing import Optional

import numpy as np

from ..actions import NUM_ACTIONS, PASS, action_to_text
from ..rules import RulesConfig
from .bits import contains, sample
from .deal import check_deals, hand_bits, int_array, monte_bits, seeded_hands
from .legal import set_auction_legal
from .phases import apply_auction, apply_call, apply_discard, apply_play
from .codes import PHASE_NAMES, Phase
from .state import State, clear_games, empty_state

_APPLY = {Phase.AUCTION: apply_auction, Phase.DISCARD: apply_discard, Phase.CALL: apply_call, Phase.PLAY: apply_play}


def _rules(rules: Optional[RulesConfig]) -> RulesConfig:
    if rules is None:
        return RulesConfig()
    if not isinstance(rules, RulesConfig):
        raise ValueError(f"rules must be a RulesConfig (see briscola_env.rules); got {type(rules).__name__}")
    return rules


def init_from_deals(deals, dealers, rules: Optional[RulesConfig] = None) -> State:
    """New games from given deals (``(B, 40)``: the seat holding each card, or with a monte
    ``TableShape.monte_holder`` for its cards) and dealers ``(B,)``."""
    rules = _rules(rules)
    shape = rules.table_shape
    deals, dealers = check_deals(deals, dealers, shape)
    state = empty_state(rules, len(deals))
    _deal(state, np.arange(len(deals)), hand_bits(deals, shape.seats), monte_bits(deals, shape), dealers)
    return state


def init(seeds, rules: Optional[RulesConfig] = None) -> State:
    """New games, one per seed: each game's deal and dealer depend on its seed alone."""
    rules = _rules(rules)
    hands, monte, dealers = seeded_hands(seeds, rules.table_shape)
    state = empty_state(rules, len(hands))
    _deal(state, np.arange(len(hands)), hands, monte, dealers)
    return state


def _deal(state: State, g: np.ndarray, hands: np.ndarray, monte: Optional[np.ndarray], dealers: np.ndarray) -> None:
    """Start fresh hands in the games ``g`` (whose fields are at their starting values); ``monte``: the
    monte's cards (None without one)."""
    state.dealer[g] = dealers
    state.current_player[g] = state.tables.next_seat[dealers]
    state.hidden.hand_bits[g] = hands
    if state.hidden.monte is not None:
        state.hidden.monte[g] = monte
    set_auction_legal(state, state.tables, g)


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
    if actions.shape != (B,) or actions.dtype.kind not in "iu":
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
    a = actions[g].astype(np.int64)  # a uint64 beyond int64 turns negative: illegal all the same
    _check_legal(state, g, a, actions)

    tables = state.tables
    # No need to clear rewards: they are only ever set on a game's last step,
    # and a finished game never steps again (reset_done gives it fresh zeros).
    phase = state.phase[g]
    for p in tables.phases:
        in_phase = phase == p
        if in_phase.any():
            _APPLY[p](state, tables, g[in_phase], a[in_phase])
    return state


def _read_only(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


# The arguments of a batch of one's step, built once: game 0, and each action id as an int64 array.
_GAME_ZERO = _read_only(np.zeros(1, dtype=np.intp))
_ACTION_ARRAYS = tuple(_read_only(np.full(1, a, dtype=np.int64)) for a in range(NUM_ACTIONS))


def step_one(state: State, action) -> State:
    """As :func:`step_inplace` for a batch of one game and a plain int ``action``: the same phase
    functions, without the batch-wide checks and dispatch, which at this size cost more than the rules.
    The one-game environments step through it. Unlike :func:`step_inplace`, an action in a finished
    game is illegal (it has none): a ValueError, as for any illegal action."""
    if state.batch_size != 1:
        raise ValueError(f"step_one steps a batch of one game; this state holds {state.batch_size}")
    try:
        if isinstance(action, (bool, np.bool_)):  # an int to operator.index, but never meant as an action
            raise TypeError
        a = operator.index(action)
    except TypeError:
        raise ValueError(f"action must be an int, got {action!r}") from None
    if not is_legal_one(state, a):
        raise _illegal(state, 0, a)
    _APPLY[state.phase.item(0)](state, state.tables, _GAME_ZERO, _ACTION_ARRAYS[a])
    return state


def legal_set_one(state: State) -> int:
    """The legal actions of the player to act in game 0 as one Python int, bit ``a`` set for each legal
    action ``a`` (0 once the game is over): for a batch of one, a few hundred nanoseconds to read, where
    the ``(1, 151)`` mask takes several NumPy calls."""
    return state._legal_bits.item(0) << state._legal_base.item(0) | state._pass_ok.item(0) << PASS


def is_legal_one(state: State, action: int) -> bool:
    """Whether the player to act in game 0 may take ``action`` (any int)."""
    return 0 <= action < NUM_ACTIONS and legal_set_one(state) >> action & 1 == 1


def _check_legal(state: State, g: np.ndarray, a: np.ndarray, given: np.ndarray) -> None:
    """Raise unless every game ``g[i]`` may take action ``a[i]``; ``given`` are the actions as passed."""
    ok = contains(state._legal_bits[g], state._legal_base[g], state._pass_ok[g], a)
    if ok.all():
        return
    game = int(g[np.argmin(ok)])
    raise _illegal(state, game, int(given[game]))


def _illegal(state: State, game: int, action: int) -> ValueError:
    """The error for ``action`` (any int) in ``game``: what it is, whose turn, which actions are legal."""
    ten = state.rules.ten_card
    legal = [action_to_text(x, ten) for x in np.flatnonzero(state.legal_action_mask[game])]
    in_range = 0 <= action < NUM_ACTIONS
    what = f"{action} ({action_to_text(action, ten)!r})" if in_range else f"{action} (not an action id 0..150)"
    return ValueError(
        f"game {game}: illegal action {what} for player {state.current_player[game]} in phase "
        f"{PHASE_NAMES[state.phase[game]]!r}; legal actions: {', '.join(legal)}"
    )


def reset_done(state: State, seeds) -> State:
    """Re-deal, in place, the finished games (auto-reset): game ``b`` gets a new
    deal from ``seeds[b]`` if it is done; the others are untouched."""
    seeds = int_array(seeds, "seeds must be ints, one per game")
    if seeds.shape != (state.batch_size,):
        raise ValueError(f"seeds must have shape ({state.batch_size},), one per game; got {seeds.shape}")
    done = np.flatnonzero(state.terminated)
    if done.size:
        hands, monte, dealers = seeded_hands(seeds[done], state.tables.shape)  # checks the seeds first
        clear_games(state, done)
        _deal(state, done, hands, monte, dealers)
    return state


def random_actions(state: State, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per game (-1 for finished games)."""
    return sample(state._legal_bits, state._legal_base, state._pass_ok, rng.random(state.batch_size))
