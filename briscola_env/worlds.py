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

With a monte (``RulesConfig.monte``) the face-down cards are dealt too: the
monte's five while the auction goes on; once the caller has taken it, to any
other player, his five discards (the caller sees both) and which five of the
caller's twelve cards were the monte, uniformly, as the bids he made before
taking it must have been legal on the other seven. A :class:`Worlds` holds the
deals, each card's holder at the deal (a seat, or ``seats`` for the monte), and
the discards.

Worlds are in the observer's frame: he is seat 0 and the others are seats 1..
as in his view. An unseen card only one holder may hold is dealt to it; the
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

from dataclasses import dataclass, fields, replace
from typing import Callable, Optional

import numpy as np

from . import engine
from .actions import CALL_OFFSET, NUM_RANK_LEVELS, PASS, PLAY_OFFSET
from .cards import CARD_FACE, CARD_SUIT, NUM_CARDS, NUM_SEATS, NUM_SUITS
from .engine.bits import CARD_BIT
from .engine.codes import Phase
from .engine.state import State
from .engine.tables import RANK_BID_BITS, callable_by, hopeless_rank_bids, rule_tables
from .engine.tricks import first_leader, trick_winner
from .observation import NUM_BIDS, observation_spec
from .rules import RulesConfig

_BID_IDS = np.arange(1, NUM_BIDS + 1)
_MAX_REJECTION_ROUNDS = 10_000
_CONTRADICTION = "no consistent deal found: the observations contradict each other"


@dataclass
class PublicView:
    """What each row's observer knows, decoded from his observations; seats relative (0: him).
    ``seats`` is that of ``rules.table_shape``; the *pile* is a monte's face-down cards."""

    rules: RulesConfig
    hand: np.ndarray  # (n, 40) bool, his cards
    played_by: np.ndarray  # (n, 40) int64, seat that played each card, -1 if not played
    played_in: np.ndarray  # (n, 40) int64, trick of each played card, -1 if not played
    dealer: np.ndarray  # (n,) int64
    bids: np.ndarray  # (n, seats, 70) bool, [seat, bid id - 1]: the seat made that bid
    passed_at: np.ndarray  # (n, seats) int64, standing bid id when the seat passed, -1 if it has not
    caller: np.ndarray  # (n,) int64, the auction's winner, -1 before it is won
    called: np.ndarray  # (n,) int64, called card, -1 before the call
    allowed: np.ndarray  # (n, 40, seats + 1) bool, seat (or, last, the pile) may hold the card now (if unseen)
    monte: np.ndarray  # (n, 40) bool, the monte's cards as he sees them (all False but for a caller or at the end)
    discards: np.ndarray  # (n, 40) bool, the caller's discards as he sees them
    pile: np.ndarray  # (n,) int64, face-down cards he cannot see: a monte's five (before it is taken) or the
    #                   discards' (after), to all but the caller while the hand goes on; 0 without a monte

    @property
    def seats(self) -> int:
        return self.bids.shape[1]

    def take(self, index) -> "PublicView":
        """The rows ``index`` (an index array: rows may repeat, as for one row per world)."""
        return replace(self, **{f.name: getattr(self, f.name)[index] for f in fields(self) if f.name != "rules"})

    @property
    def taken(self) -> np.ndarray:
        """``(n,)`` bool, a monte has been taken: the auction is won (with a monte)."""
        return (self.caller >= 0) & bool(self.rules.monte)

    @property
    def face_down(self) -> np.ndarray:
        """``(n, 40)`` bool, the cards he sees face down, held and played by nobody: the discards (the
        monte, too, at the end of a hand nobody bid in)."""
        return (self.monte | self.discards) & ~self.hand & (self.played_by < 0)

    @property
    def unseen(self) -> np.ndarray:
        return ~self.hand & (self.played_by < 0) & ~self.face_down

    @property
    def still_held(self) -> np.ndarray:
        """``(n, seats)`` cards each seat still holds."""
        played = (self.played_by[:, :, None] == np.arange(self.seats)).sum(axis=1)
        held = self.rules.table_shape.hand_size - played  # the caller's too, his discards made
        held[:, 0] = self.hand.sum(axis=1)
        return held

    @property
    def history_length(self) -> np.ndarray:
        """``(n,)`` actions taken so far in each hand."""
        discarded = np.where(self.taken & (self.pile > 0), self.pile, self.discards.sum(axis=1))
        return (self.bids.sum(axis=(1, 2)) + (self.passed_at >= 0).sum(axis=1) + (self.called >= 0)
                + (self.played_by >= 0).sum(axis=1) + discarded)


