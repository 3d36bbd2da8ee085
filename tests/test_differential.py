"""The batched engine against the scalar reference on random games, for every
rules preset (under both readings of the call after the 2) and every value of
every variant, and on rigged deals that random ones seldom give (whole suits, a
2 in the monte, every Asso or every 2 in one hand) for every preset at each of
its tables: same legal masks at every step, same payoffs and captured points at
the end."""

import zlib

import numpy as np
import pytest

from briscola_env.actions import PASS, rank_bid
from briscola_env.cards import NUM_CARDS, NUM_FACES, NUM_SUITS, card_id
from briscola_env.engine import Phase
from briscola_env.rules import CALL_AFTER_TWO_RULES, PRESETS, RulesConfig, TableShape, preset
from support import play_both, play_both_deals, rule_configs

CONFIGS = rule_configs()
CONFIGS.update({f"preset:{name},call_after_two={value}": preset(name, call_after_two=value)
                for name in PRESETS for value in CALL_AFTER_TWO_RULES
                if value != RulesConfig().call_after_two})
GAMES_PER_CONFIG = 2000
BATCH = 500
# The fields of RULES.md's "variants that change the table", each combined with every other field's
# non-default values (support.rule_configs), on fewer games per combination.
TABLE_VARIANTS = {"blind_first_trick": True, "monte": True, "players": 4}
# The combinations the rules refuse, with a clear error: the sources have no monte for four, and the
# partner's payoff at four is the table for four (see RulesConfig.players).
REFUSED = {"monte=True+players=4", "players=4+monte=True", "partner_payoff=equal+players=4",
           "payoff_table={'caller': 3, 'partner': 1.5, 'defender': -1, 'solo_caller': 6, 'solo_defender': -2}"
           "+players=4"}


def combined_configs() -> tuple[dict[str, RulesConfig], set[str]]:
    combined, refused = {}, set()
    for field, value in TABLE_VARIANTS.items():
        for name, rules in rule_configs().items():
            if name.startswith(("preset:", f"{field}=")):
                continue
            try:
                combined[f"{name}+{field}={value}"] = rules.replace(**{field: value})
            except ValueError:
                refused.add(f"{name}+{field}={value}")
    return combined, refused


COMBINED, _REFUSED = combined_configs()
GAMES_PER_COMBINATION = 500


@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.slow
def test_engine_matches_reference(name):
    check_against_reference(name, CONFIGS[name], GAMES_PER_CONFIG, 10_000 * list(CONFIGS).index(name))


@pytest.mark.parametrize("name", list(COMBINED))
@pytest.mark.slow
def test_engine_matches_reference_in_table_variants_combined_with_every_field(name):
    check_against_reference(name, COMBINED[name], GAMES_PER_COMBINATION, 7_000_000 + 1000 * list(COMBINED).index(name))


