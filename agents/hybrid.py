"""One agent for the auction, another for the play (spec ``hybrid:auction=heuristic,play=ppo:checkpoints/best.pt``).

A hybrid splits a hand at the end of the auction: the ``auction`` agent makes the bids and, if
it wins, calls the partner card; the ``play`` agent plays the cards and, with a monte
(``RulesConfig.monte``), makes the caller's discards, which belong with the play as they decide
the cards he keeps. So a bidding style can be measured apart from the card play it is paired
with (a cautious heuristic auction under a trained network's play, say), and a network that
plays well but bids badly can keep its play.

Each part is an agent or an agent spec (:mod:`agents.spec`), ``ppo:<checkpoint>`` or
``package.module:Class`` or a name of the table of agents the hybrid's own spec was built from
(``agents``): from :func:`agents.make_agent`, any of :data:`agents.registry.AGENTS`, a hybrid or a
search included; in a search's rollout, none but :data:`agents.pimc.ROLLOUT_AGENTS`, so no search;
built directly, :data:`PART_AGENTS` and hybrid. A part's spec with options goes in brackets:
``hybrid:auction=[heuristic:bid=1],play=[ppo:checkpoints/strong.pt,greedy=true]``. Both parts
play by the hybrid's rules.

An optional third part, ``defend``, plays the cards of a defender: a player who is neither the caller nor
holds the called card, as his own view shows it (``hybrid:auction=A,play=B,defend=C``); ``play`` then plays
the caller's side (the caller, and the partner who knows he holds the called card). So defence is measured
apart from the play of a contract: a card play that defends well may make contracts badly.

Every row of a batch goes to one part, by the phase its view shows (auction and call to
``auction``; play and discards to ``play``, or a defender's play to ``defend``); a part is asked only
about its own rows, and not at all when it has none. Resetting the hybrid with a seed reseeds the
parts with seeds drawn from it, the auction's, the play's, then the defence's, so a hybrid is as
reproducible as its parts (the evaluation reseeds agents by their role at the table, and a hybrid follows).
"""

from __future__ import annotations

from typing import Optional, Union

import numpy as np

from briscola_env.engine import Phase
from briscola_env.observation import observation_spec
from briscola_env.rules import RulesConfig

from .base import Agent
from .heuristic import HeuristicAgent
from .random_agent import RandomAgent
from .spec import build_agent

# Which part decides in each phase: the bids and the call are the auction's, the cards and the discards the play's.
AUCTION_PHASES = (Phase.AUCTION, Phase.CALL)
PLAY_PHASES = (Phase.PLAY, Phase.DISCARD)
# The agents a part's spec may name when the hybrid is built directly, not from a spec (with hybrid itself):
# the registry's table, which adds the search, imports this module, so it cannot be imported here.
PART_AGENTS: dict[str, type[Agent]] = {"random": RandomAgent, "heuristic": HeuristicAgent}


class HybridAgent(Agent):
    """The ``auction`` agent's bids and call with the ``play`` agent's cards and discards, and optionally the
    ``defend`` agent's cards when defending (the module docstring)."""

    name = "hybrid"

    def __init__(self, auction: Union[str, Agent], play: Union[str, Agent], rules: Optional[RulesConfig] = None,
                 seed: Optional[int] = None, agents: Optional[dict[str, type[Agent]]] = None,
                 defend: Optional[Union[str, Agent]] = None):
        self.rules = rules or RulesConfig()
        self.spec = observation_spec(self.rules)
        self.agents = {**PART_AGENTS, "hybrid": HybridAgent} if agents is None else agents
        self.auction = self._part("auction", auction)
        self.play = self._part("play", play)
        self.defend = self._part("defend", defend) if defend is not None else None
        # A view may be cut short before its history only if no part reads it.
        self.reads_history = any(part.reads_history for part in self.parts)
        super().__init__(seed)

    def _part(self, role: str, agent: Union[str, Agent]) -> Agent:
        """The ``role`` part, from its spec (a name of ``self.agents``, ppo:PATH, ...) or as given."""
        if isinstance(agent, str):
            agent = build_agent(agent, self.agents, rules=self.rules)
        if not isinstance(agent, Agent):
            raise ValueError(f"hybrid: {role} must be an agent spec or an Agent; got {agent!r}")
        return agent

    @property
    def parts(self) -> tuple[Agent, ...]:
        """``(auction, play)``, or ``(auction, play, defend)``: the agents a hybrid is made of."""
        return (self.auction, self.play) if self.defend is None else (self.auction, self.play, self.defend)

    def reset(self, seed: Optional[int] = None) -> None:
        """Reseed the hybrid and its parts: each part's seed is drawn from the hybrid's generator, in the
        order of :attr:`parts`, so one seed fixes the play of the whole hybrid."""
        super().reset(seed)
        for part in self.parts:
            part.reset(int(self.rng.integers(2**32)))

    def __repr__(self) -> str:
        defend = "" if self.defend is None else f", defend={self.defend!r}"
        return f"HybridAgent(auction={self.auction!r}, play={self.play!r}{defend})"

    def defending(self, obs: np.ndarray) -> np.ndarray:
        """Per view: the player is neither the caller (relative seat 0 of ``caller``) nor holds the called card."""
        caller = self.spec.view(obs, "caller")[:, 0] == 1
        return ~caller & (self.spec.view(obs, "i_hold_called")[:, 0] == 0)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        phase = self.spec.view(obs, "phase").argmax(axis=1)
        to_play = np.isin(phase, PLAY_PHASES)
        finished = ~(to_play | np.isin(phase, AUCTION_PHASES))
        if finished.any():
            raise ValueError(f"hybrid: {int(finished.sum())} of the {len(obs)} views are of a finished hand "
                             "(phase DONE), where no one acts; pass only the views of players to act")
        actions = np.empty(len(obs), dtype=np.int64)
        defends = to_play & (phase == Phase.PLAY) & self.defending(obs) if self.defend is not None \
            else np.zeros(len(obs), dtype=bool)
        for part, rows in ((self.auction, np.flatnonzero(~to_play)), (self.play, np.flatnonzero(to_play & ~defends)),
                           (self.defend, np.flatnonzero(defends))):
            if rows.size == len(obs):
                actions[:] = part.act(obs, mask)  # no copy when every game is with the same part
            elif rows.size:
                actions[rows] = part.act(obs[rows], mask[rows])
        return actions
