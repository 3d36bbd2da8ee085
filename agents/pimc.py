"""Perfect-Information Monte Carlo search (spec ``pimc:worlds=32,rollout=heuristic``).

At each decision the agent samples ``worlds`` deals of the cards it cannot see,
uniformly among those consistent with its view (:mod:`briscola_env.worlds`),
and, for each candidate action, plays every world to the end with a rollout
policy for every seat; it takes the action with the best mean payoff for
its own seat. It decides in every phase: bids, a monte's discards, the call and card play.

Everything is batched on the engine: the decisions of all the games passed to
:meth:`PIMCAgent.act` at once, times their candidate actions, times the
worlds, stepped together in chunks of at most ``max_games`` games (a few
thousand: larger batches spill out of the caches and run slower per game).

The rollout is an agent or an agent spec (:mod:`agents.spec`) naming one of :data:`ROLLOUT_AGENTS`;
in a spec, a rollout spec with options goes in brackets:
``pimc:worlds=32,rollout=[ppo:runs/x/checkpoint.pt,greedy=true]``. It is no search itself, nor a
hybrid (:mod:`.hybrid`) with a search among its parts: every rollout step would search in turn.

Candidates are all legal calls and cards; in the auction, the pass and the
``bids`` cheapest legal bids (the dearer bids follow from the cheap ones
later in the auction, and 60 point bids times the worlds would be costly).
A decision with a single legal action is taken without search.

The worlds count equally (``weights=uniform``), or by how likely each makes the other players'
past actions (``weights=policy``: policy-based inference, as in Skat): every world's history is
replayed, and each action another player chose (among two or more legal ones) scores the policy
model's probability of it from that player's view in that world; a world's weight is the product
of those probabilities, raised to ``weight_power`` (1 is Bayes' rule with the policy as the model of
the players; below 1 trusts it less, 0 is uniform). The policy is ``model`` (default: the rollout
policy), which must give log-probabilities (``log_probabilities(obs, mask)``, as a ppo agent does):
``pimc:worlds=32,rollout=ppo:checkpoints/strong.pt,weights=policy``, or with heuristic rollouts
``pimc:worlds=32,weights=policy,model=ppo:checkpoints/strong.pt``.

``belief`` is the hook for a belief model (:mod:`agents.belief`): a callable taking the
observations ``(n, spec.size)`` and the sampled deals ``(n, worlds, 40)``
(each card's seat, relative to the observer) and returning ``(n, worlds)``
non-negative weights for the worlds, which multiply those above.
"""

from __future__ import annotations

from typing import Callable, Optional, Union

import numpy as np

from briscola_env import engine
from briscola_env.actions import NUM_ACTIONS, PASS, RANK_BID_OFFSET
from briscola_env.cards import NUM_CARDS
from briscola_env.engine import Phase
from briscola_env.observation import encode, encode_state_of_play, observation_spec
from briscola_env.rules import RulesConfig
from briscola_env.worlds import PublicView, decode, replay, sample_worlds, world_states

from .base import Agent, check_number
from .heuristic import HeuristicAgent
from .hybrid import HybridAgent
from .random_agent import RandomAgent
from .spec import build_agent

# The agents a rollout spec may name, besides ppo:<checkpoint> and package.module:Class: all but pimc
# (and a hybrid only without a pimc part: :func:`searches`).
ROLLOUT_AGENTS: dict[str, type[Agent]] = {"random": RandomAgent, "heuristic": HeuristicAgent, "hybrid": HybridAgent}
WEIGHTS = ("uniform", "policy")  # how the sampled worlds count (the module docstring)


def searches(agent: Agent) -> bool:
    """Whether ``agent`` is a PIMC search or a hybrid with one among its parts, at any depth: not a
    rollout policy, as each of its steps would search in turn."""
    if isinstance(agent, HybridAgent):
        return any(searches(part) for part in agent.parts)
    return isinstance(agent, PIMCAgent)


