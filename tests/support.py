"""Shared test helpers: rule configs to sweep, a random policy, and playing the
same games through the batched engine and the scalar reference side by side."""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from briscola_env import BatchedEnv, engine
from briscola_env.actions import NUM_ACTIONS, PASS, PLAY_OFFSET, text_to_action
from briscola_env.cards import CARDS_PER_HAND, NUM_CARDS, NUM_SEATS, NUM_TRICKS, card_str, parse_cards
from briscola_env.reference import ReferenceGame
from briscola_env.rules import PRESETS, RulesConfig, preset

# One config per preset, plus one per non-default value of every variant field.
VARIANT_VALUES = {
    "bidding": ["rank_only", "points_only"],
    "min_point_bid": [70],  # only meaningful with points_only
    "all_pass": ["last_forced"],
    "call_rule": ["at_least"],
    "call_after_two": ["any"],
    "allow_self_call": [False],
    "first_leader": ["caller"],
    "follow_suit": [True],
    "follow_suit_last_k": [2],
    "target": [60],
    "point_multipliers": [False],
    "multiplier_table": [((61, 1), (80, 3), (100, 7))],
    "cappotto": ["tricks", "off"],
    "cappotto_multiplier": [3],
    "ten_card": ["seven"],
    "partner_payoff": ["equal"],
    "payoff_table": [{"caller": 3, "partner": 1.5, "defender": -1, "solo_caller": 6, "solo_defender": -2}],
    "blind_first_trick": [True],
    "monte": [True],
    "players": [4],
}
_NEEDS = {"min_point_bid": {"bidding": "points_only"}, "follow_suit_last_k": {"follow_suit": True}}
assert set(VARIANT_VALUES) == {f.name for f in fields(RulesConfig)}, "every rules field must be swept"


def rule_configs() -> dict[str, RulesConfig]:
    configs = {f"preset:{name}": preset(name) for name in PRESETS}
    for key, values in VARIANT_VALUES.items():
        for value in values:
            configs[f"{key}={value}"] = RulesConfig.from_dict({**_NEEDS.get(key, {}), key: value})
    return configs


def random_actions(mask: np.ndarray, rng: np.random.Generator, pass_prob: float = 0.5) -> np.ndarray:
    """A random legal action per row of ``mask``; pass with ``pass_prob`` when it is
    legal (so that auctions end at every level), else uniform over the others."""
    noise = rng.random(mask.shape)
    take_pass = mask[:, PASS] & (rng.random(len(mask)) < pass_prob)
    others = mask.copy()
    others[:, PASS] &= ~mask[:, 1:].any(axis=1)  # pass counts as "other" only when it is all there is
    choice = np.where(others, noise, -1.0).argmax(axis=1)
    return np.where(take_pass, PASS, choice)


def ref_mask(game: ReferenceGame) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    mask[game.legal_actions()] = True
    return mask


def play_both(rules: RulesConfig, seeds: np.ndarray, rng: np.random.Generator, pass_prob: float = 0.5):
    """Play the games of ``seeds`` through the engine and the reference with the
    same random actions, checking them against each other at every step.

    Returns the final engine state and the reference games."""
    state = engine.init(seeds, rules)
    deals, dealers = engine.deal_from_seeds(seeds, rules)
    games = [ReferenceGame(rules, d.tolist(), int(k)) for d, k in zip(deals, dealers)]
    labels = [f"seed {seed}" for seed in seeds]
    while True:
        mask = check_lock_step(rules, state, games, labels)
        live = ~state.terminated
        if not live.any():
            return state, games
        # Let some games sit out some steps, so that games finish at different times.
        active = live & (rng.random(len(live)) < 0.9)
        actions = random_actions(mask, rng, pass_prob)
        actions[~live] = -1  # finished games' actions must be ignored
        state = engine.step(state, actions, active)
        for b in np.flatnonzero(active):
            games[b].step(int(actions[b]))


def check_lock_step(rules: RulesConfig, state, games: list[ReferenceGame], labels: list[str]) -> np.ndarray:
    """Check that the engine's games and the reference's agree on who acts and what is legal (``labels``
    name the games in a failure); return the engine's legal mask."""
    mask = state.legal_action_mask
    for b, game in enumerate(games):
        assert game.terminated == state.terminated[b], f"game {b}: terminated differs"
        if game.terminated:
            continue
        assert game.current_player == state.current_player[b], f"game {b}: current player differs"
        expected = ref_mask(game)
        if not np.array_equal(expected, mask[b]):
            diff = np.flatnonzero(expected != mask[b]).tolist()
            raise AssertionError(f"{rules}\ngame {b} ({labels[b]}), phase {engine.PHASE_NAMES[game.phase]}: "
                                 f"legal masks differ at actions {diff}; reference {game.legal_actions()}, "
                                 f"engine {np.flatnonzero(mask[b]).tolist()}\nauction {game.auction}\n"
                                 f"tricks {game.tricks}")
    return mask


def play_both_deals(rules: RulesConfig, deals: np.ndarray, dealers: np.ndarray, choose):
    """Play given ``deals`` (``(B, 40)``, each card's holder) through the engine and the reference,
    ``choose(state, mask) -> (B,) actions`` picking every move, checking them against each other at every
    step.

    Returns the final engine state and the reference games."""
    state = engine.init_from_deals(deals, dealers, rules)
    games = [ReferenceGame(rules, d.tolist(), int(k)) for d, k in zip(deals, dealers)]
    labels = [f"deal {d.tolist()}, dealer {k}" for d, k in zip(deals, dealers)]
    while True:
        mask = check_lock_step(rules, state, games, labels)
        live = ~state.terminated
        if not live.any():
            return state, games
        actions = choose(state, mask)
        actions[~live] = -1
        state = engine.step(state, actions)
        for b in np.flatnonzero(live):
            games[b].step(int(actions[b]))


