"""Scalar reference implementation of the rules (docs/RULES.md), one game at a time.

This is the test oracle for the vectorized engine: plain lists, sets and ints,
written to be checked by reading. It follows the action space of
:mod:`briscola_env.actions` and every variant of :class:`RulesConfig`.
"""

from __future__ import annotations

import operator
from typing import Sequence

from .actions import (
    CALL_OFFSET,
    MAX_POINTS,
    PASS,
    PLAY_OFFSET,
    POINT_BID_OFFSET,
    RANK_BID_OFFSET,
    action_to_text,
    bid_points,
    point_bid,
    rank_bid,
)
from .cards import (
    FACE_ORDER,
    FACE_POINTS,
    NUM_CARDS,
    NUM_FACES,
    NUM_SUITS,
    TOTAL_POINTS,
    card_id,
)
from .engine.codes import PHASE_NAMES, Phase
from .rules import RulesConfig

NUM_LEVELS = NUM_FACES  # rank levels 1 (strongest face) .. 10 (weakest)
FIRST_POINTS_AFTER_THE_TWO = 62  # after a standing bid on the 2, points start at "more than 61"


def suit_of(card: int) -> int:
    return card // NUM_FACES


def face_of(card: int) -> int:
    return card % NUM_FACES + 1


def is_rank_bid(action: int) -> bool:
    return RANK_BID_OFFSET <= action < POINT_BID_OFFSET


def is_point_bid(action: int) -> bool:
    return POINT_BID_OFFSET <= action < CALL_OFFSET


def rank_bid_level(action: int) -> int:
    return action - RANK_BID_OFFSET + 1


