"""The heuristic agent's key decisions on hand-built positions, and its edge
over the random agent."""

import numpy as np

from agents import HeuristicAgent, RandomAgent
from briscola_env.actions import PASS, action_to_text, text_to_action
from briscola_env.observation import encode
from briscola_env.rules import RulesConfig
from evaluation import evaluate_pair
from support import Table, deal_with

DEALER = 4  # seat 0 speaks first and leads
CALLED_ACE_OF_CUPS = ("bid A", "pass", "pass", "pass", "pass", "call Ac")  # seat 0 calls; trump Coppe


def decide(table: Table) -> str:
    """The heuristic's action, as text, for the player to act at ``table``."""
    state = table.state
    seat = state.current_player.astype(np.int64)
    return action_to_text(HeuristicAgent(seed=0).act(encode(state, seat), state.legal_action_mask)[0])


def test_takes_a_pointed_trick_cheaply():
    # Seat 2 holds the R♦, 3♦, A♦ and trumps; on the table: C♦ and A♣, 14 points.
    hands = deal_with({0: "Cd 2b 4b 5b 6b 7b Fb 2s", 1: "Ab Ac 3c 4s 5s 6s 7s Fs",
                       2: "Rd 3d Ad 2c 4d 5d 6d 7d"})
    table = Table(RulesConfig(), hands, DEALER).act(*CALLED_ACE_OF_CUPS, "play Cd", "play Ab")
    assert decide(table) == "play R♦"  # the lowest card that wins: not the Asso, not a trump


def test_does_not_waste_a_trump_on_an_empty_trick():
    hands = deal_with({0: "2d 2b 4b 5b 6b 7b Fb 2s", 1: "4d Ac 3c 4s 5s 6s 7s Fs",
                       2: "2c 4c 5c 5d 6d 7d Rb Cb"})
    table = Table(RulesConfig(), hands, DEALER).act(*CALLED_ACE_OF_CUPS, "play 2d", "play 4d")
    assert decide(table) in ("play 5♦", "play 6♦", "play 7♦")  # a liscio, no trump, no points


def test_loads_points_onto_the_revealed_partners_winning_trick():
    hands = deal_with({0: "2d As 2s 4s 5s 6s 7s Fs", 1: "Ac 3c 4b 5b 6b 7b Fb Cb",
                       2: "4d 4c Rb 2b 3d Ad Rd Cd", 3: "5d 5c 6c 7c Fc Cc Rc 2c",
                       4: "6d Ab 3b Fd 7d 3s Rs Cs"})
    table = Table(RulesConfig(), hands, DEALER).act(*CALLED_ACE_OF_CUPS)
    table.act("play 2d", "play Ac", "play 4d", "play 5d", "play 6d")  # the partner shows himself and wins
    table.act("play 3c", "play 4c", "play 5c", "play Ab")  # he leads a high trump; seat 0 plays last
    assert table.state.partner_revealed[0] and table.state.current_player[0] == 0
    assert decide(table) == "play A♠"  # caricare: the most points that are not trump


def deepest_bid(hand: str) -> int:
    """Seat 0 is the heuristic; the others always make the cheapest bid. The
    highest bid (action id) seat 0 makes before passing: its stop."""
    table = Table(RulesConfig(), deal_with({0: hand}), DEALER)
    deepest = PASS
    while table.state.phase[0] == 0:
        if table.state.current_player[0] == 0:
            action = text_to_action(decide(table))
            deepest = max(deepest, action)
            if action == PASS:
                break
        else:
            bids = [a for a in table.legal if a != PASS]
            action = bids[0] if bids else PASS
        table.act(action_to_text(action))
    return deepest


def test_bids_deeper_with_a_stronger_hand():
    weak, medium, strong = "2d 4d 2b 4b 5b 2s 4s 5s", "Ac 3c 4c 2d 4d 2b 4b 2s", "Ac 3c Rc Cc Fc 7c Ad 3d"
    depths = [deepest_bid(hand) for hand in (weak, medium, strong)]
    assert depths[0] == PASS < depths[1] < depths[2]
    assert depths[2] >= text_to_action("bid 62")  # only a strong hand goes on into points


def test_calls_the_strongest_missing_card_of_its_best_suit():
    hands = deal_with({0: "3c Rc Cc Fc 7c 2d 4b 2s"})
    table = Table(RulesConfig(bidding="points_only"), hands, DEALER).act("bid 61", "pass", "pass", "pass", "pass")
    assert decide(table) == "call A♥"


def test_beats_the_random_agent_clearly():
    result = evaluate_pair(HeuristicAgent(), RandomAgent(), 150, seed=1)
    assert result.edge_a > 0.5 and result.edge_a_ci[0] > 0
    assert result.edge_b < 0 and result.edge_b_ci[1] < 0


# --- the handicap (noise) -----------------------------------------------------------------------

# sha256 of the actions of 200 mixed heuristic/random games (below), as the heuristic played them before
# it had a noise option: its default must play them bit for bit (a deliberate change of its rules updates it).
TODAYS_PLAY = "11c2f0e4cfe5a5c43a5c114ab0bfb12fb71f2f4fca216ade5bec011c3eb00715"


def mixed_games(heuristic: HeuristicAgent) -> np.ndarray:
    from agents.play import play_games

    layout = np.random.default_rng(7).integers(0, 2, (200, 5))
    _, actions = play_games([heuristic, RandomAgent(seed=4)], layout, np.arange(200) * 7919 + 11)
    return actions


