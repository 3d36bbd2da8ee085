"""One seat of Briscola Chiamata as a single-agent Gymnasium environment, for SB3 and the like.

The learner holds one seat (``seat``: fixed, or ``None`` for one drawn at every reset); agents
from spec strings (:func:`agents.make_agent`) play the other four (three under four-player rules:
the seats, the view and its space are those of the rules' table). An episode is one hand:
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

``opponents``: one spec for all four (each gets its own agent), or a list of four (three at a
table of four), the players after the learner in turn order (``opponents[0]`` acts right after him).

An illegal action is a ``ValueError`` naming the legal ones, and changes nothing; with
``illegal_reward`` set, it ends the episode instead, with that reward and ``info["illegal"]``
True (for learners without masks, like PettingZoo's ``env(illegal_reward=-1)``). Gymnasium's
``check_env`` needs the latter: its determinism check draws an action before a seeded reset
and steps it after, where it is often illegal.

``reset(seed=...)`` seeds the deal, the seat drawn and the opponents' generators, so one seed
always gives the same episode for the same learner actions.

**Gymnasium's registry.** Importing :mod:`agents` registers :data:`SINGLE_SEAT_ENV_ID`,
``briscola/briscola_chiamata_single_seat-v0``: ``gymnasium.make(SINGLE_SEAT_ENV_ID, opponents="random",
rules="monte")`` takes the keyword arguments of :class:`SingleSeatEnv`, and
``gymnasium.make_vec(SINGLE_SEAT_ENV_ID, num_envs=256, opponents="heuristic")`` builds a
:class:`SingleSeatVectorEnv` (the id's ``vector_entry_point``; ``vectorization_mode="sync"`` gives
Gymnasium's ``SyncVectorEnv`` of :class:`SingleSeatEnv` instead). As for any package's ids, ``import agents``
(or ``gymnasium.register_envs(agents)``) comes first. The id is the PettingZoo env's
(``briscola/briscola_chiamata_v0``, :data:`briscola_env.ENV_ID`) with ``_single_seat``, and its version as
``-v0``, the only suffix Gymnasium reads as a version (PettingZoo reads both, and files ``_v0`` as ``-v0``).
``gymnasium.make`` wraps the env in Gymnasium's own wrappers, which do not pass other methods on: the mask
is ``env.unwrapped.action_masks()``, ``env.get_wrapper_attr("action_masks")()`` (as sb3-contrib's
``MaskablePPO`` reads it) or ``info["action_mask"]``.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

import gymnasium
import numpy as np

from briscola_env import BatchedEnv, raw_env
from briscola_env.actions import NUM_ACTIONS
from briscola_env.cards import NUM_SEATS
from briscola_env.engine import MAX_SEED
from briscola_env.observation import check_obs_dtype, observation_spec
from briscola_env.pettingzoo_env import observation_box
from briscola_env.rules import RulesConfig, resolve_rules

from .adapter import AECPolicy
from .registry import make_agent

SINGLE_SEAT_ENV_ID = "briscola/briscola_chiamata_single_seat-v0"  # Gymnasium's namespace/name-vN


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


def _opponent_specs(opponents: Union[str, Sequence[str]], seats: int = NUM_SEATS) -> list[str]:
    """A spec string for each of the ``seats - 1`` others, from one spec or a list of them; else a
    ValueError saying what is allowed."""
    others = seats - 1
    specs = [opponents] * others if isinstance(opponents, str) else opponents
    if not (isinstance(specs, (list, tuple)) and len(specs) == others
            and all(isinstance(spec, str) for spec in specs)):
        raise ValueError(f"opponents must be an agent spec string or a list of {others} of them; "
                         f"got {opponents!r}")
    return list(specs)


def _checked_seat(seat, seats: int = NUM_SEATS) -> Optional[int]:
    """``seat`` as an int if it is a seat 0..seats-1, None if None; else a ValueError."""
    if seat is None:
        return None
    if not (isinstance(seat, (int, np.integer)) and not isinstance(seat, (bool, np.bool_)) and 0 <= seat < seats):
        raise ValueError(f"seat must be a seat 0..{seats - 1} or None (drawn for every hand); got {seat!r}")
    return int(seat)


class SingleSeatEnv(gymnasium.Env):
    """One seat of a hand against four agents (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, opponents: Union[str, Sequence[str]] = "heuristic", seat: Optional[int] = None,
                 rules: Union[RulesConfig, str, None] = None, reward: str = "payoff", obs_dtype: str = "uint8",
                 illegal_reward: Optional[float] = None, **rule_overrides):
        self.rules = resolve_rules(rules, **rule_overrides)
        self.seats = self.rules.table_shape.seats
        specs = _opponent_specs(opponents, self.seats)
        self.fixed_seat = _checked_seat(seat, self.seats)
        if illegal_reward is not None and not (isinstance(illegal_reward, (int, float, np.integer, np.floating))
                                               and not isinstance(illegal_reward, (bool, np.bool_))
                                               and np.isfinite(illegal_reward)):
            raise ValueError(f"illegal_reward must be a finite number or None (illegal actions raise); "
                             f"got {illegal_reward!r}")
        self.illegal_reward = None if illegal_reward is None else float(illegal_reward)
        # The table itself always deals uint8 views: the opponents' agents read raw counts.
        self._table = raw_env(rules=self.rules, reward=reward)
        self.obs_dtype = check_obs_dtype(obs_dtype)
        self.view_layout = observation_spec(self.rules)
        self.observation_space = observation_box(self.view_layout, self.obs_dtype)
        self.action_space = LegalActions(self._table.action_space("player_0").n, self.action_masks)
        self._opponents = [AECPolicy(make_agent(spec, rules=self.rules)) for spec in specs]
        self.seat: Optional[int] = None  # the learner's seat in the current hand
        self._done = True

    @property
    def _learner(self) -> str:
        return self._table.possible_agents[self.seat]

    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None):
        super().reset(seed=seed)  # seeds self.np_random, which draws everything below
        deal_seed, *agent_seeds = self.np_random.integers(0, MAX_SEED, self.seats).tolist()  # the deal's, the others'
        seat = self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(self.seats))
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
            policy = self._opponents[(opponent - self.seat - 1) % self.seats]
            table.step(policy(table.observe(table.agent_selection)))
        self._done = table.terminations[self._learner]
        return self._learner_view()

    def _learner_view(self) -> tuple[np.ndarray, dict]:
        table = self._table
        view = self.view_layout.in_dtype(table.observe(self._learner)["observation"], self.obs_dtype)
        info = {**table.infos[self._learner], "seat": self.seat, "action_mask": self.action_masks()}
        return view, info


