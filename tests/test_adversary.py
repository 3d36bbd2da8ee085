"""The online adversary (training.adversary): it reads the defenders' own views in card play before the
reveal, in hands whose partner is the learner; it learns to name the partner; the concealment reward reaches
the partner's payoff alone, with the documented sign; a run with it resumes exactly."""

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train  # noqa: E402
from agents import HeuristicAgent  # noqa: E402
from briscola_env import BatchedEnv, preset  # noqa: E402
from briscola_env.engine import Phase  # noqa: E402
from briscola_env.observation import SPEC  # noqa: E402
from training.adversary import ADVERSARY_BATCH, P_FLOOR, OnlineAdversary  # noqa: E402
from training.config import load_config  # noqa: E402
from training.league import LEARNER  # noqa: E402
from support import whole_and_resumed_runs  # noqa: E402

TINY = str(ROOT / "configs" / "tiny.yaml")


def heuristic_games(adversary, games=64, hands=1, learner_seats=None, seed=3):
    """Play ``hands`` hands of each of ``games`` games with the heuristic at every seat, the adversary watching;
    ``learner_seats`` (games x 5 bool): which seats count as the learner's (default: all). Returns the
    ``(state, obs)`` of every step and the shaped and plain rewards of the hands that ended."""
    env = BatchedEnv(games, preset("standard"), seed=seed)
    out, agent = env.reset(), HeuristicAgent(seed=seed)
    owners = np.where(np.ones((games, 5), bool) if learner_seats is None else learner_seats, LEARNER, LEARNER + 1)
    seen, paid, ended_hands = [], [], 0
    while ended_hands < games * hands:
        seen.append((env.state.phase.copy(), env.state.current_player.copy(), env.state.caller.copy(),
                     env.state.hidden.partner.copy(), out.obs.copy()))
        adversary.observe(env.state, out.obs, owners)
        out = env.step(agent.act(out.obs, out.mask))
        ended = np.flatnonzero(out.done)
        if ended.size:
            paid.append((out.rewards[ended], adversary.shaped_rewards(out.rewards, ended, out.info, 1.0)[ended],
                         out.info["caller"][ended], out.info["partner"][ended]))
            ended_hands += ended.size
    return seen, paid


def test_the_adversary_keeps_exactly_the_defenders_views_before_the_reveal():
    adversary = OnlineAdversary(64, capacity=100_000, seed=1, seats=5, tricks=8)
    seen, _ = heuristic_games(adversary)
    expected = []
    for phase, player, caller, partner, obs in seen:
        hidden = SPEC.view(obs, "partner_revealed")[:, 0] == 0
        rows = np.flatnonzero((phase == Phase.PLAY) & hidden & (caller >= 0) & (partner >= 0) & (partner != caller)
                              & (player != caller) & (player != partner))
        expected.extend(obs[rows])
    assert adversary.filled == len(expected) > 0
    assert np.array_equal(adversary.obs[:adversary.filled], np.array(expected))  # the defenders' own views
    assert set(np.unique(adversary.target[:adversary.filled])) <= {1, 2, 3, 4}  # never the viewer's own seat


def test_hands_whose_partner_is_not_the_learner_are_neither_watched_nor_paid():
    adversary = OnlineAdversary(64, capacity=100_000, seed=1, seats=5, tricks=8)
    _, paid = heuristic_games(adversary, learner_seats=np.zeros((64, 5), bool))
    assert adversary.filled == 0
    assert all(np.array_equal(plain, shaped) for plain, shaped, *_ in paid)


def test_the_concealment_reward_is_on_the_partner_alone_with_the_documented_sign():
    adversary = OnlineAdversary(64, capacity=100_000, seed=1, seats=5, tricks=8)
    with torch.no_grad():  # an adversary sure of the seat one to the viewer's left: right a quarter of the time
        adversary.net.body[-1].weight.zero_()
        adversary.net.body[-1].bias.copy_(torch.tensor([0.0, 20.0, 0.0, 0.0, 0.0]))
    _, paid = heuristic_games(adversary)
    changed_any = False
    for plain, shaped, caller, partner in paid:
        difference = shaped - plain
        rows = np.arange(len(plain))
        others = np.ones_like(difference, dtype=bool)
        others[rows, np.maximum(partner, 0)] = False
        assert not difference[others].any()  # nobody but the partner is paid
        with_partner = (caller >= 0) & (partner != caller)
        assert not difference[~with_partner].any()
        # Each view scores log(p or P_FLOOR) - log(1/4): sure and right +log 4, sure and wrong log(0.04).
        gained = -difference[rows, np.maximum(partner, 0)][with_partner]
        assert np.all((gained >= np.log(P_FLOOR * 4) - 1e-6) & (gained <= np.log(4) + 1e-6))
        changed_any |= bool(gained.any())
    assert changed_any


def test_the_adversary_learns_to_name_the_partner():
    adversary = OnlineAdversary(256, capacity=200_000, seed=2, seats=5, tricks=8)
    heuristic_games(adversary, games=256, hands=4)
    obs, target = adversary.obs[:adversary.filled], adversary.target[:adversary.filled]

    def accuracy():
        with torch.no_grad():
            return float((adversary.net(torch.from_numpy(obs)).argmax(1).numpy() == target).mean())

    before = accuracy()
    for _ in range(30):
        loss = adversary.fit()["adversary/loss"]
    assert np.isfinite(loss)
    assert adversary.filled > 20 * ADVERSARY_BATCH
    assert accuracy() > max(before, 0.25) + 0.1  # better than chance among the four others, by far


@pytest.mark.slow
def test_a_run_with_the_adversary_logs_it_and_resumes_exactly(tmp_path):
    extra = ["adversary_views=4096", "concealment_coef=0.5"]
    whole, split = whole_and_resumed_runs(train.main, TINY, tmp_path, 5, extra)
    assert all(torch.equal(whole["model"][k], split["model"][k]) for k in whole["model"])
    a, b = whole["trainer"]["adversary"], split["trainer"]["adversary"]
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    events = EventAccumulator(str(next((tmp_path / "whole").rglob("events.out.tfevents.*")).parent)).Reload()
    tags = events.Tags()["scalars"]
    assert "adversary/accuracy_by_trick/trick_2" in tags
    assert "concealment/adversary_log_ratio" in tags


@pytest.mark.parametrize("overrides, message", [
    (["adversary_views=1024", "workers=2"], "rollout workers"),
    (["adversary_views=1024", "rules=monte"], "standard table's view"),
])
def test_adversary_settings_that_cannot_run_are_refused_by_name(overrides, message):
    with pytest.raises(ValueError, match=message):
        load_config(TINY, overrides)
