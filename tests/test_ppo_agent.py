"""The PPO network and trained-checkpoint agent: masked policy, entropy over
legal actions only, checkpoints as data with their layouts checked."""

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.ppo import ILLEGAL_LOGIT, PolicyValueNet, entropy, load_checkpoint, sample_actions, save_checkpoint
from briscola_env import BatchedEnv
from briscola_env.observation import SPEC
from briscola_cli.main import main


def batch(n=64, seed=0):
    env = BatchedEnv(n, seed=seed)
    out = env.reset()
    return torch.from_numpy(out.obs), torch.from_numpy(out.mask)


def test_the_network_reads_its_sizes_from_the_spec():
    net = PolicyValueNet((32,))
    assert net.trunk[0].in_features == SPEC.size
    obs, mask = batch()
    logits, value = net(obs, mask)
    assert logits.shape == mask.shape and value.shape == (len(obs),)


def test_illegal_actions_get_no_probability_and_no_entropy():
    torch.manual_seed(0)
    net = PolicyValueNet((32,))
    obs, mask = batch()
    dist = torch.distributions.Categorical(logits=net(obs, mask)[0])
    assert (dist.probs[~mask] == 0).all()
    samples = dist.sample((200,))
    assert mask.gather(1, samples.T).all()
    legal_logits = [net(obs, mask)[0][i][mask[i]] for i in range(len(obs))]
    expected = torch.stack([torch.distributions.Categorical(logits=lg).entropy() for lg in legal_logits])
    assert torch.allclose(dist.entropy(), expected, atol=1e-5)
    assert torch.isfinite(dist.entropy()).all() and ILLEGAL_LOGIT > -1e30


def test_the_training_sampler_and_entropy_match_the_categorical_distribution():
    torch.manual_seed(0)
    _, mask = batch(256)
    # Uneven policies, some sharp (legal log-probabilities far below -87, where exp is slow).
    spread = torch.where(torch.arange(len(mask)) % 2 == 0, 1.5, 60.0)[:, None]
    logits = (torch.randn(mask.shape) * spread).masked_fill(~mask, ILLEGAL_LOGIT)
    dist = torch.distributions.Categorical(logits=logits)
    log_probs = torch.log_softmax(logits, dim=1)
    assert torch.allclose(entropy(log_probs, mask), dist.entropy(), atol=1e-5)
    generator = torch.Generator().manual_seed(0)
    draws = torch.stack([sample_actions(log_probs, generator) for _ in range(2000)])
    assert mask.gather(1, draws.T).all()  # never an illegal action
    # Gumbel-max draws with the policy's frequencies: the empirical probability of every action
    # within 4 standard errors, on the uneven but not sharp rows with the most legal actions.
    for row in torch.argsort(mask.sum(1) * (spread[:, 0] < 2), descending=True)[:8]:
        freq = torch.bincount(draws[:, row], minlength=mask.shape[1]).double() / len(draws)
        p = dist.probs[row].double()
        assert ((freq - p).abs() <= 4 * (p * (1 - p) / len(draws)).sqrt() + 1e-3).all()
    with pytest.raises(ValueError, match="positive integers"):
        PolicyValueNet([])


def test_the_sampler_keeps_a_lone_legal_action_when_a_uniform_draw_is_zero(monkeypatch):
    # torch.rand returns exactly 0 once in 2 ** 24 draws; a stage-4 training run met one on a last trick
    # (one legal card) and played 'pass', the first illegal action.
    mask = torch.zeros(3, 40, dtype=torch.bool)
    mask[0, 7] = mask[1, 39] = True
    mask[2, [3, 5]] = True
    log_probs = torch.log_softmax(torch.zeros(mask.shape).masked_fill(~mask, ILLEGAL_LOGIT), dim=1)
    real_rand = torch.rand
    monkeypatch.setattr(torch, "rand", lambda *shape, generator=None: real_rand(*shape, generator=generator) * 0)
    assert sample_actions(log_probs, torch.Generator().manual_seed(0)).tolist() in ([7, 39, 3], [7, 39, 5])


def test_checkpoint_round_trip_and_agent(tmp_path):
    net = PolicyValueNet((16, 16))
    path = tmp_path / "run" / "checkpoint.pt"
    save_checkpoint(path, net, update=7)
    assert not path.with_name("checkpoint.pt.tmp").exists()
    payload = load_checkpoint(path)
    assert payload["update"] == 7 and payload["hidden"] == [16, 16]
    agent = make_agent(f"ppo:{path},greedy=True", seed=0)
    obs, mask = batch()
    actions = agent.act(obs.numpy(), mask.numpy())
    assert mask.numpy()[np.arange(len(actions)), actions].all()
    logits, _ = net(obs, mask)
    assert np.array_equal(actions, logits.argmax(1).numpy())  # the same weights, greedily


