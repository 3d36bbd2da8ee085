"""Briscola Chiamata as a PettingZoo AEC environment.

===========================  ============================================================
import                       ``from briscola_env import env`` (or ``raw_env``, ``parallel_env``);
                             after ``import briscola_env``, ``pettingzoo.make("aec", ENV_ID)``
                             too (``"parallel"`` for ``parallel_env``; PettingZoo 1.27+,
                             which has the registry)
name, id                     ``metadata["name"]``: :data:`ENV_NAME`, ``briscola_chiamata_v0``;
                             the registry id: :data:`ENV_ID`, ``briscola/briscola_chiamata_v0``
                             (namespace/name, as PettingZoo's own ``classic/connect_four_v3``)
agents                       ``player_0`` .. ``player_4`` (seats 0..4; play goes to the next)
action space                 ``Discrete(151)``: see :mod:`briscola_env.actions`
observation space            ``Dict(observation=Box(0, high, (1635,), uint8),
                             action_mask=Box(0, 1, (151,), int8))``; with
                             ``obs_dtype="float32"``, ``observation`` is
                             ``Box(0, 1, (1635,), float32)``
observation                  the seat's own view, :mod:`briscola_env.observation`
                             (seats relative to the observer); raw counts in uint8,
                             or scaled to [0, 1] by ``SPEC.scaled`` with
                             ``obs_dtype="float32"`` (for models that take floats only)
action mask                  legal actions of the agent to act; all zero for the others
rewards                      at the end of the hand, to all five agents: ``reward="payoff"``
                             (session points, default), ``"points"`` or ``"win_loss"``
episode                      one hand: auction, call, eight tricks (a void hand ends after
                             the auction); with ``blind_first_trick`` (preset ``al_buio``)
                             the first trick comes before the call
infos                        a fresh dict per agent per step, never changed afterwards;
                             every value a number or a NumPy array, so that libraries
                             can build specs from them. ``phase``: an int, a ``Phase``
                             code, the index in :data:`PHASE_NAMES` (0 auction,
                             1 call, 2 play, 3 done). The hand's outcome: ``void``
                             (bool), ``caller``, ``partner``, ``team_points``,
                             ``multiplier`` (ints), ``made`` (bool) and ``payoffs``
                             (float64 array by seat), in every info from the first on
                             (one set of keys, for libraries that build their info specs
                             at reset, as TorchRL does): until the end, and in a void
                             hand, caller, partner and team points -1, multiplier 0,
                             void and made ``False``, payoffs all 0 (a void hand: void True)
state, state_space           ``state()``: the privileged view, ``Box(0, 1, (205,), uint8)``
                             (float32 with ``obs_dtype="float32"``)
                             (:data:`~briscola_env.observation.PRIVILEGED_SPEC`: every
                             hand and the partner, relative to the seat to act, seat 0
                             once the hand is over), as ``BatchedEnv.privileged()``.
                             For centralized critics only: an acting policy must not
                             see it
===========================  ============================================================

``env()`` adds PettingZoo's standard wrappers: an illegal action ends the hand
with a penalty (``illegal_reward``, default -1) for the offender. ``raw_env``
raises a ``ValueError`` naming the action and the legal ones. ``parallel_env()``
is ``env()`` under PettingZoo's turn-based parallel API
(``turn_based_aec_to_parallel``): every ``step`` takes a dict of actions of which
only the acting agent's, the one whose ``action_mask`` is not all zero, is played.
The game is turn-based, with the order of play set by the auction and the tricks,
so ``metadata["is_parallelizable"]`` is False: PettingZoo's simultaneous-move
``aec_to_parallel`` does not apply.

Keyword arguments: ``rules`` (a :class:`~briscola_env.rules.RulesConfig` or a
preset name) plus any rules field to override (``call_rule="at_least"``),
``reward``, ``obs_dtype`` (``"uint8"``, the default, or ``"float32"``),
``render_mode`` (``"ansi"`` returns, ``"human"`` prints the table),
``render_view`` (``"omniscient"``, or a seat: only its hand is shown) and
``lang`` (``"it"`` or ``"en"`` card names).

``reset(seed=..., options={"hands": [five lists of 8 card ids], "dealer": seat})``
plays a given deal (replays, duplicate play); otherwise the deal is drawn
from the env's own generator, seeded by ``seed``, and so is the dealer unless
``options={"dealer": seat}`` names him.

**Variants that change the table** (RULES.md): with ``monte=True`` (preset ``monte``) the hands
are of 7 cards, the caller takes the monte and makes five ``discard`` decisions (phase 4, the
play-card ids) before the call, seven tricks follow, and ``reset(options=...)`` takes the monte's
five cards as ``"monte"`` beside ``"hands"``; the views have a ``monte`` and a ``discards``
section and the state a monte and discards too. With ``players=4`` (preset ``four_players``) the
agents are ``player_0`` .. ``player_3``, the hands of 10 cards (``"hands"``: four lists) and the
hand ten tricks. The observation space's size is that of
:func:`~briscola_env.observation.observation_spec` of the rules (1635 in the standard game),
the state's that of :func:`~briscola_env.observation.privileged_spec`.

As in PettingZoo's classic games, once the hand is over each agent steps out
with ``step(None)``; ``step`` or ``last`` after every agent has stepped out,
or any call but ``reset`` before the first hand, raises a ``RuntimeError``
saying so.

One hand is a :class:`~briscola_env.game.Game`: a batch of one of the batched engine, stepped by
:func:`~briscola_env.engine.step_one`, so this environment plays by the very rules implementation
that training and evaluation use.
"""