class ReferenceGame:
    """One hand of Briscola Chiamata: auction, call, eight tricks, scoring (and the variants' steps)."""

    def __init__(self, rules: RulesConfig, deal: Sequence[int], dealer: int):
        """``deal``: each card's holder, a seat, or with a monte ``rules.table_shape.monte_holder``."""
        if not isinstance(rules, RulesConfig):
            raise ValueError(f"rules must be a RulesConfig, got {type(rules).__name__}")
        self.rules = rules
        shape = rules.table_shape
        self.seats, self.num_tricks = shape.seats, shape.tricks
        self.dealer = _seat(dealer, "dealer", self.seats)
        if len(deal) != NUM_CARDS:
            raise ValueError(f"deal must give the seat of each of the {NUM_CARDS} cards, got {len(deal)} entries")
        piles: list[set[int]] = [set() for _ in range(self.seats + 1)]  # the last: the monte
        for card, holder in enumerate(deal):
            piles[_seat(holder, f"deal[{card}]", self.seats + bool(shape.monte_size))].add(card)
        self.hands, self.monte = piles[:-1], piles[-1]
        self.dealt = [set(hand) for hand in self.hands]  # each seat's cards as dealt, kept as they were
        self.discards: set[int] = set()
        sizes = [len(hand) for hand in self.hands]
        if sizes != [shape.hand_size] * self.seats or len(self.monte) != shape.monte_size:
            monte = f" and the monte {shape.monte_size}" if shape.monte_size else ""
            raise ValueError(f"deal must give every seat {shape.hand_size} cards{monte}, got {sizes} cards per seat"
                             + (f" and the monte {len(self.monte)}" if shape.monte_size else ""))

        # Card data for the ten_card variant: level 1 = strongest face, and a
        # lower level always beats a higher one within a suit.
        self._level_of_face = {face: k + 1 for k, face in enumerate(FACE_ORDER[rules.ten_card])}
        self._points_of_face = FACE_POINTS[rules.ten_card]

        self.phase = Phase.AUCTION  # a Phase code
        self.current_player = (self.dealer + 1) % self.seats
        self.auction: list[tuple[int, int]] = []
        self.passed = [False] * self.seats
        self.high_bid = 0
        self.high_bidder = -1

        self.caller = -1
        self.called_card = -1
        self.trump = -1
        self.partner = -1
        self.partner_revealed = False

        self.tricks: list[list[tuple[int, int]]] = []  # a trick is listed once its first card is played
        self.trick_winners: list[int] = []
        self.captured_points = [0] * self.seats
        self.tricks_won = [0] * self.seats

        self.terminated = False
        self.void = False
        self.payoffs = [0.0] * self.seats
        self.team_points = -1
        self.made = False
        self.multiplier = 1

    # ------------------------------------------------------------------ cards

    def level(self, card: int) -> int:
        """Rank level of a card: 1 (strongest face) .. 10 (weakest)."""
        return self._level_of_face[face_of(card)]

    def points(self, card: int) -> int:
        return self._points_of_face.get(face_of(card), 0)

    def callable_cards(self, level: int) -> set[int]:
        """Cards the caller may name after winning the auction on rank ``level``
        (before removing his own cards when self-calls are not allowed)."""
        if self.rules.call_rule == "exact":
            return {c for c in range(NUM_CARDS) if self.level(c) == level}
        return {c for c in range(NUM_CARDS) if self.level(c) <= level}  # "at_least": that rank or stronger

    def callable_after(self, bid: int, hand: set[int]) -> set[int]:
        """Cards a caller whose own cards are ``hand`` may name after winning the auction on
        ``bid`` (his own included; they are removed when self-calls are not allowed)."""
        rules = self.rules
        if is_point_bid(bid) and (rules.bidding == "points_only" or rules.call_after_two == "any"):
            return set(range(NUM_CARDS))  # a points auction, or points after the 2 read as "any": any card
        level = NUM_LEVELS if is_point_bid(bid) else rank_bid_level(bid)  # points of a rank auction follow the 2
        cards = self.callable_cards(level)
        if level == NUM_LEVELS and rules.call_after_two == "two" and rules.call_rule == "exact":
            cards |= self.weakest_missing(hand)
        return cards

    def weakest_missing(self, hand: set[int]) -> set[int]:
        """The call after the 2: for each suit whose 2 is in ``hand``, the weakest card of that suit not in
        it. A suit held whole (10 or 12 cards make it possible) offers none."""
        cards = set()
        for suit in range(NUM_SUITS):
            if card_id(suit, 2) in hand:
                weakest_first = sorted(range(suit * NUM_FACES, (suit + 1) * NUM_FACES), key=self.level, reverse=True)
                missing = [c for c in weakest_first if c not in hand]
                if missing:  # a suit held whole has none
                    cards.add(missing[0])
        return cards

    # ------------------------------------------------------------ legal moves

    def legal_actions(self) -> list[int]:
        if self.phase == Phase.AUCTION:
            return self._legal_auction()
        if self.phase == Phase.CALL:
            return self._legal_call()
        if self.phase == Phase.PLAY:
            return self._legal_play()
        if self.phase == Phase.DISCARD:
            return [PLAY_OFFSET + c for c in sorted(self.hands[self.caller])]  # any card, the monte's too
        return []

    def _bids_allowed_by_auction(self) -> list[int]:
        """Bids above the standing one that the bidding mode allows, for anybody."""
        standing = self.high_bid
        if self.rules.bidding == "points_only":
            lowest = self.rules.min_point_bid if standing == 0 else bid_points(standing) + 1
            return [point_bid(p) for p in range(lowest, MAX_POINTS + 1)]
        if standing == 0:
            return [rank_bid(k) for k in range(1, NUM_LEVELS + 1)]
        if is_rank_bid(standing):
            level = rank_bid_level(standing)
            if level < NUM_LEVELS:
                return [rank_bid(k) for k in range(level + 1, NUM_LEVELS + 1)]
            if self.rules.bidding == "rank_then_points":
                return [point_bid(p) for p in range(FIRST_POINTS_AFTER_THE_TWO, MAX_POINTS + 1)]
            return []  # rank_only: nothing is weaker than the 2
        return [point_bid(p) for p in range(bid_points(standing) + 1, MAX_POINTS + 1)]

    def _legal_auction(self) -> list[int]:
        seat = self.current_player
        bids = self._bids_allowed_by_auction()
        if not self.rules.allow_self_call:
            # A rank bid is pointless if every card it lets him call is his own.
            bids = [b for b in bids
                    if not (is_rank_bid(b) and self.callable_after(b, self.hands[seat]) <= self.hands[seat])]
        forced_to_bid = (self.rules.all_pass == "last_forced" and self.high_bid == 0
                         and self.passed.count(True) == self.seats - 1)
        return bids if forced_to_bid else [PASS] + bids

    def own_cards(self) -> set[int]:
        """The caller's own cards for the call: his hand, his discards, and the card he played in a
        blind first trick."""
        own = set(self.hands[self.caller]) | self.discards
        own |= {card for trick in self.tricks for seat, card in trick if seat == self.caller}
        return own

    def _legal_call(self) -> list[int]:
        own = self.own_cards()
        cards = self.callable_after(self.high_bid, own)
        if not self.rules.allow_self_call and cards - own:
            # (With a monte every card he may call can be his own, as he bid before seeing it:
            # then he calls one of them, solo.)
            cards -= own
        return [CALL_OFFSET + c for c in sorted(cards)]

    def _legal_play(self) -> list[int]:
        hand = self.hands[self.current_player]
        cards = hand
        trick = self._open_trick()
        if self.rules.follow_suit and trick:
            k = self.rules.follow_suit_last_k
            trick_index = len(self.trick_winners)
            if k is None or trick_index >= self.num_tricks - k:
                suit_led = suit_of(trick[0][1])
                following = {c for c in hand if suit_of(c) == suit_led}
                if following:
                    cards = following
        return [PLAY_OFFSET + c for c in sorted(cards)]

    def _open_trick(self) -> list[tuple[int, int]]:
        """The trick being played, [] if the next card opens a new one."""
        if self.tricks and len(self.tricks[-1]) < self.seats:
            return self.tricks[-1]
        return []

    # ------------------------------------------------------------------- step

    def step(self, action: int) -> None:
        try:
            a = operator.index(action)
        except TypeError:
            raise ValueError(f"action must be an int, got {action!r}") from None
        legal = self.legal_actions()
        if a not in legal:
            try:
                name = action_to_text(a, self.rules.ten_card)
            except ValueError:
                name = "an action outside 0..150"
            legal_names = ", ".join(action_to_text(x, self.rules.ten_card) for x in legal) or "none"
            raise ValueError(
                f"illegal action {a} ({name}) in phase {PHASE_NAMES[self.phase]!r} for seat {self.current_player}; "
                f"legal: {legal_names} (ids {legal})"
            )
        if self.phase == Phase.AUCTION:
            self._step_auction(a)
        elif self.phase == Phase.DISCARD:
            self._step_discard(a - PLAY_OFFSET)
        elif self.phase == Phase.CALL:
            self._step_call(a - CALL_OFFSET)
        else:
            self._step_play(a - PLAY_OFFSET)

    def _step_auction(self, action: int) -> None:
        seat = self.current_player
        self.auction.append((seat, action))
        if action == PASS:
            self.passed[seat] = True
        else:
            self.high_bid = action
            self.high_bidder = seat

        active = [s for s in range(self.seats) if not self.passed[s]]
        if not active:
            self.void = True
            self._finish()
            return
        if len(active) == 1 and active[0] == self.high_bidder:
            self.caller = self.high_bidder
            self.current_player = self.caller
            if self.monte:  # he takes the monte, then discards as many cards
                self.hands[self.caller] |= self.monte
                self.phase = Phase.DISCARD
            else:
                self._after_discards()
            return
        # Next seat round the table that has not passed; it may be a last
        # player who has not bid yet and still chooses to bid or pass.
        nxt = (seat + 1) % self.seats
        while self.passed[nxt]:
            nxt = (nxt + 1) % self.seats
        self.current_player = nxt

    def _step_discard(self, card: int) -> None:
        self.hands[self.caller].remove(card)
        self.discards.add(card)
        if len(self.discards) == len(self.monte):
            self._after_discards()

    def _after_discards(self) -> None:
        """The auction is won (and the monte discarded): the call, or first the blind first trick."""
        if self.rules.blind_first_trick:
            self._start_play()
        else:
            self.phase = Phase.CALL
            self.current_player = self.caller

    def _step_call(self, card: int) -> None:
        self.called_card = card
        self.trump = suit_of(card)
        played = [seat for trick in self.tricks for seat, c in trick if c == card]
        if played:  # called from the blind first trick: its player is the partner, and everyone sees it
            self.partner = played[0]
            self.partner_revealed = True
        elif card in self.discards:  # a discarded card is the caller's own: a solo
            self.partner = self.caller
        else:
            self.partner = next(s for s in range(self.seats) if card in self.hands[s])
        if self.tricks:  # after the blind first trick, its winner leads the second
            self.phase = Phase.PLAY
            self.current_player = self.trick_winners[-1]
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = Phase.PLAY
        if self.rules.first_leader == "caller":
            self.current_player = self.caller
        else:
            self.current_player = (self.dealer + 1) % self.seats

    def _step_play(self, card: int) -> None:
        seat = self.current_player
        self.hands[seat].remove(card)
        if not self._open_trick():
            self.tricks.append([])
        trick = self.tricks[-1]
        trick.append((seat, card))
        if card == self.called_card:
            self.partner_revealed = True

        if len(trick) < self.seats:
            self.current_player = (seat + 1) % self.seats
            return
        winner = self.trick_winner(trick)
        self.trick_winners.append(winner)
        self.captured_points[winner] += sum(self.points(c) for _, c in trick)
        self.tricks_won[winner] += 1
        if len(self.trick_winners) == self.num_tricks:
            self._score()
            self._finish()
        elif self.called_card < 0:  # the blind first trick is over: the caller calls
            self.phase = Phase.CALL
            self.current_player = self.caller
        else:
            self.current_player = winner

    def trick_winner(self, trick: list[tuple[int, int]]) -> int:
        """Seat of the strongest trump in the trick, or with no trump in it (or none called yet, in
        the blind first trick), of the strongest card of the suit led (other suits cannot win)."""
        trumps = [(s, c) for s, c in trick if suit_of(c) == self.trump]
        if trumps:
            contenders = trumps
        else:
            suit_led = suit_of(trick[0][1])
            contenders = [(s, c) for s, c in trick if suit_of(c) == suit_led]
        seat, _ = min(contenders, key=lambda sc: self.level(sc[1]))
        return seat

    # ---------------------------------------------------------------- scoring

    def _score(self) -> None:
        rules = self.rules
        solo = self.partner == self.caller
        side = {self.caller, self.partner}
        self.team_points = sum(self.captured_points[s] for s in side)
        self.team_points += sum(self.points(c) for c in self.discards)  # the discards count for the caller

        target = rules.target
        multiplier = 1
        if is_point_bid(self.high_bid):
            points_bid = bid_points(self.high_bid)
            target = max(target, points_bid)
            multiplier = rules.multiplier_for_points(points_bid)  # 1 when point_multipliers is off
        self.made = self.team_points >= target

        side_tricks = sum(self.tricks_won[s] for s in side)
        if rules.cappotto == "points":
            cappotto = self.team_points in (0, TOTAL_POINTS)
        elif rules.cappotto == "tricks":
            cappotto = side_tricks in (0, self.num_tricks)
        else:
            cappotto = False
        if cappotto:
            multiplier *= rules.cappotto_multiplier
        self.multiplier = multiplier

        table = rules.payoff_table
        assert table is not None  # RulesConfig resolves None to the standard table when it is built
        sign = 1 if self.made else -1
        for s in range(self.seats):
            if s == self.caller:
                value = table.solo_caller if solo else table.caller
            elif s == self.partner:
                value = table.partner
            else:
                value = table.solo_defender if solo else table.defender
            self.payoffs[s] = float(sign * value * multiplier)

    def _finish(self) -> None:
        self.phase = Phase.DONE
        self.current_player = -1
        self.terminated = True


def _seat(value, what: str, seats: int) -> int:
    """``value`` as a seat ``0..seats-1`` (a deal's holders may include the monte: ``seats`` one more)."""
    try:
        if isinstance(value, bool):  # an int to operator.index, but never meant as a seat
            raise TypeError
        seat = operator.index(value)
    except TypeError:
        raise ValueError(f"{what} must be a seat 0..{seats - 1}, got {value!r}") from None
    if not 0 <= seat < seats:
        raise ValueError(f"{what} must be a seat 0..{seats - 1}, got {seat}")
    return seat
