"""Worlds a player cannot tell apart: the deals consistent with his view.

From observations alone (one player's view per row, seat-relative, see
:mod:`briscola_env.observation`), this module rebuilds the public history of
each hand and samples deals of the cards the player cannot see, **uniformly
among the deals consistent with everything he knows**:

- his own hand, every card played and by whom, so how many cards each other
  seat still holds;
- the called card is not in the caller's hand when self-calls are off, and a
  rank bid was only legal for a player who did not hold every card it let him
  call;
- a call after the 2 of anything but a 2 (the weakest card of its suit the
  caller did not hold, see ``RulesConfig.call_after_two``): the caller held
  the 2 of that suit and every card of it weaker than the called one, and not
  the called card;
- with follow suit in force, a seat that did not follow the suit led holds no
  card of that suit;
- a solo the player knows of (he is the caller and holds the called card)
  needs nothing more: his hand is fixed.

Worlds are in the observer's frame: he is seat 0 and the others are seats 1-4
as in his view. An unseen card only one seat may hold is dealt to it; the
others are dealt uniformly and deals breaking a rule are drawn again, which is
exactly uniform over the consistent deals (every one of them has the forced
cards where they are forced; the real deal is among them, so a consistent
world always exists).

:func:`replay` then plays the public history of each row through the engine
on a sampled deal, giving engine states at the current decision; the engine
checks every replayed action, so a world inconsistent with the history could
not get through. :func:`world_states` copies such a state once per world and
puts each world's hands in it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import engine
from .actions import CALL_OFFSET, NUM_RANK_LEVELS, PASS, PLAY_OFFSET
from .cards import CARD_FACE, CARD_SUIT, CARDS_PER_HAND, NUM_CARDS, NUM_SEATS, NUM_SUITS, NUM_TRICKS
from .engine.bits import CARD_BIT
from .engine.codes import Phase
from .engine.state import State
from .engine.tables import RANK_BID_BITS, hopeless_rank_bids, rule_tables
from .engine.tricks import first_leader, trick_winner
from .observation import NUM_BIDS, SPEC
from .rules import RulesConfig

_BID_IDS = np.arange(1, NUM_BIDS + 1)
_MAX_REJECTION_ROUNDS = 10_000
_CONTRADICTION = "no consistent deal found: the observations contradict each other"


@dataclass
class PublicView:
    """What each row's observer knows, decoded from his observations; seats relative (0: him)."""

    rules: RulesConfig
    hand: np.ndarray  # (n, 40) bool, his cards
    played_by: np.ndarray  # (n, 40) int64, seat that played each card, -1 if not played
    played_in: np.ndarray  # (n, 40) int64, trick of each played card, -1 if not played
    dealer: np.ndarray  # (n,) int64
    bids: np.ndarray  # (n, 5, 70) bool, [seat, bid id - 1]: the seat made that bid
    passed_at: np.ndarray  # (n, 5) int64, standing bid id when the seat passed, -1 if it has not
    caller: np.ndarray  # (n,) int64, -1 before the auction is won
    called: np.ndarray  # (n,) int64, called card, -1 before the call
    allowed: np.ndarray  # (n, 40, 5) bool, seat may hold the card now (for the unseen cards)

    @property
    def unseen(self) -> np.ndarray:
        return ~self.hand & (self.played_by < 0)

    @property
    def still_held(self) -> np.ndarray:
        """``(n, 5)`` cards each seat still holds."""
        played = (self.played_by[:, :, None] == np.arange(NUM_SEATS)).sum(axis=1)
        return CARDS_PER_HAND - played

    @property
    def history_length(self) -> np.ndarray:
        """``(n,)`` actions taken so far in each hand."""
        return (self.bids.sum(axis=(1, 2)) + (self.passed_at >= 0).sum(axis=1) + (self.called >= 0)
                + (self.played_by >= 0).sum(axis=1))


def _one_hot_index(block: np.ndarray) -> np.ndarray:
    """Index of the 1 in each one-hot row of ``block`` (last axis), -1 for an all-zero row."""
    return np.where(block.any(axis=-1), block.argmax(axis=-1), -1)


