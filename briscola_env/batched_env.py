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
copy). Their record sections are kept per seat and brought up to date one
action at a time, instead of being rebuilt from the whole history each step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import engine
from .actions import NUM_ACTIONS, PLAY_OFFSET
from .cards import NUM_SEATS, NUM_TRICKS
from .engine.state import AUCTION, PLAY
from .observation import _RELATIVE, NUM_BIDS, RECORDS, SPEC, encode_privileged, encode_state_of_play
from .rewards import check_reward_mode, hand_rewards
from .rules import RulesConfig

MAX_SEED = 2**57  # the engine's seeds are below this


def _record_offset(name: str) -> int:
    return SPEC.sections[name].start


_BIDS, _PASSES = _record_offset("auction_bids"), _record_offset("auction_passes")
_PLAYED_BY, _PLAYED_IN = _record_offset("played_by"), _record_offset("played_in_trick")


@dataclass
class BatchStep:
    """What :meth:`BatchedEnv.reset` and :meth:`BatchedEnv.step` return."""

    obs: np.ndarray  # (N, SPEC.size) uint8, the view of the seat to act in each game
    mask: np.ndarray  # (N, 151) bool, its legal actions
    seat: np.ndarray  # (N,) int64, the seat to act
    rewards: np.ndarray  # (N, 5) float32, for all seats, on the step a game ends (else 0)
    done: np.ndarray  # (N,) bool, the game in that slot ended at this step (and, with auto-reset, was re-dealt)
    info: dict  # per-game arrays: deal_seed of the game now in play; for ended games, their outcome


