"""The hybrid agent (agents/hybrid.py, spec ``hybrid:auction=SPEC,play=SPEC``): each phase to its part,
both parts reseeded from the hybrid's seed, clear errors for bad specs, and the table edge's exact
antisymmetry and zero with a hybrid at the table."""

import numpy as np
import pytest

from agents import Agent, HeuristicAgent, HybridAgent, PIMCAgent, RandomAgent, make_agent
from agents.play import play_games
from briscola_env import BatchedEnv, preset
from briscola_env.engine import Phase
from briscola_env.observation import observation_spec
from evaluation.duplicate import evaluate_table

AUCTION_THEN_PLAY = "hybrid:auction=heuristic,play=random"


def full_hands(n: int, seed: int, rules=None):
    """Every step of ``n`` hands played to the end by default heuristics: ``(obs, mask)`` of the games
    still live at each step (a mix of phases: the auctions end at different steps)."""
    env = BatchedEnv(n, rules, auto_reset=False)
    out, heuristic = env.reset(seed=seed), HeuristicAgent(rules)
    while not env.state.terminated.all():
        live = np.flatnonzero(~env.state.terminated)
        yield out.obs[live], out.mask[live]
        actions = np.zeros(n, dtype=np.int64)
        actions[live] = heuristic.act(out.obs[live], out.mask[live])
        out = env.step(actions)


def phases(obs: np.ndarray, rules=None) -> np.ndarray:
    return observation_spec(rules).view(obs, "phase").argmax(axis=1)


def derived_seeds(seed: int) -> tuple[int, int]:
    """The seeds a hybrid reset with ``seed`` gives its auction part and its play part."""
    rng = np.random.default_rng(seed)
    return int(rng.integers(2**32)), int(rng.integers(2**32))


class Recorder(Agent):
    """The heuristic's play, recording the phases of the views it was asked about (and each batch's size)."""

    def __init__(self, rules=None, seed=None):
        self.inner, self.rules, self.seen, self.sizes = HeuristicAgent(rules), rules, [], []
        super().__init__(seed)

    def act(self, obs, mask):
        self.seen.extend(phases(obs, self.rules).tolist())
        self.sizes.append(len(obs))
        return self.inner.act(obs, mask)


@pytest.mark.parametrize("rules", [None, preset("monte")])
def test_a_hybrid_of_one_agent_twice_plays_exactly_as_that_agent(rules):
    hybrid, heuristic = make_agent("hybrid:auction=heuristic,play=heuristic", rules=rules), HeuristicAgent(rules)
    steps = 0
    for obs, mask in full_hands(64, seed=2, rules=rules):
        assert np.array_equal(hybrid.act(obs, mask), heuristic.act(obs, mask))
        steps += 1
    assert steps > 30
    seats = np.zeros((40, (rules or preset("standard")).table_shape.seats), dtype=np.int64)
    _, alone = play_games([heuristic], seats, np.arange(40) + 9, rules)
    _, hybrid_play = play_games([hybrid], seats, np.arange(40) + 9, rules)
    assert np.array_equal(alone, hybrid_play)


def test_the_auction_part_bids_and_calls_and_the_play_part_plays():
    hybrid, heuristic = make_agent(AUCTION_THEN_PLAY, seed=11), HeuristicAgent()
    random_play = RandomAgent(seed=derived_seeds(11)[1])  # what the hybrid's play part was seeded with
    bid_or_call = played = differ = 0
    for obs, mask in full_hands(64, seed=4):
        actions = hybrid.act(obs, mask)
        assert mask[np.arange(len(obs)), actions].all()
        auction = np.isin(phases(obs), (Phase.AUCTION, Phase.CALL))
        assert np.array_equal(actions[auction], heuristic.act(obs[auction], mask[auction]))
        if (~auction).any():
            assert np.array_equal(actions[~auction], random_play.act(obs[~auction], mask[~auction]))
            differ += (actions[~auction] != heuristic.act(obs[~auction], mask[~auction])).sum()
        bid_or_call, played = bid_or_call + auction.sum(), played + (~auction).sum()
    assert bid_or_call > 0 and played > 0 and differ > 0


