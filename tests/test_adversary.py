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
    games = 64
    adversary = OnlineAdversary(games, capacity=100_000, seed=1, seats=5, tricks=8)
    with torch.no_grad():  # an adversary sure of the seat one to the viewer's left: right a quarter of the time
        adversary.net.body[-1].weight.zero_()
        adversary.net.body[-1].bias.copy_(torch.tensor([0.0, 20.0, 0.0, 0.0, 0.0]))
    # Each watched view scores log(p, at least P_FLOOR) - log(1/4): sure and right log 4, sure and wrong log(0.04).
    right, wrong = np.log(4), np.log(P_FLOOR * 4)
    env = BatchedEnv(games, preset("standard"), seed=3)
    out, agent = env.reset(), HeuristicAgent(seed=3)
    owners = np.full((games, 5), LEARNER)
    sums = np.zeros((games, 2))  # the test's own count: per game, the hand's summed scores and views
    paid_hands = 0
    while paid_hands < games:
        state = env.state
        caller, partner, player = state.caller, state.hidden.partner, state.current_player
        hidden = SPEC.view(out.obs, "partner_revealed")[:, 0] == 0
        watched = ((state.phase == Phase.PLAY) & ~state.terminated & hidden & (caller >= 0) & (partner >= 0)
                   & (partner != caller) & (player != caller) & (player != partner))
        sums[watched, 0] += np.where((partner - player)[watched] % 5 == 1, right, wrong)
        sums[watched, 1] += 1
        adversary.observe(state, out.obs, owners)
        out = env.step(agent.act(out.obs, out.mask))
        ended = np.flatnonzero(out.done)
        shaped = adversary.shaped_rewards(out.rewards, ended, out.info, 0.5)
        expected = out.rewards.copy()
        scored = ended[sums[ended, 1] > 0]
        expected[scored, out.info["partner"][scored]] -= 0.5 * sums[scored, 0] / sums[scored, 1]
        np.testing.assert_allclose(shaped, expected, atol=1e-6)  # the partner alone, by exactly this much
        assert np.all(out.info["caller"][scored] != out.info["partner"][scored])
        sums[ended] = 0
        paid_hands += scored.size
    assert paid_hands >= games


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


def same(a, b) -> bool:
    """Equal, down through dicts, lists, tensors and arrays."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, torch.Tensor):
        return torch.equal(a, b)
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b


@pytest.mark.slow
def test_a_run_with_the_adversary_logs_it_and_resumes_exactly(tmp_path):
    # 64 games a rollout: the buffer holds a minibatch after a few updates, so the adversary fits before the stop.
    extra = ["adversary_views=4096", "concealment_coef=0.5", "num_envs=64", "total_decisions=8192"]
    whole, split = whole_and_resumed_runs(train.main, TINY, tmp_path, 5, extra)
    assert all(torch.equal(whole["model"][k], split["model"][k]) for k in whole["model"])
    a, b = whole["trainer"]["adversary"], split["trainer"]["adversary"]
    assert a["filled"] >= ADVERSARY_BATCH
    assert same(a, b)  # weights, Adam's moments, its sampler, the buffer, the open hands' sums
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    events = EventAccumulator(str(next((tmp_path / "whole").rglob("events.out.tfevents.*")).parent)).Reload()
    tags = events.Tags()["scalars"]
    assert "adversary/accuracy_by_trick/trick_2" in tags
    assert "concealment/adversary_log_ratio" in tags
    assert len(events.Scalars("adversary/loss")) >= 2  # it fitted before and after the stop


@pytest.mark.parametrize("overrides, message", [
    (["adversary_views=1024", "workers=2"], "rollout workers"),
    (["adversary_views=1024", "rules=monte"], "standard table's view"),
    (["adversary_views=100"], "minibatches of 512"),
])
def test_adversary_settings_that_cannot_run_are_refused_by_name(overrides, message):
    with pytest.raises(ValueError, match=message):
        load_config(TINY, overrides)