def decode(obs: np.ndarray, rules: RulesConfig) -> PublicView:
    """The public history and the observer's hand, from ``(n, SPEC.size)`` observations."""
    obs = np.asarray(obs)
    if obs.ndim != 2 or obs.shape[1] != SPEC.size:
        raise ValueError(f"observations must have shape (n, {SPEC.size}); got {obs.shape}")
    view = lambda name: SPEC.view(obs, name).astype(bool)  # noqa: E731
    passes = view("auction_passes")
    caller = _one_hot_index(view("caller"))
    called = _one_hot_index(view("called_card"))
    public = PublicView(
        rules=rules,
        hand=view("hand"),
        played_by=_one_hot_index(view("played_by")),
        played_in=_one_hot_index(view("played_in_trick")),
        dealer=_one_hot_index(view("dealer")),
        bids=view("auction_bids").transpose(0, 2, 1).copy(),
        passed_at=_one_hot_index(passes),
        caller=caller,
        called=called,
        allowed=np.zeros((len(obs), NUM_CARDS, NUM_SEATS), dtype=bool),
    )
    allowed = public.allowed
    allowed[:, :, 1:] = True  # every unseen card is in someone else's hand
    if not rules.allow_self_call:
        rows = np.flatnonzero(called >= 0)
        allowed[rows, called[rows], caller[rows]] = False  # he could not name his own card
    _weakest_missing_calls(public)
    if rule_tables(rules).follow_from_trick < NUM_TRICKS:
        void = _voids(public)  # (n, 5, 4)
        allowed &= ~void.transpose(0, 2, 1)[:, CARD_SUIT, :]  # no card of a suit he showed out of
    return public


def _weakest_missing_calls(public: PublicView) -> None:
    """Narrow ``public.allowed`` for a call after the 2 of a card that is not a 2: the caller
    held every card of its suit weaker than the called one (the 2 among them), not the called one."""
    tables = rule_tables(public.rules)
    winning_bid = (public.bids.any(axis=1) * _BID_IDS).max(axis=1)
    called = public.called
    rows = np.flatnonzero((called >= 0) & tables.calls_weakest_missing[winning_bid]
                          & (CARD_FACE[np.maximum(called, 0)] != 2))
    if not rows.size:
        return
    card, caller = called[rows], public.caller[rows]
    public.allowed[rows, card, caller] = False
    weaker = (CARD_SUIT == CARD_SUIT[card][:, None]) & (tables.strength < tables.strength[card][:, None])
    not_caller = np.arange(NUM_SEATS) != caller[:, None]
    public.allowed[rows] &= ~(weaker[:, :, None] & not_caller[:, None, :])


def _voids(public: PublicView) -> np.ndarray:
    """``(n, 5, 4)`` bool: the seat showed out of the suit while following was compulsory.

    Walks the tricks in order: each trick's leader is the previous trick's
    winner (the first one's, per the rules), which gives the suit led."""
    rules, tables = public.rules, rule_tables(public.rules)
    n = len(public.dealer)
    rows = np.arange(n)
    card_at = np.full((n, NUM_TRICKS, NUM_SEATS), -1, dtype=np.int64)  # [trick, seat]: his card in it
    played = np.flatnonzero(public.played_by.reshape(-1) >= 0)
    row, card = np.divmod(played, NUM_CARDS)
    card_at[row, public.played_in[row, card], public.played_by[row, card]] = card
    trump = np.where(public.called >= 0, CARD_SUIT[np.maximum(public.called, 0)], 0)
    leader = first_leader(rules, public.caller, public.dealer).astype(np.int64)
    void = np.zeros((n, NUM_SEATS, NUM_SUITS), dtype=bool)
    for trick in range(NUM_TRICKS):
        seats = (leader[:, None] + np.arange(NUM_SEATS)) % NUM_SEATS  # (n, 5) in play order
        cards = card_at[rows[:, None], trick, seats]
        if trick >= tables.follow_from_trick:
            led, following = cards[:, :1], cards[:, 1:]
            led_suit = CARD_SUIT[np.maximum(led, 0)]
            row, place = np.nonzero((following >= 0) & (led >= 0) & (CARD_SUIT[np.maximum(following, 0)] != led_suit))
            void[row, seats[row, place + 1], led_suit[row, 0]] = True
        blind = rules.blind_first_trick and trick == 0  # played before the call: without trump
        _, place = trick_winner(tables, np.full(n, -1) if blind else trump, cards)
        leader = np.where((cards >= 0).all(axis=1), seats[rows, place], leader)
    return void