def test_a_defend_part_plays_the_defenders_cards_and_the_play_part_the_callers_side():
    auction, play, defend = Recorder(), Recorder(), Recorder()
    hybrid = HybridAgent(auction=auction, play=play, defend=defend, seed=0)
    seen_as = {}
    for obs, mask in full_hands(64, seed=3):
        before = {part: len(part.seen) for part in (play, defend)}
        hybrid.act(obs, mask)
        for part in (play, defend):
            seen_as.setdefault(part, 0)
            seen_as[part] += len(part.seen) - before[part]
        playing = phases(obs) == Phase.PLAY
        spec = observation_spec()
        caller = spec.view(obs, "caller")[:, 0] == 1
        holder = spec.view(obs, "i_hold_called")[:, 0] == 1
        assert hybrid.defending(obs[playing]).tolist() == (~caller & ~holder)[playing].tolist()
    assert set(defend.seen) == {Phase.PLAY} and set(play.seen) == {Phase.PLAY}
    assert seen_as[defend] > seen_as[play] > 0  # three defenders to a caller and a partner
    assert hybrid.parts == (auction, play, defend)


def test_a_defend_part_playing_as_the_play_part_changes_nothing():
    plain = make_agent("hybrid:auction=heuristic,play=random", seed=7)
    with_defence = make_agent("hybrid:auction=heuristic,play=random,defend=heuristic", seed=7)
    seats = np.zeros((30, 5), dtype=np.int64)
    _, heuristic_play = play_games([make_agent("heuristic")], seats, np.arange(30) + 1)
    _, defended = play_games([make_agent("hybrid:auction=heuristic,play=heuristic,defend=heuristic")], seats,
                             np.arange(30) + 1)
    assert np.array_equal(heuristic_play, defended)
    obs, mask = next(full_hands(50, seed=1))
    assert np.array_equal(plain.act(obs, mask), with_defence.act(obs, mask))  # the same seeds for auction and play


def test_in_the_monte_variant_the_discards_go_to_the_play_part():
    monte = preset("monte")
    auction, play = Recorder(monte), Recorder(monte)
    hybrid = HybridAgent(auction=auction, play=play, rules=monte, seed=0)
    play_games([hybrid], np.zeros((30, 5), dtype=np.int64), np.arange(30) + 1, monte)
    assert set(auction.seen) == {Phase.AUCTION, Phase.CALL}
    assert set(play.seen) == {Phase.PLAY, Phase.DISCARD}
    assert min(auction.sizes + play.sizes) > 0  # a part is not asked about an empty batch


def test_reset_reseeds_both_parts_from_the_hybrid_s_seed():
    obs, mask = next(full_hands(200, seed=1))  # opening bids: many legal actions each
    first = make_agent("hybrid:auction=random,play=random", seed=5)
    actions = first.act(obs, mask)
    assert np.array_equal(make_agent("hybrid:auction=random,play=random", seed=5).act(obs, mask), actions)
    assert np.array_equal(RandomAgent(seed=derived_seeds(5)[0]).act(obs, mask), actions)
    first.reset(5)
    assert np.array_equal(first.act(obs, mask), actions)
    first.reset(6)
    assert not np.array_equal(first.act(obs, mask), actions)


def test_the_table_edge_with_a_hybrid_is_exactly_antisymmetric():
    hybrid = make_agent(AUCTION_THEN_PLAY)  # draws random numbers: the evaluation reseeds it by role
    ab = evaluate_table(hybrid, HeuristicAgent(), 4, seed=3)
    ba = evaluate_table(HeuristicAgent(), make_agent(AUCTION_THEN_PLAY), 4, seed=3)
    assert ab.table_edge != 0 and ab.table_edge == -ba.table_edge
    assert np.array_equal(ab.table.per_deal, -ba.table.per_deal)
    assert ab.edge_a == ba.edge_b and ab.edge_b == ba.edge_a