from __future__ import annotations

from typing import Any, Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from .actions import NUM_ACTIONS, action_to_text
from .engine import MAX_SEED, PHASE_NAMES, Phase, deal_from_seeds, hands_to_deal
from .game import Game
from .game_view import GameViews
from .observation import ObservationSpec, check_obs_dtype, encode_privileged, observation_spec, privileged_spec
from .render import render_text
from .rewards import check_reward_mode, rewards_for
from .rules import RulesConfig, resolve_rules

ENV_NAME = "briscola_chiamata_v0"  # metadata["name"]: PettingZoo's name_vN
ENV_ID = f"briscola/{ENV_NAME}"  # the registry id: namespace/name_vN, as "classic/connect_four_v3"


# The outcome fields of every info before the hand ends (and, but for ``void``, of a void hand).
NO_OUTCOME = {"void": False, "caller": -1, "partner": -1, "team_points": -1, "made": False, "multiplier": 0}


def env(illegal_reward: float = -1.0, **kwargs) -> AECEnv:
    """The environment with PettingZoo's standard wrappers (see the module docstring)."""
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=illegal_reward)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def parallel_env(illegal_reward: float = -1.0, **kwargs) -> ParallelEnv:
    """:func:`env` under PettingZoo's turn-based parallel API (see the module docstring)."""
    return turn_based_aec_to_parallel(env(illegal_reward, **kwargs))


def observation_box(spec: ObservationSpec, dtype: np.dtype) -> spaces.Box:
    """The space of ``spec``'s views in ``dtype``: raw up to ``spec.high``, or scaled to [0, 1]."""
    if dtype == spec.dtype:
        return spaces.Box(low=0, high=spec.high, shape=spec.shape, dtype=spec.dtype)
    return spaces.Box(low=0.0, high=1.0, shape=spec.shape, dtype=dtype)


def _is_seat(value, seats: int) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) \
        and bool(0 <= value < seats)


