"""Faults of game records and ``briscola replay`` (issue 13, items 2.5 and 2.7): every record is
checked against its own replay, under its own rules; a file is read only up to the requested
record, a broken line spoils only itself, and names from a record cannot drive the terminal."""

from __future__ import annotations

import copy
import json
import os
import threading

import numpy as np
import pytest

from briscola_env import engine, records
from briscola_env.actions import PASS
from briscola_env.rules import RulesConfig, preset
from briscola_cli.main import main

from support import random_actions


def played_records(rules: RulesConfig, seeds, agents=("a", "b", "c", "d", "e"), pass_prob: float = 0.2):
    """Records of random hands of ``seeds`` under ``rules``."""
    state = engine.init(np.asarray(seeds), rules)
    rng = np.random.default_rng(0)
    taken = [[] for _ in seeds]
    while not state.terminated.all():
        actions = random_actions(state.legal_action_mask, rng, pass_prob)
        for b in np.flatnonzero(~state.terminated):
            taken[b].append(int(actions[b]))
        engine.step_inplace(state, np.where(state.terminated, 0, actions))
    deals, dealers = engine.deal_from_seeds(np.asarray(seeds))
    return [records.record(rules, deals[b], dealers[b], taken[b], list(agents)) for b in range(len(seeds))]


@pytest.fixture(scope="module")
def games() -> list[dict]:
    """Four scored hands (not void) under the standard rules."""
    found = [r for r in played_records(RulesConfig(), range(40)) if r["call"] is not None]
    return found[:4]


def write_lines(path, lines) -> None:
    path.write_bytes(b"".join(line + b"\n" for line in lines))


def as_line(r: dict) -> bytes:
    return json.dumps(r, ensure_ascii=False).encode("utf-8")


# --- 2.5: records are checked against their replay --------------------------------------------

def test_validate_checks_each_record_under_its_own_rules_and_replay_refuses_a_mix():
    """Standard and seven-card records interleaved: each is checked under its own rules (the
    seven's card order changes the bids' names and the points), and replay, whose State holds
    one set of rules, refuses the mix instead of scoring every hand under the first's."""
    seven = preset("seven")
    standard_games = played_records(RulesConfig(), range(6))
    seven_games = played_records(seven, range(6))
    mixed = [r for pair in zip(standard_games, seven_games) for r in pair]
    with pytest.raises(ValueError, match="game 1 is played under other rules than game 0"):
        records.replay(mixed)
    records.validate(mixed)
    state = records.replay(seven_games)
    assert np.allclose(state.rewards, [r["outcome"]["payoffs"] for r in seven_games])
    relabelled = copy.deepcopy(mixed)
    relabelled[3]["rules"] = standard_games[0]["rules"]  # a seven hand claiming the standard rules
    with pytest.raises(ValueError, match=r"^game 3: "):
        records.validate(relabelled)


@pytest.mark.parametrize("name", ["standard", "seven", "points_only", "at_least", "lenient", "no_self_call"])
def test_validate_accepts_the_records_of_every_kind_of_hand(name):
    """No false alarms: hands of several presets, void ones (everybody passes) among them."""
    batch = played_records(preset(name), range(12), pass_prob=0.7)
    assert any(r["call"] is None for r in batch) or name == "lenient"
    records.validate(batch)
    assert np.allclose(records.replay(batch).rewards, [r["outcome"]["payoffs"] for r in batch])


def test_records_written_before_call_after_two_replay_under_the_earlier_reading():
    """A record lists every rules field, so one without ``call_after_two`` was written before the
    field existed, when any card could be called after points bid on the 2."""
    earlier = played_records(RulesConfig(call_after_two="any"), range(60), pass_prob=0.05)
    for r in earlier:
        del r["rules"]["call_after_two"]
    with pytest.raises(ValueError, match="illegal"):  # under today's default some calls are illegal
        records.validate([{**r, "rules": {**r["rules"], "call_after_two": "two"}} for r in earlier])
    records.validate(earlier)