def mean_payoff(env: SingleSeatEnv, choose: Callable[[np.ndarray, np.ndarray], int], hands: int,
                seed: int) -> tuple[float, float]:
    """The learner's mean payoff per hand and its 95% half-width (normal approximation) when
    ``choose(obs, mask)`` picks its actions, on ``hands`` hands reset with seeds ``seed``, ``seed + 1``, ...:
    policies measured with the same seed play the same deals, seats and opponents' draws."""
    if hands < 2:
        raise ValueError(f"hands must be at least 2 for a half-width; got {hands!r}")
    payoffs = []
    for hand in range(hands):
        obs, _ = env.reset(seed=seed + hand)
        done, reward = False, 0.0
        while not done:
            obs, reward, terminated, truncated, _ = env.step(choose(obs, env.action_masks()))
            done = terminated or truncated
        payoffs.append(reward)
    payoffs = np.asarray(payoffs)
    return float(payoffs.mean()), float(1.96 * payoffs.std(ddof=1) / np.sqrt(len(payoffs)))


class LegalActionBatch(gymnasium.spaces.MultiDiscrete):
    """``MultiDiscrete([151] * N)`` whose unmasked ``sample()`` draws, in every game, one of the
    actions ``legal_mask()`` (``(N, 151)`` bool) allows now; an explicit mask is used as given."""

    def __init__(self, num_envs: int, legal_mask: Callable[[], np.ndarray]):
        super().__init__(np.full(num_envs, NUM_ACTIONS))
        self.legal_mask = legal_mask

    def sample(self, mask=None, **kwargs):
        if mask is not None or kwargs:
            return super().sample(mask, **kwargs)
        legal = self.legal_mask()
        return np.argmax(np.where(legal, self.np_random.random(legal.shape), -1.0), axis=1).astype(self.dtype)