def sample_deals(public: PublicView, worlds: int, rng: np.random.Generator) -> np.ndarray:
    """``(n, worlds, 40)`` int8 deals (each card's seat at the deal), uniform among the consistent ones.

    The observer's cards are his (seat 0), played cards their player's, an
    unseen card only one seat may hold that seat's; the other unseen ones are
    shuffled among the other seats, in the numbers they still hold, and
    shuffles breaking a rule of :class:`PublicView` are drawn again."""
    n = len(public.dealer)
    seats_allowed = public.allowed.sum(axis=2)
    forced = public.unseen & (seats_allowed == 1)  # (n, 40)
    forced_to = np.where(forced, public.allowed.argmax(axis=2), -1)
    to_deal = public.still_held - (forced_to[:, :, None] == np.arange(NUM_SEATS)).sum(axis=1)
    to_deal[:, 0] = 0  # the observer's own cards are not dealt
    if (to_deal < 0).any() or (public.unseen & (seats_allowed == 0)).any():
        raise RuntimeError(_CONTRADICTION)
    unseen = np.repeat(public.unseen & ~forced, worlds, axis=0)  # (n * worlds, 40), the cards to shuffle
    allowed = np.repeat(public.allowed, worlds, axis=0)
    bounds = np.cumsum(np.repeat(to_deal, worlds, axis=0), axis=1)  # seat s takes ranks bounds[s-1]..bounds[s]-1
    rank_bids = (public.bids[:, :, :NUM_RANK_LEVELS] * RANK_BID_BITS).sum(axis=2, dtype=np.uint64)  # sets of ids
    rank_bids = np.repeat(rank_bids, worlds, axis=0)  # (m, 5)
    known = np.where(public.hand, 0, np.where(forced, forced_to, public.played_by))  # -1 where still unseen
    known = np.repeat(known, worlds, axis=0)
    deals = np.empty(unseen.shape, dtype=np.int8)
    todo = np.arange(len(unseen))
    for _ in range(_MAX_REJECTION_ROUNDS):
        keys = np.where(unseen[todo], rng.random((len(todo), NUM_CARDS)), 2.0)
        rank = np.argsort(np.argsort(keys, axis=1), axis=1)  # the unseen cards take ranks 0..u-1
        seat = (rank[:, :, None] >= bounds[todo, None, 1:]).sum(axis=2) + 1
        deal = np.where(unseen[todo], seat, known[todo])
        ok = _consistent(public.rules, deal, unseen[todo], allowed[todo], rank_bids[todo])
        deals[todo[ok]] = deal[ok]
        todo = todo[~ok]
        if not todo.size:
            return deals.reshape(n, worlds, NUM_CARDS)
    raise RuntimeError(_CONTRADICTION)


def _consistent(rules: RulesConfig, deal: np.ndarray, unseen: np.ndarray, allowed: np.ndarray,
                rank_bids: np.ndarray) -> np.ndarray:
    m = len(deal)
    held = allowed[np.arange(m)[:, None], np.arange(NUM_CARDS), np.clip(deal, 0, NUM_SEATS - 1)]
    ok = (held | ~unseen).all(axis=1)
    if not rules.allow_self_call:
        # A rank bid was illegal for a player holding, at the deal, every card it lets him call.
        hopeless = hopeless_rank_bids(rule_tables(rules), hand_bits(deal))  # (m, 5)
        ok &= ~(hopeless & rank_bids).any(axis=1)
    return ok


def hand_bits(deal: np.ndarray, exclude: np.ndarray | None = None) -> np.ndarray:
    """``(..., 5)`` uint64 card sets of deals ``(..., 40)``, less the cards ``exclude`` (bool, same shape)."""
    keep = deal >= 0 if exclude is None else (deal >= 0) & ~exclude
    held = (deal[..., None, :] == np.arange(NUM_SEATS)[:, None]) & keep[..., None, :]
    return (held * CARD_BIT).sum(axis=-1, dtype=np.uint64)


def replay(public: PublicView, deals: np.ndarray) -> State:
    """Engine states at the observers' decisions: the public history played on ``deals`` ``(n, 40)``."""
    n = len(deals)
    rows = np.arange(n)
    state = engine.init_from_deals(deals, public.dealer, public.rules)
    length = public.history_length
    done = np.zeros(n, dtype=np.int64)
    while (done < length).any():
        active = done < length
        seat = np.maximum(state.current_player, 0).astype(np.int64)
        actions = np.full(n, PASS, dtype=np.int64)
        # Auction: a seat passes over the standing bid it passed at, else makes its next bid.
        standing = state.high_bid.astype(np.int64)
        next_bid = public.bids[rows, seat] & (_BID_IDS > standing[:, None])
        bidding = (state.phase == Phase.AUCTION) & (public.passed_at[rows, seat] != standing)
        actions = np.where(bidding, next_bid.argmax(axis=1) + 1, actions)
        actions = np.where(state.phase == Phase.CALL, CALL_OFFSET + public.called, actions)
        # Play: the card this seat played in the current trick.
        trick = state.trick_index.astype(np.int64)
        card = ((public.played_by == seat[:, None]) & (public.played_in == trick[:, None])).argmax(axis=1)
        actions = np.where(state.phase == Phase.PLAY, PLAY_OFFSET + card, actions)
        engine.step_inplace(state, actions, active)
        done += active
    return state


def world_states(state: State, public: PublicView, deals: np.ndarray, index: np.ndarray) -> State:
    """Copies of the replayed ``state`` rows ``index`` (``(m,)``), each with the hands of its
    world ``deals`` (``(m, 40)``): what each seat holds now, and the partner that follows."""
    worlds = state.take(index)
    played = public.played_by[index] >= 0
    worlds.hidden.hand_bits[...] = hand_bits(deals, exclude=played)
    called = worlds.called_card.astype(np.int64)
    pending = np.flatnonzero((called >= 0) & ~played[np.arange(len(index)), np.maximum(called, 0)])
    worlds.hidden.partner[pending] = deals[pending, called[pending]]
    return worlds