def test_a_checkpoint_for_another_layout_or_format_is_refused(tmp_path):
    net = PolicyValueNet((8,))
    path = tmp_path / "checkpoint.pt"
    save_checkpoint(path, net)
    payload = torch.load(path, weights_only=True)
    payload["layout"]["observation"][0][2] = [39]
    torch.save(payload, path)
    with pytest.raises(ValueError, match="another observation layout"):
        load_checkpoint(path)
    payload["layout"]["observation"][0][2] = [40]
    payload["layout"]["actions"]["num_actions"] = 150
    torch.save(payload, path)
    with pytest.raises(ValueError, match="another actions layout"):
        load_checkpoint(path)
    torch.save({"format": 99}, path)
    with pytest.raises(ValueError, match="format 99"):
        load_checkpoint(path)
    with pytest.raises(ValueError, match="no checkpoint"):
        load_checkpoint(tmp_path / "missing.pt")
    with pytest.raises(ValueError, match="checkpoint path"):
        make_agent("ppo:")


def test_a_checkpoint_is_an_agent_for_the_harness(tmp_path, capsys):
    path = tmp_path / "checkpoint.pt"
    save_checkpoint(path, PolicyValueNet((16,)))
    assert main(["evaluate", f"ppo:{path}", "random", "--deals", "4", "--out", str(tmp_path / "eval")]) == 0
    assert f"| ppo:{path} | random | 4 |" in capsys.readouterr().out


def test_a_network_with_a_belief_head_round_trips_and_acts_the_same(tmp_path):
    torch.manual_seed(2)
    net = PolicyValueNet((16,), belief=True)
    obs, mask = batch(32)
    logits, value, belief = net.heads(obs, mask)
    assert belief.shape == (32, 5) and torch.equal(net(obs, mask)[0], logits)
    save_checkpoint(tmp_path / "b.pt", net)
    agent = make_agent(f"ppo:{tmp_path / 'b.pt'},greedy=True")
    assert agent.net.belief is not None
    assert np.array_equal(agent.act(obs.numpy(), mask.numpy()), logits.argmax(1).numpy())
    assert PolicyValueNet((16,)).heads(obs, mask)[2] is None


def test_export_keeps_the_network_alone(tmp_path, capsys):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import train

    train.main(["--config", str(Path(train.__file__).parent / "configs" / "tiny.yaml"), f"run_dir={tmp_path}"])
    main(["export", str(tmp_path / "tiny-1" / "checkpoint.pt"), str(tmp_path / "policy.pt")])
    assert "bytes" in capsys.readouterr().out
    full, small = load_checkpoint(tmp_path / "tiny-1" / "checkpoint.pt"), load_checkpoint(tmp_path / "policy.pt")
    assert "trainer" in full and "trainer" not in small and small["config"]["exp_name"] == "tiny"
    assert all(torch.equal(full["model"][k], small["model"][k]) for k in full["model"])


def test_the_network_reads_the_views_non_zero_entries_as_the_dense_product_does():
    torch.manual_seed(0)
    net = PolicyValueNet((64, 32))
    obs, mask = batch(256)
    with torch.no_grad():
        assert torch.allclose(net.sparse_first_layer(obs), net.trunk[0](net.scaled(obs)), atol=1e-5)
    gradients = []
    for views in (obs, net.scaled(obs)):  # uint8 views: the sparse first layer; floats: the dense product
        net.zero_grad()
        logits, value, _ = net.heads(views, mask)
        (torch.log_softmax(logits, 1)[mask].sum() + value.square().sum()).backward()
        gradients.append((logits, value, [p.grad.clone() for p in net.parameters()]))
    (sparse_logits, sparse_value, sparse_grads), (dense_logits, dense_value, dense_grads) = gradients
    assert torch.allclose(sparse_logits, dense_logits, atol=1e-5)
    assert torch.allclose(sparse_value, dense_value, atol=1e-5)
    assert net.trunk[0].weight.grad.abs().sum() > 0
    for fast, slow in zip(sparse_grads, dense_grads):
        assert torch.allclose(fast, slow, atol=1e-4, rtol=1e-4)
    with torch.no_grad():  # a view of zeros alone has no entries to sum: the first layer's bias
        empty = torch.zeros_like(obs[:3])
        assert torch.allclose(net.sparse_first_layer(empty), net.trunk[0].bias.expand(3, -1))