class BatchedEnv:
    """N games of Briscola Chiamata stepped together, auto-reset on the same step.

    With ``auto_reset=False`` (evaluation: a fixed set of games) a finished game
    stays finished: later actions for it are ignored, its mask is all False and
    its observation is seat 0's final view."""

    def __init__(self, num_envs: int, rules: Optional[RulesConfig] = None, seed: int = 0,
                 reward: str = "payoff", auto_reset: bool = True):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int; got {num_envs!r}")
        self.num_envs = int(num_envs)
        self.rules = rules if rules is not None else RulesConfig()
        self.reward = check_reward_mode(reward)
        self.auto_reset = bool(auto_reset)
        self.observation_spec = SPEC
        self.num_actions = NUM_ACTIONS
        self._seed = seed
        self.state: Optional[engine.State] = None

    def reset(self, seed: Optional[int] = None, deal_seeds=None) -> BatchStep:
        """Deal N new games. The env's generator is seeded from ``seed`` (or the
        constructor's), and every later deal comes from it: same seed, same games.
        ``deal_seeds`` (N engine seeds) sets the first N deals instead."""
        self._rng = np.random.default_rng(self._seed if seed is None else seed)
        self.deal_seeds = self._rng.integers(0, MAX_SEED, self.num_envs)
        if deal_seeds is not None:
            deal_seeds = np.asarray(deal_seeds)
            if deal_seeds.shape != (self.num_envs,):
                raise ValueError(f"deal_seeds must have shape ({self.num_envs},); got {deal_seeds.shape}")
            self.deal_seeds = deal_seeds.astype(np.int64)
        self.state = engine.init(self.deal_seeds, self.rules)
        # Each seat's view, of which only the records are kept up to date (the rest is
        # written fresh for the seat to act): one gather then yields whole observations.
        self._views = np.zeros((self.num_envs, NUM_SEATS, SPEC.size), dtype=np.uint8)
        nothing = np.zeros(0, dtype=np.int64)
        return self._output(np.zeros((self.num_envs, NUM_SEATS), np.float32), np.zeros(self.num_envs, bool),
                            self._outcome(nothing))

    def step(self, actions) -> BatchStep:
        """One decision in every game; games that end are scored and re-dealt."""
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        state = self.state
        seat = state.current_player.astype(np.int64)
        phase = state.phase.copy()
        standing = state.high_bid.astype(np.int64)
        trick = state.trick_index.astype(np.int64)
        finished_before = state.terminated.copy()
        engine.step_inplace(state, actions)  # validates the actions (finished games' are ignored)
        self._record(np.asarray(actions, dtype=np.int64), seat, phase, standing, trick)

        done = state.terminated & ~finished_before
        rewards = np.zeros((self.num_envs, NUM_SEATS), np.float32)
        ended = np.flatnonzero(done)
        info = self._outcome(ended)
        if ended.size:
            rewards[ended] = hand_rewards(state, ended, self.reward)
            if self.auto_reset:
                self.deal_seeds[ended] = self._rng.integers(0, MAX_SEED, ended.size)
                engine.reset_done(state, self.deal_seeds)
                self._views[ended, :, RECORDS] = 0
        return self._output(rewards, done, info)

    def state_dict(self) -> dict:
        """Everything needed to continue exactly where this env is: NumPy arrays and plain values."""
        from .engine.state import _arrays

        return {"engine": {".".join(key) if isinstance(key, tuple) else key: array.copy()
                           for key, array in _arrays(self.state)},
                "views": self._views.copy(), "deal_seeds": self.deal_seeds.copy(),
                "rng": self._rng.bit_generator.state}

    def load_state_dict(self, saved: dict) -> BatchStep:
        """Continue from :meth:`state_dict`; returns the observations of the games in play."""
        from .engine.state import _LAYOUT, _from_arrays

        arrays = {key: np.asarray(saved["engine"][".".join(key) if isinstance(key, tuple) else key])
                  for key in _LAYOUT}
        self.state = _from_arrays(self.rules, arrays)
        self._views = np.asarray(saved["views"]).copy()
        self.deal_seeds = np.asarray(saved["deal_seeds"]).copy()
        self._rng = np.random.default_rng()
        self._rng.bit_generator.state = saved["rng"]
        nothing = np.zeros(0, dtype=np.int64)
        return self._output(np.zeros((self.num_envs, NUM_SEATS), np.float32), np.zeros(self.num_envs, bool),
                            self._outcome(nothing))

    def privileged(self) -> np.ndarray:
        """``(N, PRIVILEGED_SPEC.size)`` uint8: every hand and the partner, from the seat
        to act. For centralized critics and probes only: an acting policy must not see it."""
        return encode_privileged(self.state, self.state.current_player.astype(np.int64))

    # --- internals -------------------------------------------------------------------

    def _output(self, rewards: np.ndarray, done: np.ndarray, info: dict) -> BatchStep:
        state = self.state
        seat = np.maximum(state.current_player, 0).astype(np.int64)  # a finished game shows seat 0
        obs = self._views.reshape(-1, SPEC.size)[np.arange(self.num_envs) * NUM_SEATS + seat]
        obs[:, :RECORDS.start] = encode_state_of_play(state, seat)
        info["deal_seed"] = self.deal_seeds.copy()
        return BatchStep(obs, state.legal_action_mask, seat, rewards, done, info)

    def _outcome(self, ended: np.ndarray) -> dict:
        state, n = self.state, self.num_envs

        def column(values, fill, dtype):
            out = np.full(n, fill, dtype=dtype)
            out[ended] = values[ended]
            return out

        return {
            "ended": column(np.ones(n, bool), False, bool),
            "ended_deal_seed": column(self.deal_seeds, -1, np.int64),
            "caller": column(state.caller, -1, np.int8),
            "partner": column(state.hidden.partner, -1, np.int8),
            "team_points": column(state.team_points, -1, np.int16),
            "contract_made": column(state.contract_made, False, bool),
            "multiplier": column(state.multiplier, 0, np.int16),
        }

    def _record(self, actions, seat, phase, standing, trick) -> None:
        """Add the action each game just took to the records of all five seats."""
        viewers = np.arange(NUM_SEATS)
        flat = self._views.reshape(-1)

        def views_of(g: np.ndarray) -> np.ndarray:
            return (g[:, None] * NUM_SEATS + viewers) * SPEC.size  # (n, 5): start of each seat's view

        # Games that acted in the auction or in play (finished ones are in neither; calls are
        # no record).
        rel = _RELATIVE[viewers, seat[:, None] + 1]  # (N, 5): the actor as each viewer sees him
        in_auction = phase == AUCTION
        g = np.flatnonzero(in_auction & (actions > 0))
        flat[views_of(g) + _BIDS + (actions[g, None] - 1) * NUM_SEATS + rel[g]] = 1
        g = np.flatnonzero(in_auction & (actions == 0))
        flat[views_of(g) + _PASSES + rel[g] * (NUM_BIDS + 1) + standing[g, None]] = 1
        g = np.flatnonzero(phase == PLAY)
        card = actions[g, None] - PLAY_OFFSET
        view = views_of(g)
        flat[view + _PLAYED_BY + card * NUM_SEATS + rel[g]] = 1
        flat[view + _PLAYED_IN + card * NUM_TRICKS + trick[g, None]] = 1
