"""Issue 13, faults 2.9, 2.10 and 2.12 (nested specs): agent spec options converted by their declared
type, every wrong kind of checkpoint named at load time, nested specs that carry their options."""

import numpy as np
import pytest
import torch

from agents import HeuristicAgent, PIMCAgent, make_agent
from agents.belief import BeliefModel, BeliefNet, save_belief
from agents.ppo import PolicyValueNet, PPOAgent, save_checkpoint
from briscola_env import BatchedEnv


@pytest.fixture
def policy(tmp_path):
    """An exported network: (its path, the network)."""
    torch.manual_seed(0)
    net = PolicyValueNet((16,))
    save_checkpoint(tmp_path / "policy.pt", net)
    return tmp_path / "policy.pt", net


def edited(source, target, change):
    payload = torch.load(source, weights_only=True)
    change(payload)
    torch.save(payload, target)
    return target


def views(n=32):
    out = BatchedEnv(n, seed=1).reset()
    return out.obs, out.mask


# --- 2.9: options by their declared type ------------------------------------------------------

@pytest.mark.parametrize("text, greedy", [("false", False), ("False", False), ("no", False), ("0", False),
                                          ("true", True), ("TRUE", True), ("yes", True), ("1", True)])
def test_ppo_greedy_false_is_not_greedy(policy, text, greedy):
    path, _ = policy
    assert make_agent(f"ppo:{path},greedy={text}").greedy is greedy


def test_heuristic_take_from_abc_is_a_clear_error():
    with pytest.raises(ValueError, match=r"take_from='abc'.*HeuristicAgent.*expected an integer"):
        make_agent("heuristic:take_from=abc")


@pytest.mark.parametrize("spec, words", [
    ("heuristic:take_from=5.5", r"take_from='5.5'.*an integer"),
    ("heuristic:bid_base=strong", r"bid_base='strong'.*a finite number"),
    ("heuristic:bid_base=nan", r"bid_base='nan'.*a finite number"),
    ("pimc:worlds=many", r"worlds='many'.*an integer"),
    ("random:seed=x", r"seed='x'.*an integer, or none"),
    ("heuristic:rules=seven", r"'rules' of HeuristicAgent .* a spec cannot write"),
    ("random:seed=1,seed=2", "given twice"),
])
def test_spec_values_not_of_their_declared_type_name_option_value_and_type(spec, words):
    with pytest.raises(ValueError, match=words):
        make_agent(spec)


def test_spec_options_take_their_declared_types():
    agent = make_agent("heuristic:bid_base=25,bid_step=3.5,take_from=4,max_points=100")
    assert (agent.bid_base, agent.bid_step, agent.take_from, agent.max_points) == (25.0, 3.5, 4, 100)
    assert type(agent.take_from) is int and type(agent.bid_base) is float
    assert make_agent("random:seed=none").name == "random"  # an unseeded agent
    pimc = make_agent("pimc:worlds=8,bids=2,seed=3")
    assert (pimc.worlds, pimc.bids) == (8, 2) and type(pimc.worlds) is int


def test_an_unknown_option_lists_the_agent_s_options():
    with pytest.raises(ValueError, match=r"HeuristicAgent has no option 'speed'; its options: seed .*take_from "
                                         r"\(an integer\)"):
        make_agent("heuristic:speed=3")


@pytest.mark.parametrize("kwargs, words", [
    (dict(take_from=-1), r"take_from must be an int in 0\.\.120"),
    (dict(take_from=121), r"take_from must be an int in 0\.\.120"),
    (dict(take_from="abc"), "take_from must be an int"),
    (dict(reveal_late=9), r"reveal_late must be an int in 0\.\.8"),
    (dict(max_points=60), r"max_points must be an int in 61\.\.120"),
    (dict(bid_step=0), "bid_step must be a number > 0"),
    (dict(bid_base=float("inf")), "bid_base must be a finite number"),
    (dict(solo_from=True), "solo_from must be a finite number"),
])
def test_heuristic_option_ranges_are_checked_in_the_constructor(kwargs, words):
    with pytest.raises(ValueError, match=words):
        HeuristicAgent(**kwargs)


def test_ppo_greedy_must_be_a_bool(policy):
    path, net = policy
    with pytest.raises(ValueError, match="greedy must be True or False"):
        PPOAgent(path, greedy="false")
    with pytest.raises(ValueError, match="greedy must be True or False"):
        PPOAgent.from_network(net, greedy="false")


# --- 2.10: wrong kinds of checkpoint -------------------------------------------------------------