def test_replay_refuses_negative_action_ids(games):
    tampered = copy.deepcopy(games)
    tampered[2]["actions"].insert(3, -1)
    with pytest.raises(ValueError, match=r"game 2: actions: expected action ids 0\.\.150; got -1"):
        records.replay(tampered)


def test_replay_refuses_an_unfinished_hand(games):
    tampered = copy.deepcopy(games)
    del tampered[1]["actions"][-1]
    with pytest.raises(ValueError, match=r"game 1: actions: the \d+ actions leave the hand unfinished"):
        records.replay(tampered)


def test_replay_refuses_actions_after_the_end_of_the_hand(games):
    tampered = copy.deepcopy(games)
    tampered[0]["actions"].append(PASS)
    with pytest.raises(ValueError, match=r"game 0: actions\[\d+\]: 'pass' comes after the end of the hand"):
        records.replay(tampered)


def test_replay_names_the_game_and_the_position_of_an_illegal_action(games):
    tampered = copy.deepcopy(games)
    auction_length = len(tampered[2]["auction"])
    tampered[2]["actions"][auction_length] = PASS  # the call, replaced by a pass
    with pytest.raises(ValueError, match=rf"game 2: actions\[{auction_length}\]: 'pass' is illegal for seat "
                                         r"\d in phase 'call'; legal: call "):
        records.replay(tampered)


def _tamper_auction(r):
    r["auction"][0][1] = "bid 3" if r["auction"][0][1] != "bid 3" else "bid 2"


def _tamper_call(r):
    r["call"] = "A♥" if r["call"] != "A♥" else "A♦"


def _tamper_plays(r):
    r["plays"][5], r["plays"][6] = r["plays"][6], r["plays"][5]


def _tamper_plays_extra(r):
    r["plays"].append(r["plays"][0])


def _tamper_payoffs(r):
    r["outcome"]["payoffs"][0] += 1


def _tamper_made(r):
    r["outcome"]["made"] = not r["outcome"]["made"]


def _tamper_team_points_type(r):
    r["outcome"]["team_points"] = float(r["outcome"]["team_points"])  # 61.0 is not what was recorded


@pytest.mark.parametrize("tamper, field", [
    (_tamper_auction, r"auction\[0\]"), (_tamper_call, "call"),
    (_tamper_plays, r"plays\[5\]"), (_tamper_plays_extra, "plays"),
    (_tamper_payoffs, "outcome.payoffs"), (_tamper_made, "outcome.made"),
    (_tamper_team_points_type, "outcome.team_points"),
])
def test_replay_refuses_a_record_that_says_something_else_than_its_actions(games, tamper, field):
    tampered = copy.deepcopy(games)
    tamper(tampered[3])
    with pytest.raises(ValueError, match=rf"^game 3: {field}: recorded .*, the replay gives "):
        records.replay(tampered)
    with pytest.raises(ValueError, match=rf"^game 3: {field}: "):
        records.validate(tampered)


def test_validate_names_the_first_faulty_record_in_order_across_rules(games):
    """Faults in two groups of rules: the earliest record is named, and the others counted."""
    seven_games = played_records(preset("seven"), range(3))
    batch = copy.deepcopy([seven_games[0], games[0], seven_games[1], games[1], seven_games[2]])
    del batch[4]["actions"][-1]
    batch[3]["outcome"]["caller"] = -1
    batch[2]["deal"][0] = 9
    with pytest.raises(ValueError, match=r"^game 2: deal: .* \(and 2 more faulty records\)$"):
        records.validate(batch)


def test_briscola_replay_checks_the_record_it_shows(tmp_path, games):
    tampered = copy.deepcopy(games)
    _tamper_payoffs(tampered[1])
    path = tmp_path / "games.jsonl"
    write_lines(path, [as_line(r) for r in tampered])
    assert main(["replay", str(path), "--game", "0"]) == 0
    with pytest.raises(SystemExit):
        main(["replay", str(path), "--game", "1"])


# --- 2.7: streaming, broken lines, control characters ----------------------------------------------

