"""The card tables, the action space and the rules config, checked against RULES.md."""

import dataclasses
import re

import numpy as np
import pytest

from briscola_env import actions as A
from briscola_env.actions import action_to_text, text_to_action
from briscola_env.cards import (CARD_FACE, CARD_POINTS, CARD_SUIT, card_id, card_name, card_str,
                                card_tables, parse_card, parse_cards)
from briscola_env.rules import PRESETS, PayoffTable, RulesConfig, preset

FIELD_NAMES = [f.name for f in dataclasses.fields(RulesConfig)]

# RULES.md, written out by hand (faces: Asso=1 .. 7, Fante=8, Cavallo=9, Re=10).
RULES_MD_ORDER = {
    "three": (1, 3, 10, 9, 8, 7, 6, 5, 4, 2),  # Asso, 3, Re, Cavallo, Fante, 7, 6, 5, 4, 2
    "seven": (1, 7, 10, 9, 8, 6, 5, 4, 3, 2),  # Asso, 7, Re, Cavallo, Fante, 6, 5, 4, 3, 2
}
RULES_MD_POINTS = {
    "three": {1: 11, 3: 10, 10: 4, 9: 3, 8: 2},
    "seven": {1: 11, 7: 10, 10: 4, 9: 3, 8: 2},
}
SUIT_SYMBOLS = "♥♦♣♠"  # Coppe, Denari, Bastoni, Spade
SUIT_LETTERS = "cdbs"
FACE_SYMBOLS = "A234567FCR"


# ---------------------------------------------------------------- cards

@pytest.mark.parametrize("ten_card", ["three", "seven"])
def test_card_points_sum_to_120(ten_card):
    assert int(card_tables(ten_card).points.sum()) == 120


def test_standard_card_points_table_sums_to_120():
    assert int(CARD_POINTS.sum()) == 120
    assert np.array_equal(CARD_POINTS, card_tables("three").points)


@pytest.mark.parametrize("ten_card", ["three", "seven"])
def test_card_points_per_face_match_rules_md(ten_card):
    points = card_tables(ten_card).points
    for card in range(40):
        face = card % 10 + 1
        assert points[card] == RULES_MD_POINTS[ten_card].get(face, 0), (ten_card, card)


@pytest.mark.parametrize("ten_card", ["three", "seven"])
def test_strength_order_matches_rules_md(ten_card):
    tables = card_tables(ten_card)
    for suit in range(4):
        cards = [suit * 10 + face - 1 for face in range(1, 11)]
        strongest_first = sorted(cards, key=lambda c: -int(tables.strength[c]))
        assert tuple(c % 10 + 1 for c in strongest_first) == RULES_MD_ORDER[ten_card]
        assert len({int(tables.strength[c]) for c in cards}) == 10  # no ties within a suit


@pytest.mark.parametrize("ten_card", ["three", "seven"])
def test_rank_level_1_is_the_strongest_face_and_10_the_weakest(ten_card):
    tables = card_tables(ten_card)
    for level, face in enumerate(RULES_MD_ORDER[ten_card], start=1):
        assert tables.level_face[level - 1] == face
        for suit in range(4):
            assert tables.level[suit * 10 + face - 1] == level


def test_card_tables_reject_unknown_ten_card_variant():
    with pytest.raises(ValueError, match="ten_card"):
        card_tables("four")


def test_card_tables_are_read_only():
    with pytest.raises(ValueError):
        card_tables("three").points[0] = 99


def test_card_id_is_suit_times_ten_plus_face_minus_one():
    for suit in range(4):
        for face in range(1, 11):
            c = card_id(suit, face)
            assert c == suit * 10 + face - 1
            assert CARD_SUIT[c] == suit and CARD_FACE[c] == face
    assert card_id(0, 1) == 0 and card_id(3, 10) == 39


@pytest.mark.parametrize("suit, face", [(4, 1), (-1, 1), (0, 0), (0, 11)])
def test_card_id_rejects_out_of_range_suit_or_face(suit, face):
    with pytest.raises(ValueError, match="no card"):
        card_id(suit, face)


