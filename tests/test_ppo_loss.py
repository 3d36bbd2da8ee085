"""ppo_loss on numbers worked out by hand. It returns what a gradient step minimises:
``policy`` is the clipped surrogate objective negated, the mean of
max(-A * ratio, -A * clip(ratio, 1 - clip_coef, 1 + clip_coef)); ``value`` is half the mean squared
error of the value (with clip_vloss, the larger of the new value's error and that of the new value
kept within clip_coef of the old one); ``entropy`` is the mean entropy over the legal actions; and
``total = policy - ent_coef * entropy + vf_coef * value``."""

import math
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from training.config import Config  # noqa: E402
from training.trainer import ppo_loss  # noqa: E402
from agents.ppo import ILLEGAL_LOGIT  # noqa: E402
from briscola_env.actions import NUM_ACTIONS  # noqa: E402

PLAIN = dict(clip_coef=0.2, clip_vloss=False, norm_adv=False, ent_coef=0.0, vf_coef=0.0)
"""The loss with no advantage normalisation, no value clipping, and only the policy in the total."""


def policy_of(probabilities: list[dict[int, float]]) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probabilities over the 151 actions, as the network gives them (illegal ones near -1e9),
    and the legal mask, from each row's {action: probability}."""
    logits = torch.full((len(probabilities), NUM_ACTIONS), ILLEGAL_LOGIT)
    for row, legal in enumerate(probabilities):
        for action, p in legal.items():
            logits[row, action] = math.log(p)
    return torch.log_softmax(logits, dim=1), logits > ILLEGAL_LOGIT


def loss(ratio, advantages, value=(0.0,), old_value=(0.0,), returns=(0.0,), probabilities=({0: 1.0},), **config):
    """ppo_loss on plain lists; ``ratio`` comes back as a leaf tensor, for its gradient."""
    ratio = torch.tensor(ratio, requires_grad=True)
    value = torch.tensor(value, requires_grad=True)
    log_probs, legal = policy_of(list(probabilities))
    result = ppo_loss(ratio, torch.tensor(advantages), value, torch.tensor(old_value), torch.tensor(returns),
                            log_probs, legal, Config(**{**PLAIN, **config}))
    return result, ratio, value


def test_a_ratio_past_the_clip_that_the_advantage_favours_earns_only_the_clipped_term_and_no_gradient():
    # Ratio 2.0, clip 0.2, advantage +3: max(-3 * 2.0, -3 * 1.2) = -3.6 = -1.2 * A.
    result, ratio, _ = loss([2.0], [3.0])
    assert result.policy.item() == pytest.approx(-1.2 * 3.0)
    result.total.backward()
    assert ratio.grad.item() == 0.0
    # Ratio 0.5, advantage -2 (the ratio pushed down, as the negative advantage asks): max(1.0, 1.6) = 1.6.
    result, ratio, _ = loss([0.5], [-2.0])
    assert result.policy.item() == pytest.approx(-0.8 * -2.0)
    result.total.backward()
    assert ratio.grad.item() == 0.0


def test_a_ratio_past_the_clip_against_the_advantage_keeps_the_unclipped_term_and_its_gradient():
    # Ratio 0.5, advantage +3: max(-1.5, -2.4) = -1.5, the pessimistic, unclipped term; d/d ratio = -A.
    result, ratio, _ = loss([0.5], [3.0])
    assert result.policy.item() == pytest.approx(-1.5)
    result.total.backward()
    assert ratio.grad.item() == pytest.approx(-3.0)
    # Ratio 2.0, advantage -2: max(4.0, 2.4) = 4.0; d/d ratio = -A = 2.
    result, ratio, _ = loss([2.0], [-2.0])
    assert result.policy.item() == pytest.approx(4.0)
    result.total.backward()
    assert ratio.grad.item() == pytest.approx(2.0)


