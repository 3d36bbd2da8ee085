"""Train sb3-contrib's MaskablePPO on one seat against fixed opponents, then measure it.

    python examples/sb3_maskable_ppo.py                              # 200,000 steps against four heuristics
    python examples/sb3_maskable_ppo.py --timesteps 20000 --opponents random

The learner holds one seat (drawn at every hand) of :class:`agents.SingleSeatEnv`;
MaskablePPO reads the legal actions from its ``action_masks()``, so it never plays an illegal
one. At the end the trained policy and a uniformly random legal policy each play the same
seeded hands, and the script prints both mean payoffs per hand with a 95% interval.
Needs ``pip install stable-baselines3 sb3-contrib`` (both in the project's ``test`` extra).
"""

from __future__ import annotations

import argparse

import numpy as np
from sb3_contrib import MaskablePPO

from agents import SingleSeatEnv
from agents.single_seat import mean_payoff


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--timesteps", type=int, default=200_000, help="learner decisions to train on")
    parser.add_argument("--opponents", default="heuristic", help="agent spec of the four other seats")
    parser.add_argument("--hands", type=int, default=1000, help="hands of the final measurement")
    parser.add_argument("--seed", type=int, default=0, help="seeds the training and the measured hands")
    args = parser.parse_args(argv)
    if args.timesteps < 1 or args.hands < 2:
        parser.error("--timesteps must be at least 1 and --hands at least 2")

    env = SingleSeatEnv(opponents=args.opponents)
    model = MaskablePPO("MlpPolicy", env, seed=args.seed, device="cpu", verbose=0)
    model.learn(args.timesteps)

    rng = np.random.default_rng(args.seed)
    measured = 10**9 + args.seed  # reset seeds of their own, not the generator training draws its hands from
    trained = mean_payoff(env, lambda obs, mask: int(model.predict(obs, action_masks=mask, deterministic=True)[0]),
                          args.hands, measured)
    random = mean_payoff(env, lambda obs, mask: int(rng.choice(np.flatnonzero(mask))), args.hands, measured)
    print(f"against {args.opponents} x4, {args.hands} hands, mean payoff per hand (95% CI half-width):")
    print(f"  MaskablePPO after {args.timesteps:,} steps: {trained[0]:+.3f} (±{trained[1]:.3f})")
    print(f"  random legal actions:            {random[0]:+.3f} (±{random[1]:.3f})")


if __name__ == "__main__":
    main()