# --- Scripted hands, for the scenario tests -----------------------------------

def cards(text: str) -> list[int]:
    """Card ids from compact forms, ASCII suits allowed: ``"Ac 3d Rs"``."""
    return parse_cards(text)


def deal_with(dealt: dict[int, str]) -> list[list[int]]:
    """Five hands: the cards given per seat, the rest of the deck filled in
    card-id order into the seats with room left."""
    hands = [cards(dealt.get(seat, "")) for seat in range(NUM_SEATS)]
    rest = [c for c in range(NUM_CARDS) if all(c not in h for h in hands)]
    for hand in hands:
        while len(hand) < CARDS_PER_HAND:
            hand.append(rest.pop(0))
    return hands


def scripted_tricks(tricks) -> list[list[int]]:
    """``by_seat[s][t]``, the card seat ``s`` plays in trick ``t``, from eight
    ``(winner, winning card, "four other cards")`` rows; the other cards go to
    the other seats in seat order."""
    by_seat = [[-1] * NUM_TRICKS for _ in range(NUM_SEATS)]
    for t, (winner, top, others) in enumerate(tricks):
        by_seat[winner][t] = cards(top)[0]
        for seat, card in zip([s for s in range(NUM_SEATS) if s != winner], cards(others)):
            by_seat[seat][t] = card
    return by_seat


class Table:
    """One game run through the engine (batch of 1) and the reference side by
    side; every action is checked to leave both with the same legal actions."""

    def __init__(self, rules: RulesConfig, hands: list[list[int]], dealer: int, monte=None):
        deal = engine.hands_to_deal(hands, monte, rules)
        self.rules = rules
        self.state = engine.init_from_deals(deal[None], np.array([dealer]), rules)
        self.game = ReferenceGame(rules, deal.tolist(), dealer)
        self._check()

    @classmethod
    def scripted(cls, rules: RulesConfig, tricks, dealer: int) -> "Table":
        table = cls(rules, [sorted(h) for h in scripted_tricks(tricks)], dealer)
        table.by_seat = scripted_tricks(tricks)
        return table

    @property
    def legal(self) -> list[int]:
        return np.flatnonzero(self.state.legal_action_mask[0]).tolist()

    def act(self, *texts: str) -> "Table":
        for text in texts:
            action = text_to_action(text, self.rules.ten_card)
            self.state = engine.step(self.state, np.array([action]))
            self.game.step(action)
            self._check()
        return self

    def play_tricks(self, until_trick: int = NUM_TRICKS, cards_in_trick: int = 0) -> "Table":
        """Play the scripted cards up to trick ``until_trick`` (0-based) with
        ``cards_in_trick`` cards of it on the table."""
        s = self.state
        while not s.terminated[0] and (s.trick_cards[0] >= 0).sum() < until_trick * NUM_SEATS + cards_in_trick:
            seat = s.current_player[0]
            self.act(f"play {card_str(self.by_seat[seat][s.trick_index[0]])}")
            s = self.state
        return self

    @property
    def payoffs(self) -> list[float]:
        return self.state.rewards[0].tolist()

    def _check(self) -> None:
        assert np.array_equal(self.state.legal_action_mask[0], ref_mask(self.game))
        assert self.state.current_player[0] == self.game.current_player
        assert np.allclose(self.state.rewards[0], self.game.payoffs)


def random_positions(rules, games=64, steps=60, seed=0):
    """Observations of the seat to act (and the engine state) along random games, every step."""
    env = BatchedEnv(games, rules, seed=seed)
    out, rng = env.reset(), np.random.default_rng(seed)
    for _ in range(steps):
        yield out.obs, env.state
        out = env.step(engine.random_actions(env.state, rng))


def play_out(table: "Table", caller_cards: str = "") -> "Table":
    """Play a :class:`Table` to the end: seat 0 his ``caller_cards`` in order (while he has them),
    everyone else his lowest legal card."""
    own = cards(caller_cards)
    while not table.state.terminated[0]:
        if table.state.current_player[0] == 0 and own:
            table.act(f"play {card_str(own.pop(0))}")
        else:
            table.act(f"play {card_str(table.legal[0] - PLAY_OFFSET)}")
    return table


def whole_and_resumed_runs(train_main, config: str, tmp_path, stop_after: int, extra: list[str],
                           before_resume=None) -> tuple[dict, dict]:
    """The final checkpoints of a training run made in one go and of the same run stopped after ``stop_after``
    updates and resumed (each read with ``weights_only=True``): ``(whole, resumed)``. ``before_resume()``, if
    given, is called between the stop and the resume (to move a file the run started from, say)."""
    import torch

    train_main(["--config", config, f"run_dir={tmp_path / 'whole'}", *extra])
    train_main(["--config", config, f"run_dir={tmp_path / 'split'}", f"stop_after={stop_after}", *extra])
    if before_resume is not None:
        before_resume()
    train_main(["--resume", str(tmp_path / "split" / "tiny-1")])
    return tuple(torch.load(tmp_path / part / "tiny-1" / "checkpoint.pt", weights_only=True)
                 for part in ("whole", "split"))