@dataclass
class Worlds:
    """Sampled deals: ``deals`` ``(n, worlds, 40)`` int8, each card's holder at the deal (a relative seat,
    or ``seats`` for a monte's card), and ``discards`` ``(n, worlds, 40)`` bool, the caller's discards."""

    deals: np.ndarray
    discards: np.ndarray


def _one_hot_index(block: np.ndarray) -> np.ndarray:
    """Index of the 1 in each one-hot row of ``block`` (last axis), -1 for an all-zero row."""
    return np.where(block.any(axis=-1), block.argmax(axis=-1), -1)


def decode(obs: np.ndarray, rules: RulesConfig) -> PublicView:
    """The public history and the observer's hand, from ``(n, spec.size)`` observations (``spec``:
    :func:`~briscola_env.observation.observation_spec` of ``rules``)."""
    spec = observation_spec(rules)
    shape = rules.table_shape
    obs = np.asarray(obs)
    if obs.ndim != 2 or obs.shape[1] != spec.size:
        raise ValueError(f"observations must have shape (n, {spec.size}); got {obs.shape}")
    view = lambda name: spec.view(obs, name).astype(bool)  # noqa: E731
    n = len(obs)
    phase = _one_hot_index(view("phase"))
    # The caller is shown once he has called; he is the standing bidder from the auction's end on.
    caller = np.where(phase != Phase.AUCTION, _one_hot_index(view("high_bidder")), -1)
    called = _one_hot_index(view("called_card"))
    if shape.monte_size:
        if ((phase == Phase.DISCARD) & (caller != 0)).any():
            raise ValueError("worlds of a monte's discards are sampled for the caller, the seat to act, alone")
        monte, discards = view("monte"), view("discards")
        pile = np.where((caller == 0) | (phase == Phase.DONE), 0, shape.monte_size)
    else:
        monte = discards = np.zeros((n, NUM_CARDS), dtype=bool)
        pile = np.zeros(n, dtype=np.int64)
    public = PublicView(
        rules=rules,
        hand=view("hand"),
        played_by=_one_hot_index(view("played_by")),
        played_in=_one_hot_index(view("played_in_trick")),
        dealer=_one_hot_index(view("dealer")),
        bids=view("auction_bids").transpose(0, 2, 1).copy(),
        passed_at=_one_hot_index(view("auction_passes")),
        caller=caller,
        called=called,
        allowed=np.zeros((n, NUM_CARDS, shape.seats + 1), dtype=bool),
        monte=monte,
        discards=discards,
        pile=pile.astype(np.int64),
    )
    allowed = public.allowed
    allowed[:, :, 1:] = True  # every unseen card is in someone else's hand, or face down
    if not rules.allow_self_call and not shape.monte_size:  # (with a monte, _consistent checks it)
        rows = np.flatnonzero(called >= 0)
        allowed[rows, called[rows], caller[rows]] = False  # he could not name his own card
    _weakest_missing_calls(public)
    if rule_tables(rules).follow_from_trick < shape.tricks:
        void = _voids(public)  # (n, seats, 4): a void is of a hand, the discards may hold the suit
        allowed[:, :, :shape.seats] &= ~void.transpose(0, 2, 1)[:, CARD_SUIT, :]  # no card of a suit he showed out of
    return public


def _weakest_missing_calls(public: PublicView) -> None:
    """Narrow ``public.allowed`` for a call after the 2 of a card that is not a 2: the caller
    held every card of its suit weaker than the called one (the 2 among them), not the called one
    (his cards: his hand, and with a monte his discards, the pile)."""
    tables = rule_tables(public.rules)
    winning_bid = (public.bids.any(axis=1) * _BID_IDS).max(axis=1)
    called = public.called
    rows = np.flatnonzero((called >= 0) & tables.calls_weakest_missing[winning_bid]
                          & (CARD_FACE[np.maximum(called, 0)] != 2))
    if not rows.size:
        return
    card, caller = called[rows], public.caller[rows]
    his = np.arange(public.seats + 1) == caller[:, None]  # (rows, holders)
    his[:, -1] = public.taken[rows]
    public.allowed[rows, card] &= ~his
    weaker = (CARD_SUIT == CARD_SUIT[card][:, None]) & (tables.strength < tables.strength[card][:, None])
    public.allowed[rows] &= ~(weaker[:, :, None] & ~his[:, None, :])