def test_ppo_given_a_belief_model_names_it(tmp_path):
    save_belief(tmp_path / "belief.pt", BeliefNet((8,)))
    with pytest.raises(ValueError, match=r"belief.pt is a belief model .*; a training checkpoint .* or an "
                                         r"exported policy network was expected"):
        make_agent(f"ppo:{tmp_path / 'belief.pt'}")


def test_ppo_plays_both_a_training_checkpoint_and_an_exported_network(tmp_path, policy):
    path, net = policy
    save_checkpoint(tmp_path / "training.pt", net, trainer={"update": 3}, config={})
    obs, mask = views()
    greedy = net(torch.from_numpy(obs), torch.from_numpy(mask))[0].argmax(1).numpy()
    for source in (path, tmp_path / "training.pt"):
        assert np.array_equal(make_agent(f"ppo:{source},greedy=true").act(obs, mask), greedy)


@pytest.mark.parametrize("content", [np.random.default_rng(0).bytes(2000), b"just some text\n"],
                         ids=["random bytes", "text"])
def test_ppo_given_a_random_or_non_torch_file_names_it(tmp_path, content):
    (tmp_path / "x.pt").write_bytes(content)
    with pytest.raises(ValueError, match=r"x.pt is not a readable checkpoint: torch.load\(weights_only=True\) cannot"):
        make_agent(f"ppo:{tmp_path / 'x.pt'}")


def test_ppo_given_a_torch_file_without_a_network_names_it(tmp_path):
    torch.save([1, 2, 3], tmp_path / "list.pt")
    with pytest.raises(ValueError, match="holds a list, not a dict"):
        make_agent(f"ppo:{tmp_path / 'list.pt'}")
    torch.save({"format": 1, "weights": torch.zeros(3)}, tmp_path / "dict.pt")
    with pytest.raises(ValueError, match="holds no network"):
        make_agent(f"ppo:{tmp_path / 'dict.pt'}")


def test_ppo_given_a_file_that_lies_about_its_hidden_sizes_names_it(tmp_path, policy):
    path, _ = policy
    lying = edited(path, tmp_path / "lying.pt", lambda payload: payload.update(hidden=[32]))
    with pytest.raises(ValueError, match=r"lying.pt: its weights do not fit the network it declares "
                                         r"\(hidden sizes \[32\]\): size mismatch"):
        make_agent(f"ppo:{lying}")
    head = edited(path, tmp_path / "head.pt", lambda payload: payload.update(belief_head=True))
    with pytest.raises(ValueError, match="do not fit the network it declares"):
        make_agent(f"ppo:{head}")
    nonsense = edited(path, tmp_path / "nonsense.pt", lambda payload: payload.update(hidden=[0]))
    with pytest.raises(ValueError, match="declares a network this version cannot build"):
        make_agent(f"ppo:{nonsense}")


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_ppo_given_nan_or_inf_weights_is_refused_at_load_time(tmp_path, policy, bad):
    path, _ = policy
    broken = edited(path, tmp_path / "broken.pt",
                    lambda payload: payload["model"]["policy.weight"].__setitem__((0, 0), bad))
    with pytest.raises(ValueError, match=r"broken.pt has weights that are not finite .* policy.weight"):
        make_agent(f"ppo:{broken}")


def overflowing(name):
    """A change to a checkpoint's weights: ``name`` filled with 3e38, finite but too large for float32 sums."""
    return lambda payload: payload["model"][name].fill_(3e38)


@pytest.mark.parametrize("layer, output", [("policy.weight", r"\(logits\)"), ("value.weight", r"\(value\)")])
def test_ppo_given_finite_weights_that_overflow_is_refused_at_load_time(tmp_path, policy, layer, output):
    path, _ = policy
    broken = edited(path, tmp_path / "broken.pt", overflowing(layer))
    with pytest.raises(ValueError, match=rf"broken.pt: its network's outputs {output} are not finite .* float32"):
        make_agent(f"ppo:{broken}")


