"""Any batch agent as a policy for the PettingZoo AEC environment."""

from __future__ import annotations

import numpy as np

from .base import Agent


class AECPolicy:
    """``policy(observation) -> action`` for one agent's turn in an AEC loop::

        policy = AECPolicy(RandomAgent(seed=0))
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, info = env.last()
            env.step(None if terminated or truncated else policy(observation))
    """

    def __init__(self, agent: Agent):
        self.agent = agent

    def __call__(self, observation: dict) -> int:
        obs = np.asarray(observation["observation"])[None]
        mask = np.asarray(observation["action_mask"], dtype=bool)[None]
        return int(self.agent.act(obs, mask)[0])
