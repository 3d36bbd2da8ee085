"""Who leads the first trick, and who wins a trick: the one statement of each rule, for the
engine's card play and for every module that reads a trick from a view.

A trick's cards are given in play order (the leader's first); a card takes the trick from
the best one so far if it is a stronger card of the same suit or a trump over a non-trump
(the ``beats`` table of :class:`~briscola_env.engine.tables.RuleTables`).
"""

from __future__ import annotations

import numpy as np

from ..rules import RulesConfig
from .tables import RuleTables

def first_leader(rules: RulesConfig, caller: np.ndarray, dealer: np.ndarray) -> np.ndarray:
    """The seat leading the first trick: the caller, or the player after the dealer (``rules.first_leader``)."""
    return caller if rules.first_leader == "caller" else (dealer + 1) % rules.table_shape.seats


def takes_trick(tables: RuleTables, trump: np.ndarray, best: np.ndarray, card: np.ndarray) -> np.ndarray:
    """Whether ``card`` takes the trick from ``best``, the card winning it so far (-1: none, and any card
    takes an empty trick), with ``trump`` the trump suit (-1: none, as in the blind first trick of
    ``RulesConfig.blind_first_trick``); the arrays broadcast together."""
    # (take, not [], as the int8 fields index faster so)
    return tables.beats[tables.beats_at_trump.take(trump) + tables.beats_at_best.take(best) + card]


def trick_winner(tables: RuleTables, trump: np.ndarray, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(best card, its place)`` of each trick so far, from ``cards`` ``(n, k)`` in play order (-1 where
    no card is played yet): the card winning it (-1 if none is played) and its place in the play
    order (0, the leader, if none)."""
    best = np.full(len(cards), -1, dtype=np.int64)
    place = np.zeros(len(cards), dtype=np.int64)
    for i in range(cards.shape[1]):
        card = cards[:, i]
        takes = (card >= 0) & takes_trick(tables, trump, best, np.maximum(card, 0))
        best = np.where(takes, card, best)
        place = np.where(takes, i, place)
    return best, place
