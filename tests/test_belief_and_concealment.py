"""The partner-belief model (agents.belief) and the concealment metric (evaluation.concealment)."""

import numpy as np
import pytest

from agents import HeuristicAgent
from agents.belief import BeliefModel, collect_views, save_belief, train_belief
from briscola_env import worlds as W
from briscola_env.actions import PLAY_OFFSET
from briscola_env.cards import NUM_SEATS, NUM_TRICKS
from briscola_env.engine import Role
from briscola_env.observation import SPEC, encode
from briscola_env.rules import RulesConfig
from evaluation.concealment import concealment, concealment_table, measure, write


def heuristic_views(games=300, seed=0):
    layout = np.zeros((games, NUM_SEATS), dtype=np.int64)
    return collect_views([HeuristicAgent()], layout, np.arange(seed, seed + games))


def test_the_belief_reads_only_the_players_view_so_hidden_cards_and_partner_cannot_move_it():
    views = heuristic_views(60)
    net = train_belief(views, hidden=(32,), epochs=1)
    assert net.body[0].in_features == SPEC.size  # the player's view, no privileged section
    model, rules = BeliefModel(net), RulesConfig()
    hidden = np.flatnonzero(~views.revealed)[::7]
    obs = views.obs[hidden]
    public = W.decode(obs, rules)
    deals = W.sample_deals(public, 8, np.random.default_rng(0))
    moved = 0
    for k in range(deals.shape[1]):
        other = W.replay(public, deals[:, k])  # another deal and partner, consistent with the view
        moved += int((other.hidden.partner != views.partner[hidden]).sum())
        again = encode(other, np.zeros(len(obs), dtype=np.int64))
        assert np.array_equal(again, obs)
        assert np.array_equal(model.probabilities(again), model.probabilities(obs))
    assert moved > 0  # the partner did move between worlds: the check has teeth


def uniform_over_others(obs):
    p = np.full((len(obs), NUM_SEATS), 0.25)
    p[:, 0] = 0
    return p


def test_a_uniform_belief_scores_exactly_chance_on_hand_made_arithmetic():
    views = heuristic_views(200)
    result = measure(views, uniform_over_others(views.obs), "heuristic", 200, 0.5)
    for viewer, role in (("caller", Role.CALLER), ("defender", Role.DEFENDER)):
        for trick in range(NUM_TRICKS):
            now = (views.role == role) & (views.trick == trick) & ~views.revealed
            if not now.any():
                assert result.accuracy[viewer][trick] is None
                continue
            others = views.partner[now] > 0  # a solo caller's own seat (0) is never guessed
            assert result.accuracy[viewer][trick] == pytest.approx(0.25 * others.mean())
            assert result.views[viewer][trick] == now.sum()
            if others.all():
                assert result.log_loss[viewer][trick] == pytest.approx(np.log(4))
    assert sum(result.called_trick) == pytest.approx(1.0)


class RevealAtOnce(HeuristicAgent):
    """The heuristic, except that the partner plays the called card as soon as he can."""

    def act(self, obs, mask):
        actions = super().act(obs, mask)
        called = SPEC.view(obs, "called_card").argmax(axis=1)
        holds = SPEC.view(obs, "i_hold_called")[:, 0] == 1
        caller = SPEC.view(obs, "caller")[:, 0] == 1
        can = mask[np.arange(len(obs)), PLAY_OFFSET + called] & holds & ~caller
        return np.where(can, PLAY_OFFSET + called, actions)


def test_a_partner_who_plays_the_called_card_at_once_is_identified_at_trick_1():
    games = 300
    views = collect_views([RevealAtOnce()], np.zeros((games, NUM_SEATS), dtype=np.int64), np.arange(games))
    partnered = views.select(views.with_partner[views.game])  # a solo caller has no partner to find
    result = measure(partnered, uniform_over_others(partnered.obs), "reveal at once", games, 0.5)
    assert result.called_trick[0] == 1.0 and sum(result.called_trick[1:]) == 0
    for viewer in ("caller", "defender"):
        assert result.views[viewer][0] > 0
        assert all(n == 0 for n in result.views[viewer][1:])  # nobody is in the dark after trick 1
        assert all(share == 1.0 for share in result.identified[viewer][1:])
    heuristic = concealment(uniform_over_others, HeuristicAgent(), "heuristic", 150, seed=3)
    assert heuristic.called_trick[0] < 0.5  # the heuristic's partner keeps the card back


def test_belief_models_train_save_load_and_report(tmp_path):
    views = heuristic_views(200)
    net = train_belief(views, hidden=(64,), epochs=2, seed=1)
    model = BeliefModel(net)
    save_belief(tmp_path / "belief.pt", net)
    loaded = BeliefModel.load(tmp_path / "belief.pt")
    assert np.allclose(loaded.probabilities(views.obs[:50]), model.probabilities(views.obs[:50]))
    with pytest.raises(ValueError, match="no belief model"):
        BeliefModel.load(tmp_path / "missing.pt")
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="not a readable belief model"):
        BeliefModel.load(tmp_path / "junk.pt")
    result = concealment(model.probabilities, HeuristicAgent(), "heuristic", 100, seed=1)
    table = concealment_table([result])
    assert "| heuristic | caller |" in table and "trick 8" in table
    write([result], tmp_path / "report")
    assert (tmp_path / "report" / "concealment.png").stat().st_size > 1000
    with pytest.raises(ValueError, match="no views"):
        train_belief(views.select(np.zeros(len(views), dtype=bool)))


def test_belief_and_concealment_commands(tmp_path, capsys):
    from briscola_cli.main import main

    main(["belief", "heuristic", "random", "--games", "60", "--epochs", "1", "--out", str(tmp_path / "b.pt")])
    assert "held-out accuracy before the reveal" in capsys.readouterr().out
    main(["concealment", "heuristic", "random", "--belief", str(tmp_path / "b.pt"), "--games", "30",
          "--out", str(tmp_path / "c")])
    out = capsys.readouterr().out
    assert "| heuristic | defender |" in out and "| random | caller |" in out
    assert (tmp_path / "c" / "concealment.png").exists()
    with pytest.raises(SystemExit):
        main(["concealment", "heuristic", "--belief", str(tmp_path / "missing.pt")])