def _voids(public: PublicView) -> np.ndarray:
    """``(n, seats, 4)`` bool: the seat showed out of the suit while following was compulsory.

    Walks the tricks in order: each trick's leader is the previous trick's
    winner (the first one's, per the rules), which gives the suit led."""
    rules, tables = public.rules, rule_tables(public.rules)
    seats, tricks = public.seats, rules.table_shape.tricks
    n = len(public.dealer)
    rows = np.arange(n)
    card_at = np.full((n, tricks, seats), -1, dtype=np.int64)  # [trick, seat]: his card in it
    played = np.flatnonzero(public.played_by.reshape(-1) >= 0)
    row, card = np.divmod(played, NUM_CARDS)
    card_at[row, public.played_in[row, card], public.played_by[row, card]] = card
    trump = np.where(public.called >= 0, CARD_SUIT[np.maximum(public.called, 0)], 0)
    leader = first_leader(rules, public.caller, public.dealer).astype(np.int64)
    void = np.zeros((n, seats, NUM_SUITS), dtype=bool)
    for trick in range(tricks):
        order = (leader[:, None] + np.arange(seats)) % seats  # (n, seats) in play order
        cards = card_at[rows[:, None], trick, order]
        if trick >= tables.follow_from_trick:
            led, following = cards[:, :1], cards[:, 1:]
            led_suit = CARD_SUIT[np.maximum(led, 0)]
            row, place = np.nonzero((following >= 0) & (led >= 0) & (CARD_SUIT[np.maximum(following, 0)] != led_suit))
            void[row, order[row, place + 1], led_suit[row, 0]] = True
        blind = rules.blind_first_trick and trick == 0  # played before the call: without trump
        _, place = trick_winner(tables, np.full(n, -1) if blind else trump, cards)
        leader = np.where((cards >= 0).all(axis=1), order[rows, place], leader)
    return void


def sample_worlds(public: PublicView, worlds: int, rng: np.random.Generator) -> Worlds:
    """``worlds`` deals per row, and their discards, uniform among the consistent ones.

    The observer's cards are his (seat 0), played cards their player's, an
    unseen card only one holder may hold that holder's; the other unseen ones are
    shuffled among the other seats and the pile, in the numbers they still hold, and
    shuffles breaking a rule of :class:`PublicView` are drawn again."""
    n, seats = len(public.dealer), public.seats
    holders = np.arange(seats + 1)  # the seats, then the pile
    seats_allowed = public.allowed.sum(axis=2)
    forced = public.unseen & (seats_allowed == 1)  # (n, 40)
    forced_to = np.where(forced, public.allowed.argmax(axis=2), -1)
    to_deal = np.concatenate([public.still_held, public.pile[:, None]], axis=1) \
        - (forced_to[:, :, None] == holders).sum(axis=1)
    to_deal[:, 0] = 0  # the observer's own cards are not dealt
    if (to_deal < 0).any() or (public.unseen & (seats_allowed == 0)).any():
        raise RuntimeError(_CONTRADICTION)
    unseen = np.repeat(public.unseen & ~forced, worlds, axis=0)  # (n * worlds, 40), the cards to shuffle
    allowed = np.repeat(public.allowed, worlds, axis=0)
    bounds = np.cumsum(np.repeat(to_deal, worlds, axis=0), axis=1)  # holder h takes ranks bounds[h-1]..bounds[h]-1
    rank_bids = (public.bids[:, :, :NUM_RANK_LEVELS] * RANK_BID_BITS).sum(axis=2, dtype=np.uint64)  # sets of ids
    rank_bids = np.repeat(rank_bids, worlds, axis=0)  # (m, seats)
    # Where each card is now as far as he knows, -1 where unseen: his hand, the forced cards, the played
    # ones by their player, the face-down ones he sees in the pile.
    known = np.where(public.hand, 0, np.where(forced, forced_to, public.played_by))
    known = np.repeat(np.where(public.face_down, seats, known), worlds, axis=0)
    rows = np.repeat(np.arange(n), worlds)
    now = np.empty(unseen.shape, dtype=np.int8)
    dealt = np.empty(unseen.shape, dtype=np.int8)
    todo = np.arange(len(unseen))
    for _ in range(_MAX_REJECTION_ROUNDS):
        keys = np.where(unseen[todo], rng.random((len(todo), NUM_CARDS)), 2.0)
        rank = np.argsort(np.argsort(keys, axis=1), axis=1)  # the unseen cards take ranks 0..u-1
        holder = (rank[:, :, None] >= bounds[todo, None, 1:]).sum(axis=2) + 1
        world = np.where(unseen[todo], holder, known[todo])
        deal = _as_dealt(public, rows[todo], world, rng)
        ok = _consistent(public, rows[todo], deal, unseen[todo], world, allowed[todo], rank_bids[todo])
        now[todo[ok]], dealt[todo[ok]] = world[ok], deal[ok]
        todo = todo[~ok]
        if not todo.size:
            discards = (now == seats) & public.taken[rows, None]
            return Worlds(dealt.reshape(n, worlds, NUM_CARDS), discards.reshape(n, worlds, NUM_CARDS))
    raise RuntimeError(_CONTRADICTION)


