"""Faults of the PettingZoo env (issue 13, item 2.11): a dealer given alone to ``reset`` is
honoured, and ``raw_env`` used out of order gives a clear error instead of a KeyError or an
AttributeError (``env()``'s order-enforcing wrapper has its own)."""

from __future__ import annotations

import numpy as np
import pytest

from briscola_env import raw_env
from briscola_env.cards import NUM_SEATS


def finished_env() -> raw_env:
    """A raw env whose hand is over and whose five agents have all stepped out."""
    env = raw_env()
    env.reset(seed=3)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0]))
    assert env.agents == []
    return env


@pytest.mark.parametrize("dealer", range(NUM_SEATS))
def test_reset_with_a_dealer_alone_deals_random_hands_with_that_dealer(dealer):
    env = raw_env()
    env.reset(seed=11, options={"dealer": dealer})
    assert env.game.dealer == dealer
    assert env.agent_selection == f"player_{(dealer + 1) % NUM_SEATS}"
    hands = [sorted(h) for h in env.game.hands]
    env.reset(seed=11, options={"dealer": dealer})
    assert [sorted(h) for h in env.game.hands] == hands  # the seed still draws the cards
    env.reset(seed=12, options={"dealer": dealer})
    assert [sorted(h) for h in env.game.hands] != hands


@pytest.mark.parametrize("dealer", [7, -1, 2.0, True, "3"])
def test_reset_with_a_bad_dealer_alone_is_refused(dealer):
    env = raw_env()
    with pytest.raises(ValueError, match=r'options\["dealer"\] must be a seat 0\.\.4'):
        env.reset(seed=0, options={"dealer": dealer})


def test_raw_env_stepped_after_every_agent_is_done_raises_a_clear_error():
    env = finished_env()
    with pytest.raises(RuntimeError, match=r"step\(\) after the hand is over .* call reset\(\)"):
        env.step(None)
    with pytest.raises(RuntimeError, match=r"last\(\) after the hand is over"):
        env.last()
    assert env.observe("player_0")["action_mask"].sum() == 0  # the finished hand can still be seen
    env.reset(seed=4)
    assert len(env.agents) == NUM_SEATS


def test_raw_env_stepping_a_done_agent_needs_action_none():
    """PettingZoo's convention: a terminated agent steps out with ``step(None)``; an action is refused."""
    env = raw_env()
    env.reset(seed=3)
    while not env.game.terminated:
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)


@pytest.mark.parametrize("call", ["observe", "last", "step"])
def test_raw_env_used_before_reset_raises_a_clear_error(call):
    env = raw_env()
    use = {"observe": lambda: env.observe("player_0"), "last": env.last, "step": lambda: env.step(0)}[call]
    with pytest.raises(RuntimeError, match=rf"call reset\(\) before {call}\(\)"):
        use()


def test_raw_env_observing_an_unknown_agent_names_the_agents():
    env = raw_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent 'player_5'; agents: player_0, "):
        env.observe("player_5")