def test_briscola_evaluate_with_overflowing_weights_names_the_file(tmp_path, policy, capsys):
    from briscola_cli.main import main

    path, _ = policy
    broken = edited(path, tmp_path / "broken.pt", overflowing("policy.weight"))
    with pytest.raises(SystemExit):
        main(["evaluate", f"ppo:{broken}", "random", "--deals", "2", "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert "broken.pt: its network's outputs (logits) are not finite" in err and "probability tensor" not in err


def test_belief_model_with_overflowing_weights_is_refused_at_load_time(tmp_path):
    save_belief(tmp_path / "belief.pt", BeliefNet((8,)))
    broken = edited(tmp_path / "belief.pt", tmp_path / "broken.pt", overflowing("body.0.weight"))
    with pytest.raises(ValueError, match=r"broken.pt: its network's outputs \(logits\) are not finite"):
        BeliefModel.load(broken)


@pytest.mark.parametrize("greedy", [False, True])
def test_ppo_act_refuses_non_finite_logits_naming_the_checkpoint(policy, greedy):
    """Weights that overflow only on views the load-time probe did not reach: act says so, not torch."""
    path, _ = policy
    agent = make_agent(f"ppo:{path},greedy={greedy}", seed=0)
    obs, mask = views(8)
    with torch.no_grad():
        agent.net.policy.weight.fill_(3e38)
    with pytest.raises(ValueError, match=rf"{path}: the policy's logits are not finite .* on \d+ of 8 views"):
        agent.act(obs, mask)


def test_belief_model_load_given_a_ppo_checkpoint_names_it(tmp_path, policy):
    path, net = policy
    with pytest.raises(ValueError, match="policy.pt is an exported policy network; a belief model was expected"):
        BeliefModel.load(path)
    save_checkpoint(tmp_path / "training.pt", net, trainer={"update": 3})
    with pytest.raises(ValueError, match="is a training checkpoint .*; a belief model was expected"):
        BeliefModel.load(tmp_path / "training.pt")


def test_belief_model_load_refuses_lying_or_nan_weights(tmp_path):
    save_belief(tmp_path / "belief.pt", BeliefNet((8,)))
    assert BeliefModel.load(tmp_path / "belief.pt").probabilities(views(4)[0]).shape == (4, 5)
    lying = edited(tmp_path / "belief.pt", tmp_path / "lying.pt", lambda payload: payload.update(hidden=[9]))
    with pytest.raises(ValueError, match="do not fit the network it declares"):
        BeliefModel.load(lying)
    broken = edited(tmp_path / "belief.pt", tmp_path / "nan.pt",
                    lambda payload: payload["model"]["body.0.bias"].__setitem__(0, float("nan")))
    with pytest.raises(ValueError, match="not finite"):
        BeliefModel.load(broken)


# --- 2.12: nested specs carry their options ------------------------------------------------------

def test_pimc_nested_rollout_spec_takes_options_in_brackets(policy):
    path, _ = policy
    agent = make_agent(f"pimc:worlds=4,rollout=[ppo:{path},greedy=true],bids=2", seed=0)
    assert isinstance(agent, PIMCAgent) and (agent.worlds, agent.bids) == (4, 2)
    assert agent.rollout.name == "ppo" and agent.rollout.greedy is True
    nested = make_agent("pimc:rollout=[heuristic:take_from=5,reveal_late=2],worlds=2")
    assert (nested.rollout.take_from, nested.rollout.reveal_late, nested.worlds) == (5, 2, 2)


def test_unbracketed_nested_specs_still_work(policy):
    path, _ = policy
    assert make_agent("pimc:worlds=2,rollout=heuristic").rollout.name == "heuristic"
    assert make_agent(f"pimc:worlds=2,rollout=ppo:{path}").rollout.greedy is False
    assert make_agent(f"ppo:{path},greedy=True").greedy is True


def test_a_nested_spec_s_options_without_brackets_point_to_the_bracketed_form(policy):
    path, _ = policy
    with pytest.raises(ValueError, match=r"PIMCAgent has no option 'greedy'.*in brackets: rollout=\[ppo:"):
        make_agent(f"pimc:worlds=32,rollout=ppo:{path},greedy=true")


@pytest.mark.parametrize("spec, words", [
    ("pimc:worlds=2,rollout=[heuristic", r"a '\[' without its '\]'"),
    ("pimc:worlds=2,rollout=heuristic]", r"a '\]' without its '\['"),
    ("pimc:rollout=[heuristic:take_from=x]", r"agent spec 'heuristic:take_from=x': option take_from='x'"),
    ("pimc:rollout=[pimc:worlds=2]", "cannot itself be pimc"),
])
def test_bad_nested_specs_are_clear_errors(spec, words):
    with pytest.raises(ValueError, match=words):
        make_agent(spec)


@pytest.mark.parametrize("spec, option", [("heuristic:take_from=[5]", r"take_from='\[5\]'"),
                                          ("heuristic:bid_base=[25]", r"bid_base='\[25\]'"),
                                          ("pimc:worlds=[4]", r"worlds='\[4\]'"),
                                          ("random:seed=[3]", r"seed='\[3\]'")])
def test_brackets_around_an_option_that_takes_no_agent_spec_are_refused(spec, option):
    with pytest.raises(ValueError, match=option + r" of \w+Agent: expected .*brackets hold a nested agent spec only"):
        make_agent(spec)