@pytest.mark.parametrize("card, short, italian, english", [
    (0, "A♥", "Asso di Coppe", "Ace of Hearts"),
    (10, "A♦", "Asso di Denari", "Ace of Diamonds"),
    (12, "3♦", "Tre di Denari", "Three of Diamonds"),
    (26, "7♣", "Sette di Bastoni", "Seven of Clubs"),
    (27, "F♣", "Fante di Bastoni", "Jack of Clubs"),
    (38, "C♠", "Cavallo di Spade", "Knight of Spades"),
    (39, "R♠", "Re di Spade", "King of Spades"),
])
def test_card_names(card, short, italian, english):
    assert card_str(card) == short
    assert card_name(card) == italian
    assert card_name(card, "it") == italian
    assert card_name(card, "en") == english


def test_card_names_are_distinct():
    for fn in (card_str, card_name, lambda c: card_name(c, "en")):
        assert len({fn(c) for c in range(40)}) == 40


@pytest.mark.parametrize("bad", [-1, 40, 3.0, "A♦", None])
def test_card_str_and_card_name_reject_non_card_ids(bad):
    with pytest.raises(ValueError, match="0..39"):
        card_str(bad)
    with pytest.raises(ValueError, match="0..39"):
        card_name(bad)


def test_card_name_rejects_unknown_language():
    with pytest.raises(ValueError, match="lang"):
        card_name(10, "fr")


def test_parse_card_round_trips_symbol_form():
    for card in range(40):
        assert parse_card(card_str(card)) == card


