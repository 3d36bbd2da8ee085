"""The tables of the web page: hand after hand at five seats, each an agent or the person.

A :class:`Table` drives the PettingZoo environment (:class:`briscola_env.raw_env`, whose
:class:`~briscola_env.game.Game` plays the hand) the way ``briscola play``
(:func:`evaluation.terminal.play_in_terminal`) does, so the same seed and the same moves give
the same hands, the same agents' answers and the same payoffs in both: the first deal drawn as
``raw_env().reset(seed=seed)`` draws it, the agent at seat ``s`` seeded ``seed + s``, and each
next hand dealt by the next seat. Play mode seats the person at one seat and lets the agents
play on up to the person's turn (:meth:`Table.play_agents`); watch mode seats five agents and
moves one action at a time (:meth:`Table.step`).

A request the game cannot take now (a move that is not legal, a move after the end of the
hand, the next hand before this one ends) raises :class:`NotNow` before anything changes.
With a record file, each finished hand is appended to it as a game record
(:mod:`briscola_env.records`), the person's seat named ``human`` among the agents' specs; a hand
that cannot be written stands, and the view's ``record_error`` says so until a later hand is written.
The agents come from an :class:`.pool.AgentPool`, which loads each network once for all the tables
of a server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from agents import AECPolicy
from briscola_env import raw_env, records
from briscola_env.actions import action_to_text
from briscola_env.cards import NUM_CARDS, NUM_SEATS
from briscola_env.engine import PHASE_NAMES, Phase
from briscola_env.rules import RulesConfig
from evaluation.terminal import describe_moves, hand_outcome

from .pool import AgentPool
from .view import moves_view, table_view

HUMAN = "human"  # the person's seat among a record's agents
SEAT_NAMES = tuple(f"player_{s}" for s in range(NUM_SEATS))  # as the environment names its agents

# Why a move of the wrong kind is refused, by phase: the page's refusal message says it first.
PHASE_HINTS = {Phase.AUCTION: "the auction is on: bid or pass (cards are played after the call)",
               Phase.CALL: "you won the auction: call a card first",
               Phase.PLAY: "that card cannot be played now"}


class NotNow(Exception):
    """A well-formed request that the game cannot take in its present state; nothing was changed."""


def deal_of(game) -> list[int]:
    """The seat holding each of the 40 cards, read from a hand before its first card is played."""
    holder = [-1] * NUM_CARDS
    for seat, hand in enumerate(game.hands):
        for card in hand:
            holder[card] = seat
    return holder


class Table:
    """Hands of Briscola Chiamata at five seats: ``specs[s]`` an agent spec, or None for the person.

    ``record_file``: a JSON Lines file each finished hand is appended to (None: no records). ``agents``:
    the server's :class:`.pool.AgentPool`, whose networks the table's agents share (None: a pool of the
    table's own)."""

    def __init__(self, specs: Sequence[Optional[str]], seed: Optional[int], rules: RulesConfig,
                 record_file: Optional[Path] = None, agents: Optional[AgentPool] = None):
        if len(specs) != NUM_SEATS or sum(spec is None for spec in specs) > 1:
            raise ValueError(f"a table has {NUM_SEATS} seats, each an agent spec or the one person (None); "
                             f"got {list(specs)!r}")
        agents = AgentPool(rules) if agents is None else agents
        if agents.rules != rules:
            raise ValueError("agents: the pool's agents play other rules than the table's; give a pool of the "
                             "table's rules (AgentPool(rules)), or none")
        self.rules = rules
        self.person = next((s for s, spec in enumerate(specs) if spec is None), None)
        self.labels = [HUMAN if spec is None else spec for spec in specs]
        self.policies = {s: AECPolicy(agents.agent(spec, None if seed is None else seed + s))
                         for s, spec in enumerate(specs) if spec is not None}
        self.record_file = record_file
        self.record_error: Optional[str] = None
        self.totals = [0.0] * NUM_SEATS
        self.hands_played = 0
        self.env = raw_env(rules=rules)
        self.env.reset(seed=seed)
        self._begin_hand()

    def _begin_hand(self) -> None:
        self.deal = deal_of(self.game)
        self.moves: list[tuple[int, int]] = []  # (seat, action id), this hand's so far

    @property
    def game(self):
        """The hand in play (or just finished): a :class:`~briscola_env.game.Game`."""
        return self.env.game

    @property
    def over(self) -> bool:
        return self.game.terminated

    def person_to_act(self) -> bool:
        return not self.over and self.game.current_player == self.person

    # --- moves -------------------------------------------------------------------------------

    def _apply(self, action: int) -> None:
        seat = self.game.current_player
        self.env.step(action)
        self.moves.append((seat, action))
        if self.over:
            self._finish_hand()

    def step(self) -> None:
        """One action of the agent to act (watch mode)."""
        if self.over:
            raise NotNow("the hand is over: deal the next hand")
        if self.person_to_act():
            raise NotNow("it is the person's turn, not an agent's")
        seat = self.game.current_player
        self._apply(self.policies[seat](self.env.observe(SEAT_NAMES[seat])))

    def play_agents(self) -> None:
        """The agents' actions up to the person's turn or the end of the hand (play mode)."""
        while not self.over and not self.person_to_act():
            self.step()

    def act(self, action: int) -> None:
        """The person's move ``action`` (an action id), then the agents' up to the person's next turn."""
        if self.person is None:
            raise NotNow("nobody plays here but agents: there is no seat of yours")
        if self.over:
            raise NotNow("the hand is over: deal the next hand")
        if not self.person_to_act():  # never between requests: the agents play on at once
            raise NotNow(f"it is {SEAT_NAMES[self.game.current_player]}'s turn")
        legal = self.game.legal_actions()
        if action not in legal:
            ten = self.rules.ten_card
            raise NotNow(f"{action_to_text(action, ten)!r} is not allowed now; {PHASE_HINTS[self.game.phase]}. "
                         f"Your legal moves: {describe_moves(legal, ten)}")
        self._apply(action)
        self.play_agents()

    def next_hand(self) -> None:
        """Deal the next hand, the deal passing to the next seat."""
        if not self.over:
            raise NotNow(f"the hand is still being played (phase {PHASE_NAMES[self.game.phase]}): "
                         "finish it before dealing the next")
        self.env.reset(options={"dealer": (self.game.dealer + 1) % NUM_SEATS})
        self._begin_hand()

    def _finish_hand(self) -> None:
        self.totals = [total + payoff for total, payoff in zip(self.totals, self.game.payoffs)]
        self.hands_played += 1
        if self.record_file is not None:
            try:
                records.write(self.record_file, [records.record(self.rules, self.deal, self.game.dealer,
                                                                [a for _, a in self.moves], self.labels)])
            except OSError as error:  # the hand stands; the page says it was not recorded, until one is
                self.record_error = f"hand {self.hands_played} was not recorded: could not write to " \
                                    f"{self.record_file.name}: {error.strerror or error}"
            else:
                self.record_error = None

    # --- what the page shows ------------------------------------------------------------------

    def view(self, viewer: Optional[int] = None, face_up: bool = False) -> dict:
        """The table as ``viewer`` sees it (:func:`.view.table_view`), with the legal moves when it is
        the person's turn and ``viewer`` is the person, this hand's moves, and the session's totals."""
        game = self.game
        ten = self.rules.ten_card
        shown = table_view(game, SEAT_NAMES, self.labels, viewer, face_up)
        yours = viewer is not None and viewer == self.person
        result = hand_outcome(game, self.person) if yours and self.over else None
        return {**shown,
                "moves": moves_view(game) if yours and self.person_to_act() else None,
                "log": [{"seat": s, "text": action_to_text(a, ten)} for s, a in self.moves],
                "your_result": result,
                "session": {"hands": self.hands_played, "totals": self.totals,
                            "next_dealer": (game.dealer + 1) % NUM_SEATS if self.over else None},
                "record_error": self.record_error}
