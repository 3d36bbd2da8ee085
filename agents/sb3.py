""":class:`~agents.SingleSeatVectorEnv` as a Stable-Baselines3 ``VecEnv``, so that SB3 and
sb3-contrib's ``MaskablePPO`` train on thousands of batched hands at once::

    from sb3_contrib import MaskablePPO
    from agents import SingleSeatVectorEnv
    from agents.sb3 import SB3VecEnv

    env = SB3VecEnv(SingleSeatVectorEnv(num_envs=256, opponents="heuristic"))
    model = MaskablePPO("MlpPolicy", env, n_steps=32, device="cpu").learn(100_000)

SB3 steps a ``VecEnv`` of its own kind, not a Gymnasium ``VectorEnv``: this adapter passes the
batched arrays through and builds the per-game ``infos`` list SB3 expects. ``MaskablePPO`` reads
the masks through ``env_method("action_masks")``, one row per game. Hands end only by the game's
end, never by a time limit, so ``terminal_observation`` (which SB3 reads for truncated episodes
only) is the next hand's first view. Needs ``stable-baselines3`` (in the project's ``test`` extra).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from .single_seat import SingleSeatVectorEnv


class SB3VecEnv(VecEnv):
    """A :class:`SingleSeatVectorEnv` as an SB3 ``VecEnv`` (see the module docstring)."""

    render_mode = None

    def __init__(self, env: SingleSeatVectorEnv):
        if not isinstance(env, SingleSeatVectorEnv):
            raise ValueError(f"SB3VecEnv wraps a SingleSeatVectorEnv; got {type(env).__name__}")
        self.env = env
        self._actions: Optional[np.ndarray] = None
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)

    def reset(self) -> np.ndarray:
        seed = self._seeds[0]  # VecEnv.seed(s) sets s, s + 1, ...: the vector env takes one seed for all
        obs, infos = self.env.reset(seed=seed)
        self._reset_seeds()
        self.reset_infos = self._per_game(infos)
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, infos = self.env.step(actions)
        per_game = self._per_game(infos)
        for i in np.flatnonzero(terminated):
            per_game[i]["terminal_observation"] = obs[i]
        return obs, rewards, terminated | truncated, per_game

    def close(self) -> None:
        self.env.close()

    def action_masks(self) -> np.ndarray:
        """``(N, 151)`` bool, the learner's legal actions in every game."""
        return self.env.action_masks()

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self.env, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        raise AttributeError(f"SB3VecEnv: the {self.num_envs} games share one env; cannot set {attr_name!r} per game")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list[Any]:
        games = self._indices(indices)
        if method_name == "action_masks":  # one row per game, as MaskablePPO stacks them
            return list(self.env.action_masks()[games])
        result = getattr(self.env, method_name)(*method_args, **method_kwargs)
        return [result] * len(games)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, (int, np.integer)) else list(indices)

    def _per_game(self, infos: dict) -> list[dict]:
        """Gymnasium's dict of arrays as SB3's list of one dict per game (the mask arrays left out)."""
        per_game = [{} for _ in range(self.num_envs)]
        for key, values in infos.items():
            if key.startswith("_") or key == "final_info":
                continue
            for i in np.flatnonzero(infos.get(f"_{key}", np.ones(self.num_envs, bool))):
                per_game[i][key] = values[i]
        final = infos.get("final_info")
        if final is not None:
            for i in np.flatnonzero(infos["_final_info"]):
                per_game[i]["final_info"] = {key: values[i] for key, values in final.items() if not key.startswith("_")}
        return per_game
