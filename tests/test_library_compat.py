"""Compatibility with the libraries people plug the environment into (issue 15).

Each test is named after the fault it guards against.
"""

from __future__ import annotations

import copy
import numbers
import subprocess
import sys
import textwrap

import numpy as np

import briscola_env
from briscola_env.actions import PASS
from briscola_env.engine import deal_from_seeds
from briscola_env.observation import PRIVILEGED_SPEC


def test_import_without_pettingzoo_registry_succeeds():
    # PettingZoo 1.25/1.26 (allowed by pyproject) have no aec_registry/register: simulate that in a
    # fresh interpreter so the already-imported package in this process is not disturbed.
    script = textwrap.dedent("""
        import pettingzoo
        for name in ("aec_registry", "register"):  # as on PettingZoo 1.25 and 1.26, which lack them
            if hasattr(pettingzoo, name):
                delattr(pettingzoo, name)
        import briscola_env
        e = briscola_env.env()
        e.reset(seed=0)
        assert e.agents, e.agents
        print("ok")
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def _finished_hand_keeping_infos(seed: int, void: bool) -> list[tuple[dict, dict]]:
    """Plays a hand with random legal actions (all passing in the auction if ``void``), returning
    (info as seen, deep copy) at each ``last()``."""
    rng = np.random.default_rng(seed)
    e = briscola_env.env()
    e.reset(seed=seed)
    kept = []
    for _ in e.agent_iter():
        observation, _, terminated, truncated, info = e.last()
        kept.append((info, copy.deepcopy(info)))
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        e.step(PASS if void and PASS in legal else int(rng.choice(legal)))
    return kept


def test_infos_kept_from_an_early_step_are_never_mutated():
    for void in (True, False):
        kept = _finished_hand_keeping_infos(3, void)
        keys = set(kept[0][1])
        assert keys == {"phase", "void", "caller", "partner", "team_points", "made", "multiplier", "payoffs"}
        for info, snapshot in kept:
            assert info.keys() == snapshot.keys() == keys  # one set of keys all hand long (TorchRL's info spec)
            for key, value in info.items():
                assert np.array_equal(value, snapshot[key]), (void, key, value, snapshot[key])


def test_info_values_are_numbers_or_arrays():
    seen_done = set()
    for void in (True, False):
        for info, _ in _finished_hand_keeping_infos(3, void):
            for key, value in info.items():
                assert isinstance(value, (numbers.Number, np.ndarray)), (key, value)
            assert 0 <= info["phase"] < len(briscola_env.PHASE_NAMES)
            assert info["payoffs"].shape == (5,)
            if briscola_env.PHASE_NAMES[info["phase"]] == "done":
                seen_done.add(bool(info["void"]))
            else:  # the outcome's "not yet" values
                assert (info["caller"], info["void"], info["made"]) == (-1, False, False) and not info["payoffs"].any()
    assert seen_done == {True, False}  # both a void and a played hand were checked


def test_aec_env_has_state_matching_the_batched_privileged_view():
    for deal_seed in (11, 12, 13):
        deals, dealers = deal_from_seeds(np.array([deal_seed]))
        e = briscola_env.env()
        e.reset(options={"hands": [np.flatnonzero(deals[0] == s).tolist() for s in range(5)],
                         "dealer": int(dealers[0])})
        batched = briscola_env.BatchedEnv(1)
        batched.reset(deal_seeds=[deal_seed])
        rng = np.random.default_rng(deal_seed)
        compared = 0
        for _ in e.agent_iter():
            observation, _, terminated, truncated, _ = e.last()
            state = e.state()
            assert e.state_space.contains(state) and state.shape == (PRIVILEGED_SPEC.size,)
            if terminated or truncated:
                # BatchedEnv starts its next game on the step that ends one: only the hands are compared.
                assert not PRIVILEGED_SPEC.view(state[None], "hands").any()  # these hands are played out
                e.step(None)
                continue
            assert np.array_equal(state, batched.privileged()[0]), (deal_seed, compared)
            compared += 1
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            e.step(action)
            batched.step(np.array([action]))
        assert compared > 5
