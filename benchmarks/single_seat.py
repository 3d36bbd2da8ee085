"""Learner steps per second of the single-seat environments, and MaskablePPO's end-to-end rate on them.

    python -m benchmarks.single_seat                  # all rows, about two minutes
    python -m benchmarks.single_seat --ppo-steps 0    # the environments alone

One process measures, in order: the PettingZoo AEC env (``raw_env()``, random legal games one at a
time: the baseline every ratio is against), :class:`agents.SingleSeatEnv` and
:class:`agents.SingleSeatVectorEnv` (1024 hands) with the learner playing random legal
actions, each against four ``random`` and four ``heuristic`` opponents, then sb3-contrib's
``MaskablePPO`` learning against four heuristics on ``SingleSeatEnv`` and on the vector env
through :class:`agents.sb3.SB3VecEnv`. A *learner step* is one decision of the learner; the
opponents' decisions in between are part of its cost (about four per learner step). The env rates
are the best of ``--blocks`` timed blocks of 0.5 s; each MaskablePPO rate is one run of ``--ppo-steps``.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from agents import SingleSeatEnv, SingleSeatVectorEnv
from briscola_env import raw_env

BLOCK_SECONDS = 0.5


def best_rate(step_block, blocks: int) -> float:
    """The best of ``blocks`` rates of ``step_block()``, which runs about BLOCK_SECONDS and returns its steps."""
    rates = []
    for _ in range(blocks):
        start = time.perf_counter()
        steps = step_block()
        rates.append(steps / (time.perf_counter() - start))
    return max(rates)


def aec_block(env, rng):
    def block():
        steps, end = 0, time.perf_counter() + BLOCK_SECONDS
        while time.perf_counter() < end:
            env.reset(seed=int(rng.integers(2**31)))
            for agent in env.agent_iter():
                observation, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
                steps += 1
        return steps
    return block


def single_seat_block(env: SingleSeatEnv, rng):
    env.reset(seed=0)

    def block():
        steps, end = 0, time.perf_counter() + BLOCK_SECONDS
        while time.perf_counter() < end:
            _, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            steps += 1
            if terminated:
                env.reset()
        return steps
    return block


def vector_block(env: SingleSeatVectorEnv):
    env.reset(seed=0)

    def block():
        steps, end = 0, time.perf_counter() + BLOCK_SECONDS
        while time.perf_counter() < end:
            env.step(env.action_space.sample())  # a random legal action in every game
            steps += env.num_envs
        return steps
    return block


def maskable_ppo_rate(env, steps: int, **ppo_options) -> float:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu", verbose=0, **ppo_options)
    start = time.perf_counter()
    model.learn(steps)
    return model.num_timesteps / (time.perf_counter() - start)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--blocks", type=int, default=6, help="timed blocks per env rate (the best is kept)")
    parser.add_argument("--vector-games", type=int, default=1024, help="hands of the vector env")
    parser.add_argument("--ppo-steps", type=int, default=65_536,
                        help="learner steps of each MaskablePPO run (0: skip them)")
    args = parser.parse_args(argv)
    if args.blocks < 1 or args.vector_games < 1 or args.ppo_steps < 0:
        parser.error("--blocks and --vector-games must be positive, --ppo-steps at least 0")

    import torch
    torch.set_num_threads(1)  # one core, as the other benchmarks
    rng = np.random.default_rng(0)
    print(f"# {platform.machine()}, Python {platform.python_version()}, NumPy {np.__version__}, "
          f"torch {torch.__version__} (1 thread), random legal learner unless PPO")
    aec = best_rate(aec_block(raw_env(), rng), args.blocks)
    print(f"{'AEC raw_env(), all five seats':48s} {aec:>10,.0f} steps/s   1.00x")
    rows = []
    for opponents in ("random", "heuristic"):
        rows.append((f"SingleSeatEnv vs {opponents}",
                     best_rate(single_seat_block(SingleSeatEnv(opponents=opponents), rng), args.blocks)))
        rows.append((f"SingleSeatVectorEnv({args.vector_games}) vs {opponents}",
                     best_rate(vector_block(SingleSeatVectorEnv(args.vector_games, opponents=opponents)),
                               args.blocks)))
    if args.ppo_steps:
        from agents.sb3 import SB3VecEnv

        rows.append(("MaskablePPO on SingleSeatEnv vs heuristic",
                     maskable_ppo_rate(SingleSeatEnv(opponents="heuristic"), args.ppo_steps)))
        vector = SB3VecEnv(SingleSeatVectorEnv(args.vector_games, opponents="heuristic"))
        rows.append((f"MaskablePPO on SB3VecEnv({args.vector_games}) vs heuristic",
                     maskable_ppo_rate(vector, args.ppo_steps, n_steps=max(1, 16384 // args.vector_games),
                                       batch_size=1024)))
    for name, rate in rows:
        print(f"{name:48s} {rate:>10,.0f} learner steps/s {rate / aec:6.2f}x")


if __name__ == "__main__":
    main()