def sample_deals(public: PublicView, worlds: int, rng: np.random.Generator) -> np.ndarray:
    """``(n, worlds, 40)`` int8 deals (each card's holder at the deal), uniform among the consistent ones:
    :func:`sample_worlds` but the discards (of which a hand without a monte has none)."""
    return sample_worlds(public, worlds, rng).deals


def _as_dealt(public: PublicView, rows: np.ndarray, now: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each card's holder at the deal from the worlds ``now`` (each card's holder now, ``seats`` for the
    pile) of the views ``rows``: a seat's cards were his; before a monte is taken the pile is the monte;
    once taken, the caller's twelve cards (his hand, those he played, the pile of his discards) held the
    monte's five: those he saw if he is the observer, else five drawn uniformly."""
    seats = public.seats
    taken = np.flatnonzero(public.taken[rows])
    if not taken.size:
        return now
    deal = now.copy()
    views = rows[taken]
    caller = public.caller[views]
    his = (now[taken] == caller[:, None]) | (now[taken] == seats)
    keys = np.where(his, rng.random(his.shape), 2.0)
    drawn = np.argsort(np.argsort(keys, axis=1), axis=1) < public.rules.table_shape.monte_size
    monte = np.where((caller == 0)[:, None], public.monte[views], drawn)
    deal[taken] = np.where(his, np.where(monte, seats, caller[:, None]), now[taken])
    return deal


def _consistent(public: PublicView, rows: np.ndarray, deal: np.ndarray, unseen: np.ndarray, now: np.ndarray,
                allowed: np.ndarray, rank_bids: np.ndarray) -> np.ndarray:
    """Whether each of the ``m`` worlds (``deal``: each card's holder at the deal, ``now``: where it is
    now, ``seats`` for the pile) of the views ``rows`` breaks none of the rules."""
    rules, seats = public.rules, public.seats
    m = len(deal)
    held = allowed[np.arange(m)[:, None], np.arange(NUM_CARDS), np.clip(now, 0, seats)]
    ok = (held | ~unseen).all(axis=1)
    if not rules.allow_self_call:
        # A rank bid was illegal for a player holding, at the deal, every card it lets him call.
        hopeless = hopeless_rank_bids(rule_tables(rules), hand_bits(deal, seats=seats))  # (m, seats)
        ok &= ~(hopeless & rank_bids).any(axis=1)
        if rules.monte:
            ok &= _called_his_own_only_if_he_must(public, rows, deal)
    return ok


