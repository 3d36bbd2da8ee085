"""A rule-based heuristic agent that plays like a sensible club player.

It reads only its own view (hand, auction, call, cards played) and decides
for a whole batch of games at once.

**Hand value.** The *best suit* is the one with the most cards, points
breaking ties. The hand value is the points in hand plus 5 per card of the
best suit, plus 6 if it holds that suit's Asso and 4 for its ten-point card.

**Auction.** Rank bids go down from the Asso; a weaker rank is a harder
contract, as the caller then leans less on his partner. The agent bids the
cheapest legal bid while it is within its stop: ranks down to level
``(value - bid_base) / bid_step`` (no rank at all below ``bid_base``), points
only with a strong hand (``value >= points_from``), up to ``61 + 2 * (value -
points_from)`` and at most ``max_points``. Otherwise it passes.

**Aggressiveness** (``bid`` in -1..1: -1 most cautious, 0 the thresholds as given, +1 most
aggressive) moves the auction thresholds, in hand-value points: ``bid_base`` by ``-8 * bid``,
``points_from`` and ``solo_from`` by ``-10 * bid`` each, and, for ``bid > 0`` only, ``max_points``
up by ``round(10 * bid)`` (at most 120). So ``heuristic:bid=1`` bids each rank level with 8
hand-value points less (two levels deeper on the same hand), goes into points from a value of 65
(up to 100) and solo from 80; ``heuristic:bid=-1`` needs 8 points more for each level, 85 for
points and 100 for a solo. At 0, the default, the play is exactly that without the option. Alone
among four default heuristics (300 deals), the levels -1, -0.5, 0, +0.5 and +1 win 10%, 14%,
20%, 26% and 34% of the auctions and make 93%, 92%, 91%, 89% and 88% of their contracts.

**Call.** Trump is its best suit: it calls the strongest legal card of that
suit it does not hold (another suit's if it holds them all). It calls one of
its own cards, playing solo, only when the hand is overwhelming (``value >=
solo_from``).

**Discards** (with a monte, whose discards count for the caller): the card with the most
points outside its best suit, the weakest among equals (of the best suit only if nothing else
is left).

**Play.** Following to a trick:

- if a known teammate is winning and the trick is safe (it is the last card,
  or a trump is winning), it loads points onto it (*caricare*): the highest
  non-trump card; otherwise it throws its cheapest card;
- else, if the trick carries points (``>= take_from``), it takes it as cheaply
  as it can: a higher card of the suit led before any trump, and among trumps
  the lowest that wins (*briscolare*);
- else it throws its cheapest card (*liscio*): fewest points, non-trump first,
  then the weakest.

Leading, it plays its cheapest non-trump card; a defender who knows the
caller but not yet the partner leads his lowest trump, to draw the called card
out. A partner not yet revealed keeps the called card back while he can
(before the last ``reveal_late`` tricks). Teammates: the caller for the
partner; the partner for the caller once revealed; the other defenders once
the partner is revealed.

**Handicap.** With ``noise`` above 0, each decision is, with that
probability, a uniformly random legal action instead (drawn from the agent's
own seeded generator): a weaker player by construction, as the known middle
of a ranking (``heuristic:noise=0.5``). At 0, the default, no number is drawn
and the play is the rules' alone.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from briscola_env.actions import CALL_OFFSET, MAX_POINTS, MIN_POINTS, PASS, PLAY_OFFSET, POINT_BID_OFFSET
from briscola_env.cards import (CARD_SUIT, NUM_CARDS, NUM_FACES, NUM_SUITS, NUM_TRICKS, TOTAL_POINTS,
                                card_tables)
from briscola_env.engine import Phase
from briscola_env.engine.tables import rule_tables
from briscola_env.engine.tricks import takes_trick, trick_winner
from briscola_env.observation import observation_spec
from briscola_env.rules import RulesConfig

from .base import Agent, check_number

_SUIT_OF = CARD_SUIT.astype(np.int64)
_IN_SUIT = CARD_SUIT[None, :] == np.arange(NUM_SUITS)[:, None]  # (4, 40)
# [trump, card]: the card is a trump. The last row, no trump (before the call of a blind first trick),
# is also where trump -1 lands, as the engine's trick tables have it.
_IS_TRUMP = np.vstack([_IN_SUIT, np.zeros((1, NUM_CARDS), dtype=bool)])
# The hand-value points each auction threshold moves by at bid=+1 (down; up at bid=-1), proportionally between;
# max_points rises by MAX_POINTS_SHIFT at +1 only (rounded), a cautious bidder keeping the default cap.
BID_BASE_SHIFT, POINTS_FROM_SHIFT, SOLO_FROM_SHIFT, MAX_POINTS_SHIFT = 8, 10, 10, 10


class HeuristicAgent(Agent):
    """Rule-based play for every phase (rules in the module docstring)."""

    name = "heuristic"
    reads_history = False

    def __init__(self, rules: Optional[RulesConfig] = None, seed: Optional[int] = None, bid_base: float = 30,
                 bid_step: float = 4, points_from: float = 75, max_points: int = 90, solo_from: float = 90,
                 take_from: int = 10, reveal_late: int = 3, noise: float = 0.0, bid: float = 0.0):
        self.bid_base, self.points_from, self.solo_from = (check_number("heuristic", name, value)
                                                           for name, value in (("bid_base", bid_base),
                                                                               ("points_from", points_from),
                                                                               ("solo_from", solo_from)))
        self.bid_step = check_number("heuristic", "bid_step", bid_step)
        if self.bid_step <= 0:
            raise ValueError(f"heuristic: bid_step must be a number > 0; got {bid_step!r}")
        self.max_points = check_number("heuristic", "max_points", max_points, True, MIN_POINTS, MAX_POINTS)
        # The auction's aggressiveness moves the thresholds above (the module docstring); at 0 they stay as given.
        self.bid = check_number("heuristic", "bid", bid, least=-1, most=1)
        self.bid_base -= BID_BASE_SHIFT * self.bid
        self.points_from -= POINTS_FROM_SHIFT * self.bid
        self.solo_from -= SOLO_FROM_SHIFT * self.bid
        self.max_points = min(self.max_points + round(MAX_POINTS_SHIFT * max(self.bid, 0.0)), MAX_POINTS)
        # A trick's points never exceed the deck's: take_from above them would never take one.
        self.take_from = check_number("heuristic", "take_from", take_from, True, 0, TOTAL_POINTS)
        self.reveal_late = check_number("heuristic", "reveal_late", reveal_late, True, 0, NUM_TRICKS)
        self.noise = check_number("heuristic", "noise", noise, least=0, most=1)
        super().__init__(seed)
        self.rules = rules or RulesConfig()
        cards = card_tables(self.rules.ten_card)
        self.points = cards.points.astype(np.int64)
        self.strength = cards.strength.astype(np.int64)
        # Where the Asso and the ten-point card (the faces of rank levels 1 and 2) sit within a suit.
        self.ace, self.ten = (face - 1 for face in cards.level_face[:2])
        self.tables = rule_tables(self.rules)
        self.spec = observation_spec(self.rules)
        self.seats = self.rules.table_shape.seats
        # Card costs under each trump suit, [trump, card]. The cheapest card to give away:
        # fewest points, then non-trump, then weakest; to take a trick with: the suit led before
        # a trump, the weakest trump; to lead: any non-trump before a trump, then the cheapest.
        is_trump = _IS_TRUMP.astype(np.int64)
        self.cheap = self.points * 100 + is_trump * 50 + self.strength
        self.take_cost = np.where(is_trump, 1000 + self.strength * 10 + self.points, self.points)
        self.lead_cost = is_trump * 10_000 + self.cheap

    # --- reading the view --------------------------------------------------------------

    def hand_value(self, hand: np.ndarray) -> np.ndarray:
        """The hand value of the module docstring for each hand ``(n, 40)`` (0/1 per card): the
        agent's estimate of a hand's strength, on which it bids."""
        return self._hand_value(np.asarray(hand, dtype=np.int64))[0]

    def _hand_value(self, hand: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(value, best suit, per-suit score) of each hand ``(n, 40)``."""
        count = hand @ _IN_SUIT.T.astype(np.int64)  # (n, 4)
        points = (hand * self.points) @ _IN_SUIT.T.astype(np.int64)
        score = count * 100 + points
        best = score.argmax(axis=1)
        rows = np.arange(len(hand))
        ace, ten = best * NUM_FACES + self.ace, best * NUM_FACES + self.ten
        value = (hand * self.points).sum(1) + 5 * count[rows, best] + 6 * hand[rows, ace] + 4 * hand[rows, ten]
        return value, best, score

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        phase = self.spec.view(obs, "phase").argmax(axis=1)
        actions = np.full(len(obs), -1, dtype=np.int64)
        for p, decide in ((Phase.AUCTION, self._bid), (Phase.CALL, self._call), (Phase.PLAY, self._play),
                          (Phase.DISCARD, self._discard)):
            rows = np.flatnonzero(phase == p)
            if rows.size == len(obs):
                actions[:] = decide(obs, mask)  # no copy when every game is in the same phase
            elif rows.size:
                actions[rows] = decide(obs[rows], mask[rows])
        if self.noise > 0:  # at 0 nothing is drawn: the generator's stream, and the play, stay those of the rules
            self._add_noise(actions, mask)
        return actions

    def _add_noise(self, actions: np.ndarray, mask: np.ndarray) -> None:
        """Replace each game's action, with probability ``noise``, by a uniform legal one (in place)."""
        rows = np.flatnonzero(self.rng.random(len(actions)) < self.noise)
        if rows.size:
            # The legal action with the highest uniform key is a uniform choice among them.
            keys = np.where(mask[rows], self.rng.random((rows.size, mask.shape[1])), -1.0)
            actions[rows] = keys.argmax(axis=1)

    # --- the three phases ------------------------------------------------------------------

    def _bid(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        value, _, _ = self._hand_value(self.spec.view(obs, "hand").astype(np.int64))
        bids = mask.copy()
        bids[:, PASS] = False
        cheapest = np.where(bids.any(axis=1), bids.argmax(axis=1), PASS)
        is_rank = cheapest < POINT_BID_OFFSET
        rank_stop = np.floor((value - self.bid_base) / self.bid_step)
        point_stop = np.minimum(MIN_POINTS + 2 * (value - self.points_from), self.max_points)
        wanted = np.where(is_rank, cheapest <= rank_stop,
                          (value >= self.points_from) & (cheapest - POINT_BID_OFFSET + MIN_POINTS <= point_stop))
        wanted &= cheapest != PASS
        return np.where(wanted | ~mask[:, PASS], cheapest, PASS)

    def _discard(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """A monte's discards count for the caller: bank the most points outside the best suit, the
        weakest card first among equals; keep the best suit (the trump to be) for play."""
        hand = self.spec.view(obs, "hand").astype(bool)
        _, best, _ = self._hand_value(hand.astype(np.int64))
        outside = mask[:, PLAY_OFFSET:PLAY_OFFSET + NUM_CARDS] & ~_IN_SUIT[best]
        allowed = np.where(outside.any(axis=1)[:, None], outside, mask[:, PLAY_OFFSET:PLAY_OFFSET + NUM_CARDS])
        return PLAY_OFFSET + np.where(allowed, self.points * 100 - self.strength, -10**9).argmax(axis=1)

    def _call(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        hand = self.spec.view(obs, "hand").astype(bool)
        value, _, score = self._hand_value(hand.astype(np.int64))
        if "discards" in self.spec.sections:  # his discards are his own cards too
            hand = hand | self.spec.view(obs, "discards").astype(bool)
        callable_ = mask[:, CALL_OFFSET:CALL_OFFSET + NUM_CARDS]
        own_ok = (value >= self.solo_from)[:, None]
        suit_rank = np.argsort(np.argsort(score, axis=1), axis=1)  # 3 = best suit
        preference = (suit_rank[:, _SUIT_OF] * 100 + self.strength[None, :]
                      - np.where(hand & ~own_ok, 10_000, 0))
        return CALL_OFFSET + np.where(callable_, preference, -10**9).argmax(axis=1)

    def _play(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        n, spec, others = len(obs), self.spec, self.seats - 1
        playable = mask[:, PLAY_OFFSET:PLAY_OFFSET + NUM_CARDS]
        trumps = spec.view(obs, "trump")
        trump = np.where(trumps.any(axis=1), trumps.argmax(axis=1), -1)  # -1: none yet (a blind first trick)
        called = np.where(spec.view(obs, "called_card").any(axis=1), spec.view(obs, "called_card").argmax(1), -1)
        table = spec.view(obs, "current_trick").reshape(n * others, NUM_CARDS)  # one-hot rows
        first = table.argmax(axis=1)
        placed = (table[np.arange(len(table)), first] != 0).reshape(n, others)  # (n, seats - 1)
        on_table = placed.sum(axis=1)
        table_cards = np.where(placed, first.reshape(n, others), -1)

        # The card winning the trick so far, and who played it (relative seat).
        best, best_place = trick_winner(self.tables, trump, table_cards)
        leader = spec.view(obs, "trick_leader").argmax(axis=1)
        winner = (leader + best_place) % self.seats
        trick_points = np.where(placed, self.points[np.maximum(table_cards, 0)], 0).sum(axis=1)

        # Who is on my side, as far as I know (relative seats; 0 is me).
        caller = spec.view(obs, "caller").argmax(axis=1)
        revealed = spec.view(obs, "partner_revealed")[:, 0].astype(bool)
        partner = spec.view(obs, "partner").argmax(axis=1)
        i_partner = spec.view(obs, "i_hold_called")[:, 0].astype(bool) | (revealed & (partner == 0))
        i_caller = caller == 0
        caller_side = np.where(revealed, (winner == caller) | (winner == partner), winner == caller)
        teammate_wins = (on_table > 0) & np.where(i_caller | i_partner, caller_side & (winner != 0),
                                                  revealed & ~caller_side)

        is_trump = _IS_TRUMP[trump]
        wins = playable & takes_trick(self.tables, trump[:, None], best[:, None], np.arange(NUM_CARDS))
        cheap = self.cheap[trump]
        trick = spec.view(obs, "trick_index").argmax(axis=1)
        hide = i_partner & ~revealed & (trick < self.rules.table_shape.tricks - self.reveal_late)
        keep_back = hide[:, None] & (np.arange(NUM_CARDS)[None, :] == called[:, None])
        spare = playable & ~keep_back
        spare = np.where(spare.any(axis=1)[:, None], spare, playable)

        def pick(allowed: np.ndarray, cost: np.ndarray) -> np.ndarray:
            return np.where(allowed, cost, 10**9).argmin(axis=1)

        throw = pick(spare, cheap)
        load = pick(spare & ~is_trump, -self.points[None, :] * 100 - self.strength[None, :])
        can_load = (spare & ~is_trump).any(axis=1)
        safe = (on_table == others) | (_SUIT_OF[np.maximum(best, 0)] == trump)
        take = pick(wins & spare, self.take_cost[trump])
        can_take = (wins & spare).any(axis=1) & (trick_points >= self.take_from)

        # Leading: a defender hunting the partner leads a low trump.
        hunting = ~i_caller & ~i_partner & ~revealed & (spare & is_trump).any(axis=1)
        lead = np.where(hunting, pick(spare & is_trump, self.strength[None, :]),
                        pick(spare, self.lead_cost[trump]))

        choice = np.where(on_table == 0, lead,
                          np.where(teammate_wins, np.where(safe & can_load, load, throw),
                                   np.where(can_take, take, throw)))
        return PLAY_OFFSET + choice