def test_the_policy_loss_is_the_mean_over_the_minibatch():
    # Rows of the two tests above, and one inside the clip (ratio 1.1, A = 1: -1.1).
    result, ratio, _ = loss([2.0, 0.5, 0.5, 2.0, 1.1], [3.0, -2.0, 3.0, -2.0, 1.0])
    assert result.policy.item() == pytest.approx((-3.6 + 1.6 - 1.5 + 4.0 - 1.1) / 5)
    result.total.backward()
    assert ratio.grad.tolist() == pytest.approx([0.0, 0.0, -3.0 / 5, 2.0 / 5, -1.0 / 5])


def test_norm_adv_normalises_the_advantages_within_the_minibatch_but_not_a_single_one():
    # Advantages [1, 3]: mean 2, standard deviation (n - 1) sqrt(2): normalised to -+1/sqrt(2).
    advantages = torch.tensor([1.0, 3.0])
    log_probs, legal = policy_of([{0: 1.0}] * 2)
    result = ppo_loss(torch.tensor([1.0, 1.1]), advantages, torch.zeros(2), torch.zeros(2), torch.zeros(2),
                            log_probs, legal, Config(**{**PLAIN, "norm_adv": True}))
    half = 1 / math.sqrt(2)
    assert result.policy.item() == pytest.approx((half * 1.0 - half * 1.1) / 2, abs=1e-6)
    assert advantages.tolist() == [1.0, 3.0]  # pure: what it is given is left as it was
    result, _, _ = loss([1.0], [5.0], norm_adv=True)  # one decision: no spread to normalise by
    assert result.policy.item() == pytest.approx(-5.0)


def test_the_value_loss_is_half_the_mean_squared_error():
    result, _, value = loss([1.0], [0.0], value=[1.0, 2.0], old_value=[0.0, 0.0], returns=[0.0, 0.0])
    assert result.value.item() == pytest.approx(0.5 * (1.0 + 4.0) / 2)
    result.value.backward()
    assert value.grad.tolist() == pytest.approx([0.5, 1.0])  # (value - return) / n


def test_clip_vloss_takes_the_larger_of_the_unclipped_and_the_clipped_error():
    # Row 1: value 1.0 from 0.5, return 0: unclipped 1.0, clipped (0.5 + 0.2 = 0.7) 0.49: 1.0.
    # Row 2: value 2.0 from 1.0, return 2: unclipped 0.0, clipped (1.0 + 0.2 = 1.2) 0.64: 0.64.
    result, _, value = loss([1.0], [0.0], value=[1.0, 2.0], old_value=[0.5, 1.0], returns=[0.0, 2.0],
                            clip_vloss=True)
    assert result.value.item() == pytest.approx(0.5 * (1.0 + 0.64) / 2)
    result.value.backward()
    assert value.grad.tolist() == pytest.approx([0.5, 0.0])  # the clipped value does not move with it
    unclipped, _, _ = loss([1.0], [0.0], value=[1.0, 2.0], old_value=[0.5, 1.0], returns=[0.0, 2.0])
    assert unclipped.value.item() == pytest.approx(0.5 * (1.0 + 0.0) / 2)


def test_the_entropy_is_over_the_legal_actions_and_the_total_weighs_the_parts():
    # Row 1: four legal actions, uniform: ln 4. Row 2: two legal actions at 3/4 and 1/4.
    rows = ({0: 0.25, 5: 0.25, 80: 0.25, 150: 0.25}, {111: 0.75, 120: 0.25})
    expected_entropy = (math.log(4) - (0.75 * math.log(0.75) + 0.25 * math.log(0.25))) / 2
    result, _, _ = loss([2.0, 1.0], [3.0, 0.0], value=[1.0, 2.0], old_value=[0.0, 0.0], returns=[0.0, 0.0],
                        probabilities=rows, ent_coef=0.01, vf_coef=0.5)
    assert result.entropy.item() == pytest.approx(expected_entropy, rel=1e-6)
    policy, value = (-3.6 + 0.0) / 2, 0.5 * (1.0 + 4.0) / 2
    assert result.policy.item() == pytest.approx(policy) and result.value.item() == pytest.approx(value)
    # The entropy is a bonus (subtracted); the value loss is added.
    assert result.total.item() == pytest.approx(policy - 0.01 * expected_entropy + 0.5 * value, rel=1e-6)