def test_briscola_replay_reads_the_other_games_past_a_truncated_line(tmp_path, games, capsys):
    """Blank lines are not records: record 2 is line 4 here, the truncated one; the games on either
    side still replay, and the broken one is reported by its line number."""
    lines = [as_line(r) for r in games]
    path = tmp_path / "games.jsonl"
    write_lines(path, [lines[0], lines[1], b"", lines[2][:len(lines[2]) // 2], b"\xff\xfe not text", lines[3]])
    for game in (0, 1, 4):
        assert main(["replay", str(path), "--game", str(game)]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["replay", str(path), "--game", "2"])
    assert f"{path}:4: not a JSON record" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["replay", str(path), "--game", "3"])
    assert f"{path}:5: not UTF-8 text" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"holds 5 records \(games 0\.\.4\); there is no game 5"):
        records.record_at(path, 5)


WAIT_FOR_REPLAY = 120  # seconds


def test_briscola_replay_reads_no_further_than_the_requested_game(tmp_path, games, capsys):
    """The file is a pipe whose writer sends game 0, then waits for the replay to be shown before it
    sends the rest: a reader that loads the whole file waits for all of it, and the writer gives up after
    WAIT_FOR_REPLAY (far longer than a replay takes on a slow machine), which fails the test."""
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    shown = threading.Event()
    waited_in_vain = []

    def writer():
        with open(path, "wb") as pipe:
            pipe.write(as_line(games[0]) + b"\n")
            pipe.flush()
            waited_in_vain.append(not shown.wait(timeout=WAIT_FOR_REPLAY))
            try:
                pipe.write(b"{truncated\n" * 1000)
            except BrokenPipeError:  # the reader is done and has closed its end
                pass

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert main(["replay", str(path), "--game", "0"]) == 0
    finally:
        shown.set()
        thread.join()
    assert "Auction:" in capsys.readouterr().out
    assert waited_in_vain == [False]


def test_briscola_replay_escapes_control_characters_in_names(tmp_path, games, capsys):
    crafted = copy.deepcopy(games[0])
    crafted["agents"][2] = "\x1b[2Jmallory\r\x07"
    path = tmp_path / "games.jsonl"
    write_lines(path, [as_line(crafted)])
    assert main(["replay", str(path), "--game", "0"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\r" not in out and "\x07" not in out
    assert r"player_2 (\x1b[2Jmallory\r\x07)" in out


def with_payoff_table_key(r: dict, key: str) -> dict:
    crafted = copy.deepcopy(r)
    table = crafted["rules"]["payoff_table"]
    table[key] = table.pop("caller")
    return crafted


def test_unknown_payoff_table_keys_are_named_by_repr_and_the_known_ones_listed(games):
    with pytest.raises(ValueError, match=r"^game 0: rules: unknown payoff_table key\(s\) '\\x1b\[31mcaller'; "
                                         r"allowed keys: caller, partner, defender, solo_caller, solo_defender$"):
        records.validate([with_payoff_table_key(games[0], "\x1b[31mcaller")])


@pytest.mark.parametrize("fault", ["payoff_table key", "file name, truncated line", "file name, no such game",
                                   "file name, no such file"])
def test_briscola_replay_messages_carry_no_control_characters(tmp_path, games, capsys, fault):
    """Whatever comes from the record or names the file is escaped in the error message."""
    name = "\x1b[2Jgames\r.jsonl"
    path = tmp_path / (name if fault.startswith("file name") else "games.jsonl")
    if fault == "payoff_table key":
        write_lines(path, [as_line(with_payoff_table_key(games[0], "\x1b[31mcaller"))])
    elif fault == "file name, truncated line":
        write_lines(path, [as_line(games[0])[:50]])
    elif fault == "file name, no such game":
        write_lines(path, [as_line(games[0])])
    with pytest.raises(SystemExit):
        main(["replay", str(path), "--game", "1" if fault == "file name, no such game" else "0"])
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\r" not in err
    assert r"\x1b[" in err
