"""A batched self-play environment over the engine: N games at once, each
step one decision in every game, by whichever seat is to act there.

    env = BatchedEnv(num_envs=1024, rules=preset("standard"), seed=0)
    out = env.reset()
    while training:
        actions = policy(out.obs, out.mask)     # (N,) action ids, legal per out.mask
        out = env.step(actions)                  # out.rewards (N, 5) when out.done

**Auto-reset, same step.** When a game ends, ``step`` returns its rewards for
all five seats and ``done = True``, and has already dealt the next game in its
slot: ``obs``, ``mask`` and ``seat`` are then those of the new game's first
decision. The finished game's outcome is in ``info`` (``ended`` marks it).
Nothing is lost: in this game nobody acts after the last card, so there is no
final observation to bootstrap from.

Observations are :mod:`briscola_env.observation` views (``uint8``, one
contiguous ``(N, SPEC.size)`` array, ``torch.from_numpy`` takes it without a
copy; with ``obs_dtype="float32"``, scaled to [0, 1] by ``SPEC.scaled``, for
models that take floats only, at four times the bytes). Their history sections
are kept per seat and brought up to date one action at a time, instead of
being rebuilt from the whole history each step.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import numpy as np

from . import engine
from .actions import NUM_ACTIONS, PLAY_OFFSET
from .cards import NUM_CARDS
from .engine import MAX_SEED
from .engine.deal import SEED_RANGE, int_array, seeds_out_of_range
from .engine.codes import Phase
from .engine.state import layout, State
from .observation import (NUM_BIDS, ObservationSpec, check_obs_dtype, encode_privileged, encode_state_of_play,
                          observation_spec, privileged_spec, seat_frames)
from .rewards import check_reward_mode, hand_rewards
from .rules import RulesConfig


@dataclass(frozen=True)
class HistoryLayout:
    """Where the views' history entries go, for the layout ``spec``: each seat's own history (who bid
    and passed, and who played each card, relative to that seat) and the history shared by all (the
    trick of each card, the same for everyone: one copy per game)."""

    seat_history: slice  # the view's columns of a seat's own history
    shared_history: slice  # the view's columns of the shared history
    bids: int  # offsets of the sections within a seat's own history
    passes: int
    played_by: int
    # [actor + 1, viewer]: where the viewer's history entry of the actor's bid or card starts (the start of
    # the viewer's history in the game's, plus the actor's relative seat), and of the actor's pass.
    actor_at: np.ndarray
    passer_at: np.ndarray


@lru_cache(maxsize=None)
def history_layout(spec: ObservationSpec) -> HistoryLayout:
    history = spec.history
    seat_history = slice(history.start, spec.sections["played_in_trick"].start)
    seats = spec.table_shape.seats
    relative = seat_frames(seats)[0]
    viewer_start = np.arange(seats) * (seat_history.stop - seat_history.start)
    offset = lambda name: spec.sections[name].start - history.start  # noqa: E731
    return HistoryLayout(seat_history, slice(seat_history.stop, spec.size), offset("auction_bids"),
                         offset("auction_passes"), offset("played_by"), viewer_start + relative.T,
                         viewer_start + relative.T * (NUM_BIDS + 1))


@dataclass
class BatchStep:
    """What :meth:`BatchedEnv.reset` and :meth:`BatchedEnv.step` return."""

    obs: np.ndarray  # (N, SPEC.size) uint8 (or float32, as obs_dtype), the view of the seat to act in each game
    mask: np.ndarray  # (N, 151) bool, its legal actions
    seat: np.ndarray  # (N,) int64, the seat to act
    rewards: np.ndarray  # (N, 5) float32, for all seats, on the step a game ends (else 0)
    done: np.ndarray  # (N,) bool, the game in that slot ended at this step (and, with auto-reset, was re-dealt)
    info: dict  # per-game arrays: deal_seed of the game now in play; for ended games, their outcome


def called_trick(state, games: np.ndarray) -> np.ndarray:
    """The trick (0..7 in the standard game) in which the called card was played in each of ``games``,
    -1 if not (yet)."""
    called = state.called_card[games]
    at = state.trick_cards[games].reshape(len(games), state.tables.shape.cards_in_tricks) == called[:, None]
    return np.where((called >= 0) & at.any(axis=1), at.argmax(axis=1) // state.tables.shape.seats, -1)


def _checked_seed(seed):
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int or a NumPy SeedSequence; got {seed!r}")
    return int(seed)


def _checked_array(saved: dict, name: str, shape: tuple, dtype) -> np.ndarray:
    """A copy of ``saved[name]`` if it is an array of ``shape`` and ``dtype``, else a ValueError."""
    if name not in saved:
        raise ValueError(f"env state lacks {name}; a state_dict() has it")
    array = np.asarray(saved[name])
    if array.shape != shape or array.dtype != np.dtype(dtype):
        raise ValueError(f"env state {name} must be {np.dtype(dtype)} of shape {shape}; "
                         f"got {array.dtype} of shape {array.shape}")
    return array.copy()


class BatchedEnv:
    """N games of Briscola Chiamata stepped together, auto-reset on the same step.

    With ``auto_reset=False`` (evaluation: a fixed set of games) a finished game
    stays finished: later actions for it are ignored, its mask is all False and
    its observation is seat 0's final view.

    ``obs_dtype``: ``"uint8"`` (the raw views) or ``"float32"`` (scaled to [0, 1]), for
    ``obs`` and :meth:`privileged`."""

    def __init__(self, num_envs: int, rules: Optional[RulesConfig] = None, seed: int = 0,
                 reward: str = "payoff", auto_reset: bool = True, obs_dtype: str = "uint8"):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int; got {num_envs!r}")
        self.num_envs = int(num_envs)
        self.rules = rules if rules is not None else RulesConfig()
        self.reward = check_reward_mode(reward)
        self.auto_reset = bool(auto_reset)
        self.obs_dtype = check_obs_dtype(obs_dtype)
        self.observation_spec = observation_spec(self.rules)
        self.seats = self.rules.table_shape.seats
        self._history = history_layout(self.observation_spec)
        self.num_actions = NUM_ACTIONS
        self._seed = _checked_seed(seed)
        self.state: Optional[engine.State] = None

    def reset(self, seed: Optional[int] = None, deal_seeds=None) -> BatchStep:
        """Deal N new games. The env's generator is seeded from ``seed`` (or the
        constructor's), and every later deal comes from it: same seed, same games.
        ``deal_seeds`` (N engine seeds) sets the first N deals instead."""
        rng = np.random.default_rng(self._seed if seed is None else _checked_seed(seed))
        drawn = rng.integers(0, MAX_SEED, self.num_envs)  # drawn either way: the later deals stay the same
        first_deals = drawn if deal_seeds is None else self._checked_deal_seeds(deal_seeds, "deal_seeds")
        self._rng, self.deal_seeds = rng, first_deals
        self.state = state = engine.init(self.deal_seeds, self.rules)
        # The history is kept up to date an action at a time (the rest of a view is written
        # fresh for the seat to act): per seat what depends on the viewer, once what does not.
        self._seat_history = np.zeros(self._seat_history_shape(), dtype=np.uint8)
        self._shared_history = np.zeros(self._shared_history_shape(), dtype=np.uint8)
        nothing = np.zeros(0, dtype=np.int64)
        return self._output(state, np.zeros((self.num_envs, self.seats), np.float32), np.zeros(self.num_envs, bool),
                            self._outcome(state, nothing))

    def step(self, actions, active=None) -> BatchStep:
        """One decision in every game (or in the games ``active``, ``(N,)`` bool, says: the
        others stay as they are, whatever their action); games that end are scored and re-dealt."""
        state = self._started("step")
        seat = state.current_player.astype(np.int64)
        phase = state.phase.copy()
        standing = state.high_bid.astype(np.int64)
        trick = state.trick_index.astype(np.int64)
        finished_before = state.terminated.copy()
        engine.step_inplace(state, actions, active)  # validates both (finished games' actions are ignored)
        if active is not None:
            phase[~np.asarray(active)] = Phase.DONE  # games that did not act add nothing to the history
        self._add_to_history(np.asarray(actions, dtype=np.int64), seat, phase, standing, trick)

        done = state.terminated & ~finished_before
        rewards = np.zeros((self.num_envs, self.seats), np.float32)
        ended = np.flatnonzero(done)
        info = self._outcome(state, ended)
        if ended.size:
            rewards[ended] = hand_rewards(state, ended, self.reward)
            if self.auto_reset:
                self.deal_seeds[ended] = self._rng.integers(0, MAX_SEED, ended.size)
                engine.reset_done(state, self.deal_seeds)
                self._seat_history[ended] = 0
                self._shared_history[ended] = 0
        return self._output(state, rewards, done, info)

    def state_dict(self) -> dict:
        """Everything needed to continue exactly where this env is: NumPy arrays and plain values.
        The views' history is saved as ``seat_records`` and ``shared_records``, the names training
        checkpoints have always used for it."""
        return {"engine": {name: array.copy() for name, array in self._started("state_dict").to_arrays().items()},
                "seat_records": self._seat_history.copy(), "shared_records": self._shared_history.copy(),
                "deal_seeds": self.deal_seeds.copy(),
                "rng": self._rng.bit_generator.state}

    def load_state_dict(self, saved: dict) -> BatchStep:
        """Continue from :meth:`state_dict`; returns the observations of the games in play.
        Everything is checked and built first: a ValueError leaves this env as it was."""
        if not (isinstance(saved, dict) and isinstance(saved.get("engine"), dict)):
            raise ValueError("env state must be a dict from state_dict(), its 'engine' a dict of arrays")
        missing = sorted({"seat_records", "shared_records", "deal_seeds", "rng"} - set(saved))
        if missing:
            raise ValueError(f"env state lacks {', '.join(missing)}; a state_dict() has them all")
        n = self.num_envs
        arrays = {name: _checked_array(saved["engine"], name, (n,) + shape, dtype)
                  for name, (shape, dtype, _) in layout(self.rules.table_shape).items()}
        seat_history = _checked_array(saved, "seat_records", self._seat_history_shape(), np.uint8)
        shared_history = _checked_array(saved, "shared_records", self._shared_history_shape(), np.uint8)
        deal_seeds = self._checked_deal_seeds(saved["deal_seeds"], "the saved deal_seeds")
        rng = np.random.default_rng()
        try:
            rng.bit_generator.state = saved["rng"]
        except (TypeError, ValueError, KeyError) as error:
            raise ValueError(f"the saved rng is not a {type(rng.bit_generator).__name__} state: {error!r}") from None
        self.state = state = State.from_arrays(self.rules, arrays)
        self._seat_history, self._shared_history = seat_history, shared_history
        self.deal_seeds, self._rng = deal_seeds, rng
        nothing = np.zeros(0, dtype=np.int64)
        return self._output(state, np.zeros((n, self.seats), np.float32), np.zeros(n, bool),
                            self._outcome(state, nothing))

    def privileged(self) -> np.ndarray:
        """``(N, privileged_spec(rules).size)`` uint8 (or float32, as ``obs_dtype``): every hand and the partner,
        from the seat to act (seat 0 in a finished game, as for ``obs``). For centralized critics and probes
        only: an acting policy must not see it."""
        state = self._started("privileged")
        view = encode_privileged(state, np.maximum(state.current_player, 0).astype(np.int64))
        return privileged_spec(self.rules).in_dtype(view, self.obs_dtype)

    # --- internals -------------------------------------------------------------------

    def _seat_history_shape(self) -> tuple:
        own = self._history.seat_history
        return self.num_envs, self.seats, own.stop - own.start

    def _shared_history_shape(self) -> tuple:
        shared = self._history.shared_history
        return self.num_envs, shared.stop - shared.start

    def _checked_deal_seeds(self, seeds, name: str) -> np.ndarray:
        """``seeds`` as an int64 copy if they are one engine seed per game, else a ValueError."""
        requirement = f"{name} must be {self.num_envs} ints in {SEED_RANGE}, one per game"
        seeds = int_array(seeds, requirement)
        if seeds.shape != (self.num_envs,):
            raise ValueError(f"{requirement}; got shape {seeds.shape}")
        bad = seeds_out_of_range(seeds)
        if bad.size:
            raise ValueError(f"{requirement}; got {seeds[bad[0]]} for game {bad[0]}")
        return seeds.astype(np.int64)

    def _started(self, call: str) -> State:
        """The games' engine state; a RuntimeError naming ``call`` before the first :meth:`reset`."""
        if self.state is None:
            raise RuntimeError(f"call reset() before {call}()")
        return self.state

    def _output(self, state: State, rewards: np.ndarray, done: np.ndarray, info: dict) -> BatchStep:
        spec, history = self.observation_spec, self._history
        seat = np.maximum(state.current_player, 0).astype(np.int64)  # a finished game shows seat 0
        obs = np.empty((self.num_envs, spec.size), dtype=spec.dtype)
        obs[:, :spec.history.start] = 0  # the history is copied in whole below
        encode_state_of_play(state, seat, out=obs)
        obs[:, history.seat_history] = self._seat_history.reshape(self.num_envs * self.seats, -1)[
            np.arange(self.num_envs) * self.seats + seat]
        obs[:, history.shared_history] = self._shared_history
        info["deal_seed"] = self.deal_seeds.copy()
        return BatchStep(spec.in_dtype(obs, self.obs_dtype), state.legal_action_mask, seat, rewards, done, info)

    def _outcome(self, state: State, ended: np.ndarray) -> dict:
        n = self.num_envs

        def column(values, fill, dtype):
            out = np.full((n,) + values.shape[1:], fill, dtype=dtype)
            out[ended] = values
            return out

        return {
            "ended": column(np.ones(len(ended), bool), False, bool),
            "ended_deal_seed": column(self.deal_seeds[ended], -1, np.int64),
            "caller": column(state.caller[ended], -1, np.int8),
            "partner": column(state.hidden.partner[ended], -1, np.int8),
            "team_points": column(state.team_points[ended], -1, np.int16),
            "contract_made": column(state.contract_made[ended], False, bool),
            "multiplier": column(state.multiplier[ended], 0, np.int16),
            "contract": column(state.high_bid[ended], 0, np.int16),  # the winning bid's action id, 0: void hand
            "called_trick": column(called_trick(state, ended), -1, np.int8),
            "captured_points": column(state.captured_points[ended], 0, np.int16),  # (N, seats), by seat
        }

    def _add_to_history(self, actions, seat, phase, standing, trick) -> None:
        """Add the action each game just took to the history of every seat."""
        game_width = self._seat_history[0].size
        flat = self._seat_history.reshape(-1)
        history, seats, tricks = self._history, self.seats, self.rules.table_shape.tricks
        # Games that acted in the auction or in play (finished ones are in neither; calls are
        # no entry). Each entry is written at (the game's history + the entry's place in a
        # seat's history, from the action) + (each viewer's history + the actor's column there).
        # Discards are no entry either: they are in the caller's view of the state of play.
        in_auction = phase == Phase.AUCTION
        g = np.flatnonzero(in_auction & (actions > 0))
        flat[(g * game_width + history.bids + (actions[g] - 1) * seats)[:, None] + history.actor_at[seat[g] + 1]] = 1
        g = np.flatnonzero(in_auction & (actions == 0))
        flat[(g * game_width + history.passes + standing[g])[:, None] + history.passer_at[seat[g] + 1]] = 1
        g = np.flatnonzero(phase == Phase.PLAY)
        card = actions[g] - PLAY_OFFSET
        flat[(g * game_width + history.played_by + card * seats)[:, None] + history.actor_at[seat[g] + 1]] = 1
        self._shared_history.reshape(-1)[g * NUM_CARDS * tricks + card * tricks + trick[g]] = 1