@pytest.mark.parametrize("a, b", [("hybrid:auction=heuristic,play=heuristic", "heuristic"),
                                  ("hybrid:auction=random,play=random", "hybrid:auction=random,play=random")])
def test_a_hybrid_against_an_agent_that_plays_as_it_does_scores_exactly_zero(a, b):
    """At every table; the one-against-four edges of two stochastic agents need not be 0, as the lone
    agent is seeded by its role there and draws other numbers than the one it replaced."""
    result = evaluate_table(make_agent(a), make_agent(b), 3, seed=1)
    assert result.table_edge == 0 and result.table_edge_ci == (0.0, 0.0) and not result.table.per_deal.any()


@pytest.mark.parametrize("spec, words", [
    ("hybrid:play=heuristic", r"HybridAgent needs option auction= \(an agent spec"),
    ("hybrid:auction=heuristic", r"HybridAgent needs option play= \(an agent spec"),
    ("hybrid", r"HybridAgent needs options auction= .*, play= "),
    ("hybrid:auction=nonsense,play=heuristic", r"unknown agent spec 'nonsense': use one of .*hybrid"),
    ("hybrid:auction=[heuristic:bid=3],play=random", r"heuristic: bid must be a finite number in -1\.\.1; got 3"),
    ("hybrid:auction=heuristic,play=random,greedy=true", r"HybridAgent has no option 'greedy'.*in brackets"),
    ("hybrid:auction=[heuristic,play=random", r"a '\[' without its '\]'"),
])
def test_bad_hybrid_specs_are_one_line_errors(spec, words):
    with pytest.raises(ValueError, match=words) as caught:
        make_agent(spec)
    assert "\n" not in str(caught.value) and str(caught.value).startswith(f"agent spec {spec!r}")


def test_nested_specs_rules_reads_history_and_repr():
    monte = preset("monte")
    nested = make_agent("hybrid:auction=[heuristic:bid=1,take_from=5],play=[hybrid:auction=random,play=heuristic]",
                        rules=monte)
    assert (nested.auction.bid, nested.auction.take_from) == (1.0, 5)
    assert isinstance(nested.play, HybridAgent) and nested.play.play.rules == monte and nested.auction.rules == monte
    assert repr(nested) == ("HybridAgent(auction=HeuristicAgent(), play=HybridAgent(auction=RandomAgent(), "
                            "play=HeuristicAgent()))")
    assert nested.reads_history is False  # neither part reads it
    assert HybridAgent(auction="heuristic", play=Recorder()).reads_history is True  # an Agent reads it by default
    assert isinstance(make_agent("hybrid:auction=[pimc:worlds=2],play=heuristic").auction, PIMCAgent)


def test_pimc_takes_a_hybrid_rollout_without_a_search_in_it():
    searcher = make_agent("pimc:worlds=2,rollout=[hybrid:auction=heuristic,play=random]", seed=0)
    assert isinstance(searcher.rollout, HybridAgent)
    obs, mask = next(full_hands(3, seed=7))
    actions = searcher.act(obs, mask)
    assert mask[np.arange(3), actions].all()
    # A rollout's hybrid builds its parts from the rollout agents' table, which has no search.
    with pytest.raises(ValueError, match=r"unknown agent spec 'pimc:worlds=2': use one of random, heuristic, hybrid "):
        make_agent("pimc:worlds=2,rollout=[hybrid:auction=[pimc:worlds=2],play=random]")
    searching = HybridAgent(auction=PIMCAgent(worlds=2), play="random")
    with pytest.raises(ValueError, match="cannot itself be pimc, nor a hybrid with a pimc part"):
        PIMCAgent(worlds=2, rollout=HybridAgent(auction="heuristic", play=searching))


def test_a_hybrid_built_directly_takes_part_specs_without_a_search():
    direct = HybridAgent(auction="heuristic:bid=-1", play="hybrid:auction=random,play=heuristic")
    assert direct.auction.bid == -1 and isinstance(direct.play, HybridAgent)
    with pytest.raises(ValueError, match=r"unknown agent spec 'pimc': use one of random, heuristic, hybrid "):
        HybridAgent(auction="pimc", play="heuristic")