def check_against_reference(name, rules, n_games: int, first_seed: int):
    rng = np.random.default_rng(zlib.crc32(name.encode()))  # hash() of a str changes from run to run
    for start in range(0, n_games, BATCH):
        seeds = np.arange(start, start + BATCH) + first_seed
        pass_prob = (0.3, 0.5, 0.7, 0.9)[start // BATCH % 4]  # short and long auctions
        state, games = play_both(rules, seeds, rng, pass_prob)
        assert_same_outcomes(name, state, games)


def assert_same_outcomes(name, state, games) -> None:
    for b, game in enumerate(games):
        assert np.allclose(state.rewards[b], game.payoffs), (name, b, state.rewards[b], game.payoffs)
        assert state.captured_points[b].tolist() == game.captured_points
        assert state.tricks_won[b].tolist() == game.tricks_won
        assert state.caller[b] == game.caller and state.called_card[b] == game.called_card
        assert state.hidden.partner[b] == game.partner
        assert state.trick_winners[b].tolist()[:len(game.trick_winners)] == game.trick_winners
        assert state.team_points[b] == game.team_points and state.contract_made[b] == game.made
        auction = [(s, a) for s, a in zip(state.auction_seats[b], state.auction_actions[b]) if a >= 0]
        assert auction == [tuple(x) for x in game.auction]


def test_sweep_covers_enough_games():
    assert len(CONFIGS) * GAMES_PER_CONFIG >= 20_000


def test_sweep_covers_both_calls_after_the_two_under_every_preset():
    for name in PRESETS:
        for value in CALL_AFTER_TWO_RULES:
            assert any(rules == preset(name, call_after_two=value) for rules in CONFIGS.values()), (name, value)


def test_the_refused_combinations_are_exactly_those_the_sources_lack():
    assert _REFUSED == REFUSED


# --- Rigged deals ---------------------------------------------------------------------------------------------

# The tables each preset is played at on rigged deals: its own and, where the rules allow them, four players and
# the monte, the two tables where one player's cards can hold a whole suit.
RIGGED_TABLES = {"own": {}, "four": {"players": 4}, "monte": {"monte": True}}
RIGGED_GAMES = 24  # per preset, table, self-call rule and kind of deal
ACES = [card_id(suit, 1) for suit in range(NUM_SUITS)]
TWOS = [card_id(suit, 2) for suit in range(NUM_SUITS)]
THE_TWO = rank_bid(NUM_FACES)  # the weakest rank bid; any points bid after it has a higher id


def whole_suit(shape: TableShape, rng) -> tuple[list[int], list[int]]:
    """A whole suit among the hero's cards: in his hand at four, in his hand and the monte under monte; at the
    standard table, where 8 cards cannot hold one, 8 cards of a suit, its 2 among them."""
    which = int(rng.integers(NUM_SUITS))
    suit = [card_id(which, face) for face in range(1, NUM_FACES + 1)]
    if shape.hand_size >= NUM_FACES:
        return suit, []
    if shape.monte_size:
        suit = rng.permutation(suit).tolist()
        in_hand = int(rng.integers(NUM_FACES - shape.monte_size, shape.hand_size + 1))
        return suit[:in_hand], suit[in_hand:]
    two = suit.pop(1)
    return [two] + rng.permutation(suit)[:shape.hand_size - 1].tolist(), []


def two_in_monte(shape: TableShape, rng) -> tuple[list[int], list[int]]:
    """One to four 2s in the monte and low cards of the first one's suit in the hero's hand: his weakest
    missing card, if he wins at the 2, depends on what the monte brings him."""
    suits = rng.permutation(NUM_SUITS)[:int(rng.integers(1, NUM_SUITS + 1))]
    low = [card_id(int(suits[0]), face) for face in rng.permutation([3, 4, 5, 6, 7])[:int(rng.integers(1, 4))]]
    return low, [card_id(int(suit), 2) for suit in suits]


def every_ace(shape: TableShape, rng) -> tuple[list[int], list[int]]:
    return _every(ACES, shape, rng)


def every_two(shape: TableShape, rng) -> tuple[list[int], list[int]]:
    return _every(TWOS, shape, rng)


def _every(rank: list[int], shape: TableShape, rng) -> tuple[list[int], list[int]]:
    """The four cards of a rank in the hero's hand or, under monte half the time, some of them in the monte."""
    if shape.monte_size and rng.random() < 0.5:
        rank = rng.permutation(rank).tolist()
        in_hand = int(rng.integers(1, len(rank)))
        return rank[:in_hand], rank[in_hand:]
    return list(rank), []


RIGGED = {"whole_suit": whole_suit, "two_in_monte": two_in_monte, "every_ace": every_ace, "every_two": every_two}


def rigged_deals(shape: TableShape, kind: str, games: int, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(deals, dealers, heroes)``: ``games`` deals of ``kind`` (a key of RIGGED), each with a random hero
    seat and dealer and the other cards dealt at random."""
    deals = np.full((games, NUM_CARDS), -1, dtype=np.int8)
    heroes = rng.integers(shape.seats, size=games)
    for deal, hero in zip(deals, heroes):
        hand, monte = RIGGED[kind](shape, rng)
        deal[np.array(hand, dtype=np.intp)] = hero
        deal[np.array(monte, dtype=np.intp)] = shape.monte_holder
        room = [shape.hand_size - int((deal == s).sum()) for s in range(shape.seats)]
        room.append(shape.monte_size - len(monte))
        deal[rng.permutation(np.flatnonzero(deal == -1))] = np.repeat(np.arange(shape.seats + 1), room)
    return deals, rng.integers(shape.seats, size=games).astype(np.int8), heroes


def hero_policy(heroes: np.ndarray, rng):
    """``choose(state, mask)`` for support.play_both_deals: the hero bids, most often the 2 (so that he wins
    there, or on points after it), the others mostly pass; discards, calls and cards are uniform."""
    def choose(state, mask):
        actions = np.full(len(mask), -1)
        for b in np.flatnonzero(~state.terminated):
            legal = np.flatnonzero(mask[b])
            bids = legal[legal != PASS]
            if state.phase[b] != Phase.AUCTION or not bids.size:
                actions[b] = rng.choice(legal)
            elif state.current_player[b] != heroes[b]:
                actions[b] = PASS if mask[b, PASS] and rng.random() < 0.8 else rng.choice(bids)
            elif THE_TWO in bids and rng.random() < 0.6:
                actions[b] = THE_TWO
            else:
                actions[b] = rng.choice(bids)
        return actions
    return choose


def rigged_configs(name: str) -> dict[str, RulesConfig]:
    """Preset ``name`` at each table of RIGGED_TABLES the rules allow, with and without self-calls."""
    configs = {}
    for table, table_fields in RIGGED_TABLES.items():
        for self_call in (True, False):
            try:
                rules = preset(name, **table_fields, allow_self_call=self_call)
            except ValueError:
                continue  # refused: no monte for four, and at four the partner always scores as the caller
            configs.setdefault(rules, f"preset:{name}+{table},allow_self_call={self_call}")
    return {label: rules for rules, label in configs.items()}


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.slow
def test_engine_matches_reference_on_rigged_deals(name):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    won_at_the_two_on_a_whole_suit = {}
    for label, rules in rigged_configs(name).items():
        shape = rules.table_shape
        for kind in RIGGED:
            if kind == "two_in_monte" and not shape.monte_size:
                continue
            deals, dealers, heroes = rigged_deals(shape, kind, RIGGED_GAMES, rng)
            state, games = play_both_deals(rules, deals, dealers, hero_policy(heroes, rng))
            assert_same_outcomes(f"{label}, {kind}", state, games)
            if kind == "whole_suit" and shape.hand_size + shape.monte_size >= NUM_FACES:
                won_at_the_two_on_a_whole_suit[label] = sum(
                    game.caller == hero and game.high_bid >= THE_TWO for game, hero in zip(games, heroes))
    # The deals reach the case they are rigged for: a whole suit among the own cards of a caller at the 2.
    assert won_at_the_two_on_a_whole_suit, "no table of the preset where a whole suit can be held"
    if PRESETS[name].get("bidding") != "points_only":
        assert all(won_at_the_two_on_a_whole_suit.values()), won_at_the_two_on_a_whole_suit


def test_rigged_deals_give_every_seat_its_cards_and_the_hero_his_rigged_ones():
    rng = np.random.default_rng(0)
    for rules in (preset("standard"), preset("four_players"), preset("monte")):
        shape = rules.table_shape
        for kind in RIGGED:
            if kind == "two_in_monte" and not shape.monte_size:
                continue
            deals, _, heroes = rigged_deals(shape, kind, 50, rng)
            for deal, hero in zip(deals, heroes):
                sizes = np.bincount(deal, minlength=shape.seats + 1).tolist()
                assert sizes == [shape.hand_size] * shape.seats + [shape.monte_size]
                his = set(np.flatnonzero((deal == hero) | (deal == shape.monte_holder)).tolist())
                if kind == "whole_suit" and shape.hand_size + shape.monte_size >= NUM_FACES:
                    assert any(set(range(s * NUM_FACES, (s + 1) * NUM_FACES)) <= his for s in range(NUM_SUITS))
                if kind in ("every_ace", "every_two"):
                    assert set(ACES if kind == "every_ace" else TWOS) <= his
