"""One hand of Briscola Chiamata as plain Python values, played by the batched engine.

:class:`Game` is a batch of one :class:`~briscola_env.engine.State`, stepped by
:func:`~briscola_env.engine.step_one`, so that the one-game modules (the PettingZoo
environment, the game records, the text table, the terminal and the web table) play by the
same rules implementation as training and evaluation. It reads the state back as ints, lists
and sets of card ids, named as in ``docs/RULES.md``: ``hands[s]``, ``auction`` as
``(seat, action id)`` pairs, ``tricks`` as lists of ``(seat, card id)`` pairs and so on.
Nothing is kept beside the engine's state but the deal, so no second record of the hand can
drift from it.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from . import engine
from .actions import NUM_ACTIONS
from .cards import NUM_CARDS
from .engine.bits import WORD
from .engine.state import partner_revealed
from .rules import RulesConfig


def card_set(word: int) -> set[int]:
    """The card ids of a card set held as an int (bit ``c`` for card ``c``)."""
    cards = set()
    while word:
        low = word & -word
        cards.add(low.bit_length() - 1)
        word ^= low
    return cards


def card_bits(*sets: int) -> np.ndarray:
    """``(40 * len(sets),)`` uint8: for each card set (an int, bit ``c`` for card ``c``) in turn, 1 where it
    holds the card, indexed by card id. One NumPy call for them all."""
    as_bytes = b"".join(cards.to_bytes(NUM_CARDS // 8, "little") for cards in sets)
    return np.unpackbits(np.frombuffer(as_bytes, dtype=np.uint8), bitorder="little")


_MASK_BYTES = (NUM_ACTIONS + WORD + 7) // 8  # a legal set's word may reach past the last action id


class Game:
    """One hand: the auction, the call, the tricks and the score (and the variants' steps), from
    ``deal`` (each card's holder, a seat, or with a monte ``rules.table_shape.monte_holder``) and
    ``dealer``. :meth:`step` plays an action; the attributes read the hand as it stands."""

    def __init__(self, rules: RulesConfig, deal: Sequence[int] | np.ndarray, dealer: int):
        if not isinstance(rules, RulesConfig):
            raise ValueError(f"rules must be a RulesConfig, got {type(rules).__name__}")
        self.rules = rules
        shape = rules.table_shape
        self.seats, self.num_tricks = shape.seats, shape.tricks
        # (Lists are checked for bools among their ints too, which arrays cannot hold.)
        deals = deal[None] if isinstance(deal, np.ndarray) else [deal]
        dealers = np.array([dealer]) if isinstance(dealer, (int, np.integer)) and not isinstance(dealer, bool) \
            else [dealer]
        self.state = engine.init_from_deals(deals, dealers, rules)  # checks both
        self.deal = np.asarray(deal).tolist()  # each card's holder as dealt
        self.dealer = int(dealer)
        self._mask: np.ndarray | None = None

    # --- playing --------------------------------------------------------------------------------

    def step(self, action: int) -> None:
        """Play ``action`` for the player to act; a ValueError if it is not legal (nothing changes then)."""
        engine.step_one(self.state, action)
        self._mask = None

    def legal_mask(self) -> np.ndarray:
        """``(151,)`` int8, 1 for each legal action of the player to act (all 0 once the hand is over);
        one array per position of the hand, not to be written."""
        if self._mask is None:
            # The legal set as one Python int, bit a for action a, unpacked by one NumPy call.
            legal = engine.legal_set_one(self.state)
            as_bytes = np.frombuffer(legal.to_bytes(_MASK_BYTES, "little"), dtype=np.uint8)
            mask = np.unpackbits(as_bytes, count=NUM_ACTIONS, bitorder="little").view(np.int8)
            mask.setflags(write=False)
            self._mask = mask
        return self._mask

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to act, in id order ([] once the hand is over)."""
        return np.flatnonzero(self.legal_mask()).tolist()

    def points(self, card: int) -> int:
        """The card points of ``card`` under these rules."""
        return int(self.state.tables.points[card])

    # --- the hand as it stands --------------------------------------------------------------------

    @property
    def phase(self) -> int:
        """A :class:`~briscola_env.engine.Phase` code."""
        return self.state.phase.item(0)

    @property
    def current_player(self) -> int:
        """The seat to act, -1 once the hand is over."""
        return self.state.current_player.item(0)

    @property
    def terminated(self) -> bool:
        return self.state.terminated.item(0)

    @property
    def void(self) -> bool:
        """Everybody passed: the hand is over with no caller, and nobody scores."""
        return self.terminated and self.caller < 0

    @property
    def hands(self) -> list[set[int]]:
        """Each seat's cards now (the caller's with the monte's once he takes it, less his discards)."""
        return [card_set(word) for word in self.state.hidden.hand_bits[0].tolist()]

    @property
    def dealt(self) -> list[set[int]]:
        """Each seat's cards as dealt."""
        return [{card for card, holder in enumerate(self.deal) if holder == seat} for seat in range(self.seats)]

    @property
    def monte(self) -> set[int]:
        """The monte's cards as dealt (none without one)."""
        monte = self.state.hidden.monte
        return set() if monte is None else card_set(monte.item(0))

    @property
    def discards(self) -> set[int]:
        """The caller's discards so far (none without a monte)."""
        discards = self.state.hidden.discards
        return set() if discards is None else card_set(discards.item(0))

    @property
    def auction(self) -> list[tuple[int, int]]:
        """``(seat, action id)`` of every bid and pass, in order."""
        state = self.state
        length = state.auction_length.item(0)
        return list(zip(state.auction_seats[0, :length].tolist(), state.auction_actions[0, :length].tolist()))

    @property
    def high_bid(self) -> int:
        """The action id of the standing bid, 0 before any."""
        return self.state.high_bid.item(0)

    @property
    def high_bidder(self) -> int:
        return self.state.high_bidder.item(0)

    @property
    def caller(self) -> int:
        """The auction's winner, -1 until the auction is won (and in a void hand)."""
        return self.state.caller.item(0)

    @property
    def called_card(self) -> int:
        return self.state.called_card.item(0)

    @property
    def trump(self) -> int:
        """The called card's suit, -1 before the call."""
        return self.state.trump.item(0)

    @property
    def partner(self) -> int:
        """The seat holding the called card (the caller himself for a solo), -1 before the call."""
        return self.state.hidden.partner.item(0)

    @property
    def partner_revealed(self) -> bool:
        """The called card has been played, which shows the partner to everyone."""
        state = self.state
        return bool(partner_revealed(state.called_card, state.hidden.held)[0])

    @property
    def tricks(self) -> list[list[tuple[int, int]]]:
        """Each trick begun, as ``(seat, card id)`` in play order."""
        state = self.state
        played, seats = state.cards_played.item(0), self.seats
        cards = state.trick_cards[0].tolist()
        leaders = state.trick_leaders[0].tolist()
        return [[((leaders[t] + i) % seats, cards[t][i]) for i in range(min(seats, played - t * seats))]
                for t in range(-(-played // seats))]

    @property
    def trick_winners(self) -> list[int]:
        """The winner of each finished trick."""
        return [seat for seat in self.state.trick_winners[0].tolist() if seat >= 0]

    @property
    def captured_points(self) -> list[int]:
        """Each seat's card points from the tricks it took."""
        return self.state.captured_points[0].tolist()

    @property
    def tricks_won(self) -> list[int]:
        return self.state.tricks_won[0].tolist()

    @property
    def team_points(self) -> int:
        """The caller's side's points (the discards' with a monte), -1 until the hand is scored."""
        return self.state.team_points.item(0)

    @property
    def made(self) -> bool:
        """The caller's side made its contract (False until the hand is scored)."""
        return self.state.contract_made.item(0)

    @property
    def multiplier(self) -> int:
        """The bid's multiplier times the cappotto's, 0 until the hand is scored (and in a void hand)."""
        return self.state.multiplier.item(0)

    @property
    def payoffs(self) -> list[float]:
        """Each seat's session points once the hand is over (all 0 before, and in a void hand)."""
        return self.state.rewards[0].tolist()