def test_parse_card_round_trips_ascii_letter_form():
    for card in range(40):
        text = FACE_SYMBOLS[card % 10] + SUIT_LETTERS[card // 10]
        assert parse_card(text) == card


def test_parse_card_examples():
    assert parse_card("A♦") == 10
    assert parse_card("Ad") == 10
    assert parse_card("Rs") == 39
    assert parse_card("Cc") == 8  # Cavallo di Coppe: 'C' as a face, 'c' as a suit
    assert parse_card("  F♣ ") == 27
    assert parse_cards("A♦ 3d Rs") == [10, 12, 39]


@pytest.mark.parametrize("garbage", ["", "  ", "A", "X♦", "a♦", "Ax", "AD", "A♦♦", "10♦", "♦A", None, 10])
def test_parse_card_rejects_garbage_with_clear_message(garbage):
    with pytest.raises(ValueError, match="cannot parse card") as info:
        parse_card(garbage)
    assert repr(garbage) in str(info.value)


def test_parse_card_names_the_unknown_suit():
    with pytest.raises(ValueError, match="unknown suit 'x'"):
        parse_card("Ax")


# ---------------------------------------------------------------- actions

def test_action_space_offsets():
    assert A.PASS == 0
    assert A.RANK_BID_OFFSET == 1
    assert A.POINT_BID_OFFSET == 11
    assert A.CALL_OFFSET == 71
    assert A.PLAY_OFFSET == 111
    assert A.NUM_ACTIONS == 151


def test_action_helpers_match_offsets():
    assert [A.rank_bid(k) for k in (1, 10)] == [1, 10]
    assert [A.point_bid(p) for p in (61, 62, 120)] == [11, 12, 70]
    assert A.bid_points(11) == 61 and A.bid_points(70) == 120
    assert [A.call(c) for c in (0, 39)] == [71, 110]
    assert [A.play(c) for c in (0, 39)] == [111, 150]


@pytest.mark.parametrize("fn, bad", [(A.rank_bid, 0), (A.rank_bid, 11), (A.point_bid, 60), (A.point_bid, 121),
                                     (A.call, -1), (A.call, 40), (A.play, -1), (A.play, 40)])
def test_action_helpers_reject_out_of_range(fn, bad):
    with pytest.raises(ValueError, match=str(bad)):
        fn(bad)


@pytest.mark.parametrize("ten_card", ["three", "seven"])
def test_action_text_round_trips_all_151_ids(ten_card):
    texts = [action_to_text(a, ten_card) for a in range(151)]
    assert len(set(texts)) == 151
    for a, text in enumerate(texts):
        assert text_to_action(text, ten_card) == a, text


@pytest.mark.parametrize("action, three, seven", [
    (0, "pass", "pass"),
    (1, "bid A", "bid A"),
    (2, "bid 3", "bid 7"),
    (3, "bid R", "bid R"),
    (6, "bid 7", "bid 6"),
    (9, "bid 4", "bid 3"),
    (10, "bid 2", "bid 2"),
    (11, "bid 61", "bid 61"),
    (25, "bid 75", "bid 75"),
    (70, "bid 120", "bid 120"),
    (71, "call A♥", "call A♥"),
    (81, "call A♦", "call A♦"),
    (121, "play A♦", "play A♦"),
    (150, "play R♠", "play R♠"),
])
def test_action_text_examples(action, three, seven):
    assert action_to_text(action, "three") == three
    assert action_to_text(action, "seven") == seven


def test_text_to_action_accepts_ascii_cards():
    assert text_to_action("play Ad") == 121
    assert text_to_action("call Rs") == 110


@pytest.mark.parametrize("bad", [151, -1, -3, 1000])
def test_action_to_text_rejects_out_of_range_ids(bad):
    with pytest.raises(ValueError, match=r"0\.\.150"):
        action_to_text(bad)


@pytest.mark.parametrize("bad", ["", "fold", "bid", "bid 60", "bid X", "play", "play A♦ now", "PASS", "call 10"])
def test_text_to_action_rejects_garbage(bad):
    with pytest.raises(ValueError):
        text_to_action(bad)


def test_text_to_action_error_lists_the_accepted_forms():
    with pytest.raises(ValueError, match="cannot parse action 'fold'.*'pass'.*'bid.*'call <card>'.*'play <card>'"):
        text_to_action("fold")


# ---------------------------------------------------------------- rules config

BAD_VALUES = [
    # (kwargs, field named in the message, fragment giving the allowed values)
    ({"bidding": "auction"}, "bidding", "'rank_then_points', 'rank_only', 'points_only'"),
    ({"bidding": 1}, "bidding", "'rank_then_points'"),
    ({"bidding": "points_only", "min_point_bid": 60}, "min_point_bid", "61..120"),
    ({"bidding": "points_only", "min_point_bid": 121}, "min_point_bid", "61..120"),
    ({"bidding": "points_only", "min_point_bid": 70.0}, "min_point_bid", "61..120"),
    ({"bidding": "points_only", "min_point_bid": "70"}, "min_point_bid", "61..120"),
    ({"all_pass": "redeal"}, "all_pass", "'void', 'last_forced'"),
    ({"call_rule": "any"}, "call_rule", "'exact', 'at_least'"),
    ({"call_after_two": "all"}, "call_after_two", "'two', 'any'"),
    ({"allow_self_call": "yes"}, "allow_self_call", "True or False"),
    ({"allow_self_call": 1}, "allow_self_call", "True or False"),
    ({"first_leader": "dealer"}, "first_leader", "'after_dealer', 'caller'"),
    ({"follow_suit": "no"}, "follow_suit", "True or False"),
    ({"follow_suit": 0}, "follow_suit", "True or False"),
    ({"follow_suit": True, "follow_suit_last_k": 9}, "follow_suit_last_k", "1..8"),
    ({"follow_suit": True, "follow_suit_last_k": 0}, "follow_suit_last_k", "1..8"),
    ({"follow_suit": True, "follow_suit_last_k": True}, "follow_suit_last_k", "1..8"),
    ({"follow_suit": True, "follow_suit_last_k": "3"}, "follow_suit_last_k", "1..8"),
    ({"target": 59}, "target", "61, 60"),
    ({"target": "61"}, "target", "61, 60"),
    ({"target": True}, "target", "61, 60"),
    ({"point_multipliers": "yes"}, "point_multipliers", "True or False"),
    ({"multiplier_table": ((60, 1),)}, "multiplier_table", "from 61"),
    ({"multiplier_table": ((61, 0),)}, "multiplier_table", "multipliers in 1..100"),
    ({"multiplier_table": ((61, 1), (61, 2))}, "multiplier_table", "strictly ascending"),
    ({"multiplier_table": ((61, 1), (81, 2), (71, 3))}, "multiplier_table", "strictly ascending"),
    ({"multiplier_table": ((61, 1), (121, 2))}, "multiplier_table", "at most 120"),
    ({"multiplier_table": ((61, 1.5),)}, "multiplier_table", "pairs of ints"),
    ({"multiplier_table": ((61, 1, 2),)}, "multiplier_table", "pairs of ints"),
    ({"multiplier_table": ()}, "multiplier_table", "pairs of ints"),
    ({"multiplier_table": "x"}, "multiplier_table", "pairs of ints"),
    ({"cappotto": "all"}, "cappotto", "'points', 'tricks', 'off'"),
    ({"cappotto_multiplier": 0}, "cappotto_multiplier", "1..10"),
    ({"cappotto_multiplier": 11}, "cappotto_multiplier", "1..10"),
    ({"cappotto_multiplier": 2.0}, "cappotto_multiplier", "1..10"),
    ({"cappotto_multiplier": True}, "cappotto_multiplier", "1..10"),
    ({"ten_card": "ten"}, "ten_card", "'three', 'seven'"),
    ({"partner_payoff": "double"}, "partner_payoff", "'half', 'equal'"),
    ({"payoff_table": "standard"}, "payoff_table", "PayoffTable, a dict or None"),
    ({"payoff_table": {"caller": "2", "partner": 1}}, "payoff_table.caller", "finite number"),
    ({"payoff_table": {"defender": float("nan")}}, "payoff_table.defender", "finite number"),
    ({"payoff_table": {"solo_caller": True}}, "payoff_table.solo_caller", "finite number"),
    ({"blind_first_trick": "yes"}, "blind_first_trick", "True or False"),
    ({"monte": 1}, "monte", "True or False"),
    ({"monte": True, "follow_suit": True, "follow_suit_last_k": 8}, "follow_suit_last_k", "1..7"),
    ({"players": 3}, "players", "5, 4"),
    ({"players": "4"}, "players", "5, 4"),
    ({"players": 4.0}, "players", "5, 4"),
    ({"monte": True, "players": 4}, "players", "monte=False, or players=5"),
    ({"players": 4, "partner_payoff": "equal"}, "players", "leave partner_payoff='half'"),
    ({"players": 4, "payoff_table": {"caller": 2, "partner": 1}}, "players", "partner gets 2"),
]


@pytest.mark.parametrize("kwargs, field, allowed", BAD_VALUES,
                         ids=[f"{k}={v!r}" for kw, _, _ in BAD_VALUES for k, v in list(kw.items())[-1:]])
def test_rules_config_rejects_bad_value_naming_field_and_allowed_values(kwargs, field, allowed):
    with pytest.raises(ValueError) as info:
        RulesConfig(**kwargs)
    message = str(info.value)
    assert field in message
    assert allowed in message


def test_every_rules_field_is_covered_by_the_bad_value_cases():
    covered = {list(kw)[-1] for kw, _, _ in BAD_VALUES}
    assert covered == set(FIELD_NAMES)


@pytest.mark.parametrize("value", [61.0, 60.0])
def test_rules_config_rejects_float_target(value):
    with pytest.raises(ValueError, match="target"):
        RulesConfig(target=value)


def test_rules_config_rejects_payoff_table_dict_with_unknown_key():
    with pytest.raises(ValueError, match="payoff_table"):
        RulesConfig(payoff_table={"caller": 2, "partnr": 1})


def test_min_point_bid_without_points_only_is_rejected():
    for bidding in ("rank_then_points", "rank_only"):
        with pytest.raises(ValueError, match="min_point_bid.*points_only"):
            RulesConfig(bidding=bidding, min_point_bid=70)
    assert RulesConfig(bidding="points_only", min_point_bid=70).min_point_bid == 70


def test_follow_suit_last_k_without_follow_suit_is_rejected():
    with pytest.raises(ValueError, match="follow_suit_last_k needs follow_suit=True"):
        RulesConfig(follow_suit_last_k=3)
    assert RulesConfig(follow_suit=True, follow_suit_last_k=3).follow_suit_last_k == 3


def test_equal_partner_payoff_with_a_half_table_is_rejected():
    with pytest.raises(ValueError, match="partner_payoff='equal'"):
        RulesConfig(partner_payoff="equal", payoff_table=PayoffTable())
    with pytest.raises(ValueError, match="partner_payoff='equal'"):
        RulesConfig(partner_payoff="equal", payoff_table={"caller": 2, "partner": 1})


def test_half_partner_payoff_with_an_equal_table_is_rejected():
    with pytest.raises(ValueError, match="partner_payoff='half'"):
        RulesConfig(payoff_table=PayoffTable.standard("equal"))


def test_consistent_custom_payoff_tables_are_accepted():
    half = RulesConfig(payoff_table={"caller": 3, "partner": 1.5, "defender": -1, "solo_caller": 6,
                                     "solo_defender": -2})
    assert half.payoff_table == PayoffTable(3, 1.5, -1, 6, -2)
    equal = RulesConfig(partner_payoff="equal", payoff_table=PayoffTable(caller=3, partner=3, defender=-2))
    assert equal.payoff_table.partner == 3


@pytest.mark.parametrize("partner_payoff", ["half", "equal"])
def test_default_payoff_tables_are_zero_sum(partner_payoff):
    t = RulesConfig(partner_payoff=partner_payoff).payoff_table
    assert t.caller + t.partner + 3 * t.defender == pytest.approx(0)
    assert t.solo_caller + 4 * t.solo_defender == pytest.approx(0)
    assert (t.partner == t.caller) == (partner_payoff == "equal")


def test_from_dict_rejects_unknown_keys_naming_them_and_listing_allowed_keys():
    with pytest.raises(ValueError) as info:
        RulesConfig.from_dict({"bidding": "rank_only", "trump": 1, "bogus": 2})
    message = str(info.value)
    assert "['bogus', 'trump']" in message
    allowed = message.split("allowed keys:")[1]
    for name in FIELD_NAMES:
        assert re.search(rf"\b{name}\b", allowed), name


@pytest.mark.parametrize("bad", [None, [("bidding", "rank_only")], "standard"])
def test_from_dict_rejects_non_mappings(bad):
    with pytest.raises(ValueError, match="mapping"):
        RulesConfig.from_dict(bad)


def test_from_dict_accepts_yaml_style_lists_and_dicts():
    cfg = RulesConfig.from_dict({"multiplier_table": [[61, 1], [80, 3]],
                                 "payoff_table": {"caller": 4, "partner": 2}})
    assert cfg.multiplier_table == ((61, 1), (80, 3))
    assert cfg.payoff_table == PayoffTable(caller=4, partner=2)
    hash(cfg)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_builds_with_its_fields(name):
    cfg = preset(name)
    assert isinstance(cfg, RulesConfig)
    for key, value in PRESETS[name].items():
        assert getattr(cfg, key) == value
    assert RulesConfig.from_dict(cfg.to_dict()) == cfg


def test_standard_preset_is_the_default_config():
    assert preset("standard") == RulesConfig()


def test_preset_overrides_are_validated():
    assert preset("seven", target=60).target == 60
    with pytest.raises(ValueError, match="target"):
        preset("seven", target=59)
    with pytest.raises(ValueError, match="unknown rules key"):
        preset("seven", colour="red")


def test_preset_rejects_unknown_name_listing_presets():
    with pytest.raises(ValueError, match="unknown rules preset 'sicilian'") as info:
        preset("sicilian")
    for name in PRESETS:
        assert name in str(info.value)


def test_replace_revalidates():
    cfg = RulesConfig()
    with pytest.raises(ValueError, match="target"):
        cfg.replace(target=59)
    with pytest.raises(ValueError, match="min_point_bid"):
        cfg.replace(min_point_bid=70)
    with pytest.raises(ValueError, match="follow_suit_last_k"):
        cfg.replace(follow_suit_last_k=2)
    with pytest.raises(ValueError, match=r"unknown rules key\(s\) \['colour'\]"):
        cfg.replace(colour="red")
    assert cfg == RulesConfig()  # the original is untouched


def test_replace_changes_fields_and_rederives_the_partner_payoff_table():
    cfg = RulesConfig().replace(bidding="points_only", min_point_bid=70)
    assert (cfg.bidding, cfg.min_point_bid) == ("points_only", 70)
    equal = RulesConfig().replace(partner_payoff="equal")
    assert equal.payoff_table == PayoffTable.standard("equal")
    assert equal.replace(partner_payoff="half").payoff_table == PayoffTable()


def test_rules_config_is_frozen():
    cfg = RulesConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.target = 60
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.payoff_table.caller = 5


def test_rules_config_is_hashable_and_equal_configs_hash_equal():
    a = RulesConfig.from_dict({"call_rule": "at_least", "multiplier_table": [[61, 1], [90, 2]]})
    b = RulesConfig(call_rule="at_least", multiplier_table=((61, 1), (90, 2)))
    assert a == b and hash(a) == hash(b)
    configs = {preset(name) for name in PRESETS}
    assert len(configs) == len(PRESETS)
    assert RulesConfig() in configs and RulesConfig(target=60) not in configs