def _called_his_own_only_if_he_must(public: PublicView, rows: np.ndarray, deal: np.ndarray) -> np.ndarray:
    """With a monte and self-calls off: the called card is among the caller's twelve cards only if every
    card his bid let him call was (see ``RulesConfig.monte``)."""
    ok = np.ones(len(rows), dtype=bool)
    calls = np.flatnonzero(public.called[rows] >= 0)
    if not calls.size:
        return ok
    views = rows[calls]
    twelve = (deal[calls] == public.caller[views, None]) | (deal[calls] == public.seats)
    own = (twelve * CARD_BIT).sum(axis=1, dtype=np.uint64)
    winning_bid = (public.bids[views].any(axis=1) * _BID_IDS).max(axis=1)
    callable_ = callable_by(rule_tables(public.rules), winning_bid, own)
    ok[calls] = ~twelve[np.arange(len(calls)), public.called[views]] | ((callable_ & ~own) == 0)
    return ok


def hand_bits(deal: np.ndarray, exclude: np.ndarray | None = None, seats: int = NUM_SEATS) -> np.ndarray:
    """``(..., seats)`` uint64 card sets of deals ``(..., 40)``, less the cards ``exclude`` (bool, same shape)."""
    keep = deal >= 0 if exclude is None else (deal >= 0) & ~exclude
    held = (deal[..., None, :] == np.arange(seats)[:, None]) & keep[..., None, :]
    return (held * CARD_BIT).sum(axis=-1, dtype=np.uint64)


def replay(public: PublicView, deals: np.ndarray, discards: Optional[np.ndarray] = None,
           observe: Optional[Callable[[State, np.ndarray, np.ndarray], None]] = None) -> State:
    """Engine states at the observers' decisions: the public history played on ``deals`` ``(n, 40)`` (with
    a monte, and the caller's ``discards`` ``(n, 40)`` bool of the worlds). ``observe(state, actions,
    active)``, if given, sees each step before it is taken: the state, the ``(n,)`` actions of the history
    and which rows take one (as policy-based inference does, scoring each world's past actions)."""
    n = len(deals)
    rows = np.arange(n)
    state = engine.init_from_deals(deals, public.dealer, public.rules)
    length = public.history_length
    done = np.zeros(n, dtype=np.int64)
    to_discard = None if discards is None or not public.rules.monte else \
        (np.asarray(discards, dtype=bool) * CARD_BIT).sum(axis=1, dtype=np.uint64)
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
        if to_discard is not None:  # the world's discards, the lowest card first
            discarded = state.hidden.discards
            assert discarded is not None, "a world with discards to make has a monte"
            left = to_discard & ~discarded
            lowest = np.bitwise_count((left & (~left + np.uint64(1))) - np.uint64(1)).astype(np.int64)
            actions = np.where(state.phase == Phase.DISCARD, PLAY_OFFSET + lowest, actions)
        if observe is not None:
            observe(state, actions, active)
        engine.step_inplace(state, actions, active)
        done += active
    return state


def world_states(state: State, public: PublicView, deals: np.ndarray, index: np.ndarray,
                 discards: Optional[np.ndarray] = None) -> State:
    """Copies of the replayed ``state`` rows ``index`` (``(m,)``), each with the hands of its
    world ``deals`` (``(m, 40)``; with a monte, and ``discards``): what each seat holds now, and
    the partner that follows."""
    worlds = state.take(index)
    seats = public.seats
    played = public.played_by[index] >= 0
    caller = public.caller[index]
    holder = deals.astype(np.int64)
    face_down = np.zeros(deals.shape, dtype=bool)
    if public.rules.monte:
        monte = deals == seats
        taken = public.taken[index]
        holder = np.where(monte & taken[:, None], caller[:, None], holder)  # the monte went to the caller
        face_down = np.asarray(discards, dtype=bool)
        world_monte, world_discards = worlds.hidden.monte, worlds.hidden.discards
        assert world_monte is not None and world_discards is not None, "a table with a monte keeps both"
        world_monte[...] = (monte * CARD_BIT).sum(axis=1, dtype=np.uint64)
        world_discards[...] = (face_down * CARD_BIT).sum(axis=1, dtype=np.uint64)
    worlds.hidden.hand_bits[...] = hand_bits(holder, exclude=played | face_down | (holder == seats), seats=seats)
    called = worlds.called_card.astype(np.int64)
    rows = np.arange(len(index))
    pending = np.flatnonzero((called >= 0) & ~played[rows, np.maximum(called, 0)])
    worlds.hidden.partner[pending] = holder[pending, called[pending]]  # a discarded card: the caller's
    return worlds