def test_default_noise_plays_as_before_and_draws_nothing():
    import hashlib

    default, explicit = HeuristicAgent(seed=3), HeuristicAgent(seed=3, noise=0.0)
    untouched = np.random.default_rng(3).bit_generator.state
    actions = mixed_games(default)
    assert hashlib.sha256(actions.tobytes()).hexdigest() == TODAYS_PLAY
    assert np.array_equal(mixed_games(explicit), actions)
    assert default.rng.bit_generator.state == untouched  # no number drawn: the generator is as seeded


def test_noise_replaces_that_share_of_decisions_by_legal_random_ones():
    from briscola_env import BatchedEnv

    out = BatchedEnv(4000, auto_reset=False).reset(seed=0)  # opening bids: many legal actions each
    rules_play = HeuristicAgent().act(out.obs, out.mask)
    noisy = HeuristicAgent(seed=1, noise=0.5).act(out.obs, out.mask)
    assert out.mask[np.arange(len(noisy)), noisy].all()
    changed = (noisy != rules_play).mean()
    # Half the decisions are random, and a random one may still be the rules' choice.
    legal = out.mask.sum(axis=1)
    expected = 0.5 * (1 - 1 / legal).mean()
    assert abs(changed - expected) < 0.03, (changed, expected)
    assert np.array_equal(HeuristicAgent(seed=1, noise=0.5).act(out.obs, out.mask), noisy)  # seeded
    assert not np.array_equal(HeuristicAgent(seed=2, noise=0.5).act(out.obs, out.mask), noisy)
    always = HeuristicAgent(seed=1, noise=1.0).act(out.obs, out.mask)
    assert abs((always != rules_play).mean() - 2 * expected) < 0.03


def test_noise_through_a_spec_and_out_of_range_refused():
    import pytest

    from agents import make_agent

    assert make_agent("heuristic:noise=0.5").noise == 0.5
    for bad in ("1.5", "-0.1"):
        with pytest.raises(ValueError, match=r"noise must be a finite number in 0\.\.1"):
            make_agent(f"heuristic:noise={bad}")


# --- the auction's aggressiveness (bid) ------------------------------------------------------------

BID_LEVELS = (-1.0, -0.5, 0.0, 0.5, 1.0)


def auction_views(n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The views of every auction decision of ``n`` hands bid by default heuristics (opening bids and
    later ones, above standing bids of every depth), with their masks."""
    from briscola_env import BatchedEnv
    from briscola_env.engine import Phase

    env = BatchedEnv(n, auto_reset=False)
    out, heuristic, views = env.reset(seed=seed), HeuristicAgent(bid=1), []
    while (env.state.phase == Phase.AUCTION).any():
        bidding = env.state.phase == Phase.AUCTION
        views.append((out.obs[bidding], out.mask[bidding]))
        out = env.step(np.where(bidding, heuristic.act(out.obs, out.mask), 0), active=bidding)
    return np.concatenate([v[0] for v in views]), np.concatenate([v[1] for v in views])


def test_bid_zero_plays_exactly_as_the_heuristic_without_the_option():
    import hashlib

    assert hashlib.sha256(mixed_games(HeuristicAgent(seed=3, bid=0.0)).tobytes()).hexdigest() == TODAYS_PLAY
    obs, mask = auction_views()
    assert np.array_equal(HeuristicAgent(bid=0).act(obs, mask), HeuristicAgent().act(obs, mask))


def test_bid_moves_each_auction_threshold_as_documented():
    def thresholds(agent: HeuristicAgent) -> tuple:
        return agent.bid_base, agent.points_from, agent.solo_from, agent.max_points

    assert thresholds(HeuristicAgent(bid=-1)) == (38, 85, 100, 90)
    assert thresholds(HeuristicAgent(bid=1)) == (22, 65, 80, 100)
    # The shifts apply to the thresholds given; max_points stops at 120.
    assert thresholds(HeuristicAgent(bid=0.5, bid_base=25, max_points=118)) == (21, 70, 85, 120)


def test_a_higher_bid_level_never_passes_where_a_lower_one_bids():
    obs, mask = auction_views()
    actions = np.stack([HeuristicAgent(bid=level).act(obs, mask) for level in BID_LEVELS])
    bids = actions != PASS
    for lower in range(len(BID_LEVELS) - 1):
        higher = lower + 1
        assert not (bids[lower] & ~bids[higher]).any()
        # A bid is always the cheapest legal one: where both bid, they bid the same.
        assert np.array_equal(actions[higher][bids[lower]], actions[lower][bids[lower]])
    shares = bids.mean(axis=1)
    assert (np.diff(shares) > 0.03).all(), shares  # each level clearly more eager than the one below
    assert (actions[-1] >= text_to_action("bid 62")).any()  # the most aggressive goes on into points


def test_bid_through_a_spec_and_out_of_range_refused():
    import pytest

    from agents import make_agent

    assert make_agent("heuristic:bid=-0.5").bid == -0.5
    for bad in ("1.5", "-1.01", "2"):
        with pytest.raises(ValueError, match=r"heuristic: bid must be a finite number in -1\.\.1; got"):
            make_agent(f"heuristic:bid={bad}")
    with pytest.raises(ValueError, match=r"option bid='nan' of HeuristicAgent: expected a finite number"):
        make_agent("heuristic:bid=nan")
    with pytest.raises(ValueError, match=r"bid must be a finite number in -1\.\.1; got True"):
        HeuristicAgent(bid=True)