_AutoresetMode = getattr(gymnasium.vector, "AutoresetMode", None)  # Gymnasium 1.1 and later name the modes


class SingleSeatVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` hands of :class:`SingleSeatEnv` at once, over the batched engine.

    Every ``step`` takes one learner action per game (``(N,)`` ints) and returns when the learner
    is to act again in every game; the opponents act batched in between, each agent for all the
    games where it holds the seat to act. The spaces, rewards and options are those of
    :class:`SingleSeatEnv`, batched; the learner's seat is fixed or drawn for every hand.

    **Auto-reset in the same step** (Gymnasium's ``AutoresetMode.SAME_STEP``): a game that ends
    returns its reward with ``terminated`` True and has already been re-dealt, so its observation
    and mask are the next hand's first decision. Hands only end by the game's end (``truncated``
    is always False, and the learner acts on nothing after the last card), so no final observation
    is needed to bootstrap; the ended hand's outcome is in ``infos["final_info"]`` (each array
    masked by ``infos["_final_info"]``).

    ``infos``: ``action_mask`` ``(N, 151)`` bool (also :meth:`action_masks`), ``seat`` and
    ``deal_seed`` of the hand now in play, each with Gymnasium's ``_key`` mask (all True).
    An illegal action in any game is a ``ValueError`` naming it and the legal ones, before any
    game changes. ``reset(seed=...)`` seeds the deals, the seats and the opponents' generators.
    """

    metadata = {"autoreset_mode": _AutoresetMode.SAME_STEP} if _AutoresetMode else {}

    def __init__(self, num_envs: int = 1024, opponents: Union[str, Sequence[str]] = "heuristic",
                 seat: Optional[int] = None, rules: Union[RulesConfig, str, None] = None, reward: str = "payoff",
                 obs_dtype: str = "uint8", **rule_overrides):
        self.rules = resolve_rules(rules, **rule_overrides)
        self.seats = self.rules.table_shape.seats
        specs = _opponent_specs(opponents, self.seats)
        self.fixed_seat = _checked_seat(seat, self.seats)
        self.obs_dtype = check_obs_dtype(obs_dtype)
        # The table deals raw uint8 views, which the opponents' agents read.
        self._table = BatchedEnv(num_envs, self.rules, reward=reward)  # checks num_envs and reward
        self.num_envs = self._table.num_envs
        self.view_layout = observation_spec(self.rules)
        self.single_observation_space = observation_box(self.view_layout, self.obs_dtype)
        self.single_action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = LegalActionBatch(self.num_envs, self.action_masks)
        self._opponents = [make_agent(spec, rules=self.rules) for spec in specs]
        self.seat: Optional[np.ndarray] = None  # (N,) the learner's seat in each game's current hand
        self._out = None  # the table's last BatchStep: every game at the learner's turn

    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None):
        if options:
            raise ValueError(f"SingleSeatVectorEnv.reset takes no options; got {options!r}")
        super().reset(seed=seed)  # seeds self.np_random, which draws everything below
        table_seed, *agent_seeds = self.np_random.integers(0, MAX_SEED, self.seats).tolist()  # the table's, the others'
        out = self._table.reset(seed=table_seed)
        for agent, agent_seed in zip(self._opponents, agent_seeds):
            agent.reset(agent_seed)
        self.seat = self._draw_seats(self.num_envs)
        rewards, terminated, final_info = self._empty_results()
        self._play_opponents(out, rewards, terminated, final_info)
        return self._learner_view(), self._infos(terminated, final_info)

    def step(self, actions):
        if self._out is None:
            raise RuntimeError("step() before reset(); call reset() first")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise ValueError(f"actions must be {self.num_envs} ints, one per game; got shape {actions.shape}, "
                             f"dtype {actions.dtype}")
        rewards, terminated, final_info = self._empty_results()
        out = self._table.step(actions)  # every game is at the learner's turn; checks them all first
        self._play_opponents(out, rewards, terminated, final_info)
        return self._learner_view(), rewards, terminated, np.zeros(self.num_envs, bool), \
            self._infos(terminated, final_info)

    def action_masks(self) -> np.ndarray:
        """``(N, 151)`` bool: the learner's legal actions in every game."""
        if self._out is None:
            raise RuntimeError("call reset() before action_masks()")
        return self._out.mask

    # --- internals -------------------------------------------------------------------

    def _draw_seats(self, count: int) -> np.ndarray:
        if self.fixed_seat is not None:
            return np.full(count, self.fixed_seat, dtype=np.int64)
        return self.np_random.integers(0, self.seats, count)

    def _empty_results(self):
        final_info = {"seat": np.full(self.num_envs, -1, dtype=np.int64)}
        return np.zeros(self.num_envs, np.float32), np.zeros(self.num_envs, bool), final_info

    def _play_opponents(self, out, rewards, terminated, final_info) -> None:
        """From the table's step ``out``, lets the opponents act until the learner is to act in
        every game, scoring the hands that end on the way (into ``rewards``, ``terminated`` and
        ``final_info``) and drawing the learner's seat of each new hand."""
        while True:
            ended = np.flatnonzero(out.done)
            if ended.size:  # at most once per game and step: the learner acts at least once in every hand
                rewards[ended] = out.rewards[ended, self.seat[ended]]
                terminated[ended] = True
                final_info["seat"][ended] = self.seat[ended]
                for key, values in out.info.items():
                    if key not in ("ended", "deal_seed"):  # deal_seed is the new hand's; ended_deal_seed the ended's
                        name = "deal_seed" if key == "ended_deal_seed" else key
                        final_info.setdefault(name, np.zeros_like(values))[ended] = values[ended]
                self.seat[ended] = self._draw_seats(ended.size)
            waiting = out.seat != self.seat
            if not waiting.any():
                break
            position = (out.seat - self.seat - 1) % self.seats  # opponents[0] acts right after the learner
            actions = np.zeros(self.num_envs, dtype=np.int64)
            for k, agent in enumerate(self._opponents):
                games = np.flatnonzero(waiting & (position == k))
                if games.size:
                    actions[games] = agent.act(out.obs[games], out.mask[games])
            out = self._table.step(actions, active=waiting)
        self._out = out

    def _learner_view(self) -> np.ndarray:
        return self.view_layout.in_dtype(self._out.obs, self.obs_dtype)

    def _infos(self, terminated: np.ndarray, final_info: dict) -> dict:
        everywhere = np.ones(self.num_envs, bool)
        infos = {"action_mask": self._out.mask, "seat": self.seat.copy(), "deal_seed": self._out.info["deal_seed"]}
        infos.update({f"_{key}": everywhere for key in list(infos)})
        if terminated.any():
            final_info = {**final_info, **{f"_{key}": terminated for key in final_info}}
            infos.update(final_info=final_info, _final_info=terminated)
        return infos


def _register() -> None:
    """Registers :data:`SINGLE_SEAT_ENV_ID` with Gymnasium (see the module docstring); an id already
    registered (a reloaded module) is left as it is."""
    if SINGLE_SEAT_ENV_ID not in gymnasium.registry:
        gymnasium.register(SINGLE_SEAT_ENV_ID, entry_point="agents.single_seat:SingleSeatEnv",
                           vector_entry_point="agents.single_seat:SingleSeatVectorEnv")


_register()