class raw_env(AECEnv):
    """One hand of Briscola Chiamata for five agents, or four (see the module docstring)."""

    metadata = {
        "name": ENV_NAME,
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, rules: Union[RulesConfig, str, None] = None, reward: str = "payoff",
                 render_mode: Optional[str] = None, render_view: Union[str, int] = "omniscient",
                 lang: str = "it", obs_dtype: str = "uint8", **rule_overrides):
        super().__init__()
        self.rules = resolve_rules(rules, **rule_overrides)
        self.reward_mode = check_reward_mode(reward)
        self.obs_dtype = check_obs_dtype(obs_dtype)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None; "
                             f"got {render_mode!r}")
        self.seats = self.rules.table_shape.seats
        if render_view != "omniscient" and not _is_seat(render_view, self.seats):
            raise ValueError(f"render_view must be 'omniscient' or a seat 0..{self.seats - 1}; got {render_view!r}")
        if lang not in ("it", "en"):
            raise ValueError(f"lang must be 'it' or 'en'; got {lang!r}")
        self.render_mode, self.render_view, self.lang = render_mode, render_view, lang
        self._viewer = None if render_view == "omniscient" else int(render_view)  # the seat whose hand is shown

        self.possible_agents = [f"player_{s}" for s in range(self.seats)]
        self.spec, self.state_spec = observation_spec(self.rules), privileged_spec(self.rules)
        self.agents = self.possible_agents[:]
        self._seat = {agent: s for s, agent in enumerate(self.possible_agents)}
        # One space object for every agent, as PettingZoo expects.
        self._observation_space = spaces.Dict({
            "observation": observation_box(self.spec, self.obs_dtype),
            "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
        })
        self._action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._observation_space)
        self.state_space = observation_box(self.state_spec, self.obs_dtype)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action_space)
        self._rng = np.random.default_rng()
        self.game: Optional[Game] = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    # --- the episode ------------------------------------------------------------------

    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)  # the env's own generator; global state is untouched
        options = options or {}  # other keys are ignored, as Gymnasium's reset does
        if not isinstance(options, dict):
            raise ValueError(f"options must be a dict; got {type(options).__name__}")
        dealer = options.get("dealer")
        seats = f"a seat 0..{self.seats - 1}"
        if "dealer" in options and not _is_seat(dealer, self.seats):
            raise ValueError(f'options["dealer"] must be {seats}; got {dealer!r}')
        if "monte" in options and "hands" not in options:
            raise ValueError('options "monte" goes with "hands" (and "dealer"): the whole deal')
        if "hands" in options:
            if "dealer" not in options:
                raise ValueError(f'options "hands" needs a "dealer" too ({seats})')
            deal = hands_to_deal(options["hands"], options.get("monte"), self.rules)
            dealer = int(options["dealer"])
        else:
            deals, dealers = deal_from_seeds(self._rng.integers(0, MAX_SEED, 1), self.rules)
            deal = deals[0]
            dealer = int(dealers[0]) if dealer is None else int(dealer)
        self.game = game = Game(self.rules, deal, dealer)
        self._views = GameViews(game)

        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._set_infos(game.phase)
        self.agent_selection = self.possible_agents[game.current_player]
        self._observed: dict[str, dict] = {}

    def _check_hand(self, call: str, needs_agents: bool = True) -> Game:
        """The hand in play; a clear error instead of a KeyError for calls out of order (PettingZoo's
        wrappers give their own; ``raw_env`` stays plain)."""
        if self.game is None:
            raise RuntimeError(f"call reset() before {call}()")
        if needs_agents and not self.agents:
            raise RuntimeError(f"{call}() after the hand is over and every agent has stepped out; "
                               "call reset() for the next hand")
        return self.game

    def last(self, observe: bool = True):
        self._check_hand("last")
        return super().last(observe)

    def observe(self, agent: str) -> dict:
        game = self._check_hand("observe", needs_agents=False)  # a finished hand can still be observed
        if agent not in self._seat:
            raise ValueError(f"unknown agent {agent!r}; agents: {', '.join(self.possible_agents)}")
        if agent not in self._observed:  # cached until the next step
            if agent == self.agent_selection and not game.terminated:
                mask = game.legal_mask().copy()  # the caller's own array, as the view is
            else:
                mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            view = self.spec.in_dtype(self._views.observe(self._seat[agent]), self.obs_dtype)
            self._observed[agent] = {"observation": view, "action_mask": mask}
        return self._observed[agent]

    def state(self) -> np.ndarray:
        """``(self.state_spec.size,)`` uint8 (or float32, as ``obs_dtype``), a new array: every
        hand and the partner, relative to the seat to act (seat 0 once the hand is over). For
        centralized critics only."""
        game = self._check_hand("state", needs_agents=False)
        view = encode_privileged(game.state, np.array([max(game.current_player, 0)]))[0]
        return self.state_spec.in_dtype(view, self.obs_dtype)

    def step(self, action) -> None:
        game = self._check_hand("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
                or not 0 <= action < NUM_ACTIONS or not game.legal_mask()[action]:
            legal = ", ".join(action_to_text(a, self.rules.ten_card) for a in game.legal_actions())
            what = (f"{action} ({action_to_text(action, self.rules.ten_card)!r})"
                    if isinstance(action, (int, np.integer)) and 0 <= action < NUM_ACTIONS else repr(action))
            raise ValueError(f"{agent}: illegal action {what} in phase {PHASE_NAMES[game.phase]!r}; "
                             f"legal actions: {legal}")
        self._views.step(int(action))
        self._observed.clear()
        self._cumulative_rewards[agent] = 0.0
        if game.terminated:
            self._end_hand(game)
        else:
            self.agent_selection = self.possible_agents[game.current_player]
            self._clear_rewards()
            self._set_infos(game.phase)
        if self.render_mode == "human":
            self.render()

    def _end_hand(self, game: Game) -> None:
        rewards = rewards_for(self.reward_mode, np.array([game.payoffs]), np.array([game.caller]),
                              np.array([game.partner]), np.array([game.team_points]), np.array([game.made]))[0]
        outcome = {"void": True} if game.void else {
            "caller": int(game.caller), "partner": int(game.partner), "team_points": int(game.team_points),
            "made": bool(game.made), "multiplier": int(game.multiplier),
        }
        for s, agent in enumerate(self.possible_agents):
            self.rewards[agent] = float(rewards[s])
            self.terminations[agent] = True
        self._set_infos(Phase.DONE, outcome, np.asarray(game.payoffs, dtype=np.float64))
        self._accumulate_rewards()

    def _set_infos(self, phase: int, outcome: Optional[dict] = None, payoffs: Optional[np.ndarray] = None) -> None:
        """New dicts, not updates of the old ones (an info a caller kept stays as it was), each with
        every key: the outcome's "not yet" values, then ``outcome`` over them."""
        payoffs = np.zeros(self.seats) if payoffs is None else payoffs
        values = {"phase": int(phase), **NO_OUTCOME, **(outcome or {})}
        # The array is copied per agent: a caller mutating one info must not change another's.
        self.infos = {agent: {**values, "payoffs": payoffs.copy()} for agent in self.possible_agents}

    # --- display ---------------------------------------------------------------------

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        if self.game is None:
            raise RuntimeError("call reset() before render()")
        text = render_text(self.game, viewer=self._viewer, lang=self.lang, names=self.possible_agents)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