class PIMCAgent(Agent):
    """Perfect-information Monte Carlo search over sampled deals (see the module docstring)."""

    name = "pimc"

    def __init__(self, rules: Optional[RulesConfig] = None, worlds: int = 32,
                 rollout: Union[str, Agent] = "heuristic", bids: int = 3, max_games: int = 4096,
                 belief: Optional[Callable] = None, weights: str = "uniform", weight_power: float = 1.0,
                 model: Union[str, Agent, None] = None, seed: Optional[int] = None):
        self.worlds, self.bids, self.max_games = (check_number("pimc", name, value, integer=True, least=1)
                                                  for name, value in (("worlds", worlds), ("bids", bids),
                                                                      ("max_games", max_games)))
        self.weight_power = check_number("pimc", "weight_power", weight_power, least=0)
        if weights not in WEIGHTS:
            raise ValueError(f"pimc: weights must be one of {', '.join(WEIGHTS)}; got {weights!r}")
        self.weights = weights
        self.rules = rules or RulesConfig()
        self.belief = belief
        self.rollout = self._agent("rollout", rollout)
        self.model = self.rollout if model is None else self._agent("model", model)
        if weights == "policy" and not callable(getattr(self.model, "log_probabilities", None)):
            raise ValueError(f"pimc: weights=policy needs a policy model that gives log-probabilities (a "
                             f"ppo:<checkpoint> agent, as model= or as the rollout); {self.model!r} does not")
        super().__init__(seed)

    def _agent(self, role: str, agent: Union[str, Agent]) -> Agent:
        """The rollout policy or the policy model, from its spec (:data:`ROLLOUT_AGENTS`, ppo:PATH, ...)."""
        if isinstance(agent, str):
            if agent.split(":")[0] == "pimc":
                raise ValueError(f"pimc: the {role} policy cannot itself be pimc")
            agent = build_agent(agent, ROLLOUT_AGENTS, rules=self.rules)
        if not isinstance(agent, Agent):
            raise ValueError(f"pimc: {role} must be an agent spec or an Agent; got {agent!r}")
        if searches(agent):
            raise ValueError(f"pimc: the {role} policy cannot itself be pimc, nor a hybrid with a pimc part; "
                             f"got {agent!r}")
        return agent

    def reset(self, seed: Optional[int] = None) -> None:
        super().reset(seed)
        self.rollout.reset(int(self.rng.integers(2**32)))

    def __repr__(self) -> str:
        weights = "" if self.weights == "uniform" else \
            f", weights={self.weights}, weight_power={self.weight_power}, model={self.model!r}"
        return f"PIMCAgent(worlds={self.worlds}, rollout={self.rollout!r}, bids={self.bids}{weights})"

    # --- deciding ----------------------------------------------------------------------

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != (len(obs), NUM_ACTIONS) or not mask.any(axis=1).all():
            raise ValueError(f"pimc: mask must be ({len(obs)}, {NUM_ACTIONS}) bool with a legal action per game")
        candidates = self.candidates(obs, mask)
        actions = candidates.argmax(axis=1)  # the first candidate; kept where it is the only one
        search = np.flatnonzero(candidates.sum(axis=1) > 1)
        if search.size:
            values = self.action_values(obs[search], candidates[search])
            actions[search] = np.where(candidates[search], values, -np.inf).argmax(axis=1)
        return actions

    def candidates(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``(n, 151)`` bool: the actions searched (see the module docstring)."""
        candidates = mask.copy()
        bidding = np.flatnonzero(observation_spec(self.rules).view(obs, "phase")[:, Phase.AUCTION] == 1)
        bids = candidates[bidding, RANK_BID_OFFSET:]  # ids ascending: the cheapest bids first
        cheapest = np.cumsum(bids, axis=1) <= self.bids
        candidates[bidding, RANK_BID_OFFSET:] = bids & cheapest
        return candidates

    def action_values(self, obs: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """``(n, 151)`` mean payoff of each candidate action over the sampled worlds (0 elsewhere)."""
        public = decode(obs, self.rules)
        sampled = sample_worlds(public, self.worlds, self.rng)
        deals, discards = sampled.deals, sampled.discards  # (n, K, 40) each
        weights = self.policy_weights(public, deals, discards) if self.weights == "policy" else np.ones(deals.shape[:2])
        if self.belief is not None:
            belief = np.asarray(self.belief(obs, deals), float)
            if belief.shape != deals.shape[:2] or (belief < 0).any() or not (belief.sum(axis=1) > 0).all():
                raise ValueError(f"pimc: belief must return ({len(obs)}, {self.worlds}) non-negative weights, "
                                 "not all zero in a row")
            weights = weights * belief
            empty = ~(weights.sum(axis=1) > 0)  # the policy left no weight on the worlds the belief allows
            weights[empty] = belief[empty]
        weights = weights / weights.sum(axis=1, keepdims=True)
        state = replay(public, deals[:, 0], discards[:, 0])  # the public history is the same in every world
        position, action = np.nonzero(candidates)
        values = np.zeros(candidates.shape)
        per_chunk = max(1, self.max_games // self.worlds)
        for start in range(0, len(position), per_chunk):
            pos, act = position[start:start + per_chunk], action[start:start + per_chunk]
            games = world_states(state, public, deals[pos].reshape(-1, NUM_CARDS), np.repeat(pos, self.worlds),
                                 discards[pos].reshape(-1, NUM_CARDS))
            engine.step_inplace(games, np.repeat(act, self.worlds))
            payoff = self.play_out(games)[:, 0].reshape(len(pos), self.worlds)  # seat 0: the observer
            values[pos, act] = (payoff * weights[pos]).sum(axis=1)
        return values

    def policy_weights(self, public: PublicView, deals: np.ndarray, discards: np.ndarray) -> np.ndarray:
        """``(n, K)`` positive weights of the worlds ``deals`` ``(n, K, 40)``: the policy model's
        likelihood of the other players' past choices in each, to the power ``weight_power``, scaled
        so that each row's likeliest world weighs 1 (see the module docstring)."""
        n, worlds = deals.shape[:2]
        log_likelihood = np.zeros(n * worlds)

        def score(state: engine.State, actions: np.ndarray, active: np.ndarray) -> None:
            seat = state.current_player.astype(np.int64)
            chose = np.flatnonzero(active & (seat > 0) & (state.legal_action_mask.sum(axis=1) > 1))
            if chose.size:
                choosers = state if chose.size == len(seat) else state.take(chose)
                log_probs = self.model.log_probabilities(encode(choosers, seat[chose]), choosers.legal_action_mask)
                log_likelihood[chose] += log_probs[np.arange(chose.size), actions[chose]]

        replay(public.take(np.repeat(np.arange(n), worlds)), deals.reshape(-1, NUM_CARDS),
               discards.reshape(-1, NUM_CARDS), observe=score)
        log_likelihood = self.weight_power * log_likelihood.reshape(n, worlds)
        return np.exp(log_likelihood - log_likelihood.max(axis=1, keepdims=True))

    def play_out(self, state: engine.State) -> np.ndarray:
        """Play every game of ``state`` to its end with the rollout policy; ``(B, seats)`` payoffs."""
        n = state.batch_size
        view = encode if self.rollout.reads_history else encode_state_of_play  # (see Agent.reads_history)
        while not state.terminated.all():
            live = np.flatnonzero(~state.terminated)
            obs = view(state, np.maximum(state.current_player, 0).astype(np.int64))
            mask = state.legal_action_mask
            actions = np.full(n, PASS, dtype=np.int64)
            if len(live) == n:
                actions[:] = self.rollout.act(obs, mask)
            else:
                actions[live] = self.rollout.act(obs[live], mask[live])
            engine.step_inplace(state, actions)
        return state.rewards
