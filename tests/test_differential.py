"""The batched engine against the scalar reference on random games, for every
rules preset (under both readings of the call after the 2) and every value of
every variant: same legal masks at every step, same payoffs and captured
points at the end."""

import zlib

import numpy as np
import pytest

from briscola_env.rules import CALL_AFTER_TWO_RULES, PRESETS, RulesConfig, preset
from support import play_both, rule_configs

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
def test_engine_matches_reference(name):
    check_against_reference(name, CONFIGS[name], GAMES_PER_CONFIG, 10_000 * list(CONFIGS).index(name))


@pytest.mark.parametrize("name", list(COMBINED))
def test_engine_matches_reference_in_table_variants_combined_with_every_field(name):
    check_against_reference(name, COMBINED[name], GAMES_PER_COMBINATION, 7_000_000 + 1000 * list(COMBINED).index(name))


def check_against_reference(name, rules, n_games: int, first_seed: int):
    rng = np.random.default_rng(zlib.crc32(name.encode()))  # hash() of a str changes from run to run
    for start in range(0, n_games, BATCH):
        seeds = np.arange(start, start + BATCH) + first_seed
        pass_prob = (0.3, 0.5, 0.7, 0.9)[start // BATCH % 4]  # short and long auctions
        state, games = play_both(rules, seeds, rng, pass_prob)
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
