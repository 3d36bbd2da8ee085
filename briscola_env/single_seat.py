"""One seat of Briscola Chiamata as a single-agent Gymnasium environment, for SB3 and the like.

The learner holds one seat (``seat``: fixed, or ``None`` for one drawn at every reset); agents
from spec strings (:func:`agents.make_agent`) play the other four. An episode is one hand:
``reset`` deals and lets the opponents act until the learner's first turn; ``step`` plays the
learner's action, then the opponents until the learner is to act again or the hand is over.

=================  ===================================================================
observation        the learner's view (:mod:`briscola_env.observation`), a ``Box`` of
                   uint8 counts, or float32 scaled to [0, 1] with ``obs_dtype="float32"``
action space       ``Discrete(151)`` (see :mod:`briscola_env.actions`) whose ``sample()``
                   without a mask draws a legal action, so that checkers and random
                   baselines stepping with ``action_space.sample()`` play legally
action mask        ``action_masks()`` (bool, as sb3-contrib's ``MaskablePPO`` expects) and
                   ``info["action_mask"]``; all False once the hand is over
reward             0 until the end, then the learner's reward of the AEC env
                   (``reward="payoff"``, ``"points"`` or ``"win_loss"``); a void hand (all
                   pass) ends the episode with 0
info               the AEC env's info of the learner (phase, and the outcome at the end),
                   plus ``seat`` and ``action_mask``
=================  ===================================================================

``opponents``: one spec for all four (each gets its own agent), or a list of four, the
players after the learner in turn order (``opponents[0]`` acts right after him).

An illegal action is a ``ValueError`` naming the legal ones, and changes nothing; with
``illegal_reward`` set, it ends the episode instead, with that reward and ``info["illegal"]``
True (for learners without masks, like PettingZoo's ``env(illegal_reward=-1)``). Gymnasium's
``check_env`` needs the latter: its determinism check draws an action before a seeded reset
and steps it after, where it is often illegal.

``reset(seed=...)`` seeds the deal, the seat drawn and the opponents' generators, so one seed
always gives the same episode for the same learner actions.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

import gymnasium
import numpy as np

from .cards import NUM_SEATS
from .engine import MAX_SEED
from .observation import SPEC
from .pettingzoo_env import raw_env
from .rules import RulesConfig

NUM_OPPONENTS = NUM_SEATS - 1


class LegalActions(gymnasium.spaces.Discrete):
    """``Discrete(151)`` whose unmasked ``sample()`` draws from ``legal_mask()``, the actions
    legal now; an explicit mask or probability is used as given."""

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray]):
        super().__init__(n)
        self.legal_mask = legal_mask

    def sample(self, mask: Optional[np.ndarray] = None, **kwargs):
        if mask is None and not kwargs:
            mask = self.legal_mask().astype(np.int8)
        return super().sample(mask, **kwargs)


def _opponent_specs(opponents: Union[str, Sequence[str]]) -> list[str]:
    """Four spec strings from one spec or a list of four; else a ValueError saying what is allowed."""
    specs = [opponents] * NUM_OPPONENTS if isinstance(opponents, str) else opponents
    if not (isinstance(specs, (list, tuple)) and len(specs) == NUM_OPPONENTS
            and all(isinstance(spec, str) for spec in specs)):
        raise ValueError(f"opponents must be an agent spec string or a list of {NUM_OPPONENTS} of them; "
                         f"got {opponents!r}")
    return list(specs)


class SingleSeatEnv(gymnasium.Env):
    """One seat of a hand against four agents (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, opponents: Union[str, Sequence[str]] = "heuristic", seat: Optional[int] = None,
                 rules: Union[RulesConfig, str, None] = None, reward: str = "payoff", obs_dtype: str = "uint8",
                 illegal_reward: Optional[float] = None, **rule_overrides):
        # Imported here, not at module level: agents imports briscola_env, which exports this class.
        from agents import AECPolicy, make_agent

        specs = _opponent_specs(opponents)
        if seat is not None and not (isinstance(seat, (int, np.integer)) and not isinstance(seat, (bool, np.bool_))
                                     and 0 <= seat < NUM_SEATS):
            raise ValueError(f"seat must be a seat 0..{NUM_SEATS - 1} or None (drawn at every reset); got {seat!r}")
        if illegal_reward is not None and not (isinstance(illegal_reward, (int, float, np.integer, np.floating))
                                               and not isinstance(illegal_reward, (bool, np.bool_))
                                               and np.isfinite(illegal_reward)):
            raise ValueError(f"illegal_reward must be a finite number or None (illegal actions raise); "
                             f"got {illegal_reward!r}")
        self.illegal_reward = None if illegal_reward is None else float(illegal_reward)
        # The table itself always deals uint8 views: the opponents' agents read raw counts.
        self._table = raw_env(rules=rules, reward=reward, **rule_overrides)
        learner_view = raw_env(obs_dtype=obs_dtype)  # checks obs_dtype; its space is the learner's
        self.obs_dtype = learner_view.obs_dtype
        self.observation_space = learner_view.observation_space("player_0")["observation"]
        self.action_space = LegalActions(self._table.action_space("player_0").n, self.action_masks)
        self.rules = self._table.rules
        self.fixed_seat = None if seat is None else int(seat)
        self._opponents = [AECPolicy(make_agent(spec, rules=self.rules)) for spec in specs]
        self.seat: Optional[int] = None  # the learner's seat in the current hand
        self._done = True

    @property
    def _learner(self) -> str:
        return self._table.possible_agents[self.seat]

    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None):
        super().reset(seed=seed)  # seeds self.np_random, which draws everything below
        deal_seed, *agent_seeds = self.np_random.integers(0, MAX_SEED, 1 + NUM_OPPONENTS).tolist()
        seat = self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(NUM_SEATS))
        self._table.reset(seed=deal_seed, options=options)  # checks the options before anything changes here
        self.seat = seat
        for policy, agent_seed in zip(self._opponents, agent_seeds):
            policy.agent.reset(agent_seed)
        self._done = False
        return self._play_opponents()

    def step(self, action):
        if self._done:
            raise RuntimeError("step() before reset() or after the hand is over; call reset() for the next hand")
        if self.illegal_reward is not None and not self._is_legal(action):
            self._done = True
            obs, info = self._learner_view()
            return obs, self.illegal_reward, True, False, {**info, "illegal": True}
        self._table.step(action)  # a ValueError naming the legal actions, before any change, if illegal
        obs, info = self._play_opponents()
        reward = float(self._table.rewards[self._learner]) if self._done else 0.0
        return obs, reward, self._done, False, info

    def action_masks(self) -> np.ndarray:
        """``(151,)`` bool: the learner's legal actions (all False once the hand is over)."""
        if self.seat is None:
            raise RuntimeError("call reset() before action_masks()")
        if self._done:  # over, or ended by an illegal action with the table mid-hand
            return np.zeros(self.action_space.n, dtype=bool)
        return self._table.observe(self._learner)["action_mask"].astype(bool)

    def _is_legal(self, action) -> bool:
        return isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)) \
            and 0 <= action < self.action_space.n and bool(self.action_masks()[action])

    def _play_opponents(self) -> tuple[np.ndarray, dict]:
        """Lets the opponents act until the learner is to act or the hand is over; the learner's
        observation and info then."""
        table = self._table
        while not table.terminations[self._learner] and table.agent_selection != self._learner:
            opponent = table.possible_agents.index(table.agent_selection)
            policy = self._opponents[(opponent - self.seat - 1) % NUM_SEATS]
            table.step(policy(table.observe(table.agent_selection)))
        self._done = table.terminations[self._learner]
        return self._learner_view()

    def _learner_view(self) -> tuple[np.ndarray, dict]:
        table = self._table
        view = SPEC.in_dtype(table.observe(self._learner)["observation"], self.obs_dtype)
        info = {**table.infos[self._learner], "seat": self.seat, "action_mask": self.action_masks()}
        return view, info
