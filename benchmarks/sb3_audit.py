"""Exploitability audit by a learner built another way: sb3-contrib's MaskablePPO on one seat of
:class:`agents.SingleSeatVectorEnv`, four copies of the audited agent at the other seats.

    python -m benchmarks.sb3_audit ppo:checkpoints/best.pt ppo:checkpoints/league_exploiter.pt \\
        --timesteps 2000000 --out benchmarks/results/sb3_audit

``briscola exploit`` audits with this repository's own PPO trainer; this audit's learner shares none
of its code (SB3's MLP policy, rollout buffer, advantage estimation and optimiser), so an agent that
only resists learners like its own trainers shows here. Each agent audited gets a fresh MaskablePPO
(SB3's defaults but ``n_steps`` and ``batch_size``, one seed) trained for ``--timesteps`` learner decisions, its seat
drawn every hand. Then the trained policy (greedy) plays ``--hands`` hands, one per game of a fresh
vector env reset with a held-out seed: its mean payoff per hand, with a 95% interval (normal
approximation over hands), is the exploiter's one-against-four edge over the agent (a copy of the
agent there would average 0, the game being zero-sum and the seat drawn). The lower, the less
exploitable. Rows are printed and saved (``results.json`` in ``--out``) as each agent is done.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from tqdm import tqdm

from agents import SingleSeatVectorEnv
from agents.sb3 import SB3VecEnv
from briscola_env.files import write_atomically

MEASURE_SEED = 2027 + 10**6  # the measured hands: held out, apart from every training seed below


class Progress(BaseCallback):
    """A tqdm bar over the learner's decisions (SB3's own bar needs ``rich``)."""

    def __init__(self, bar: tqdm):
        super().__init__()
        self.bar = bar

    def _on_step(self) -> bool:
        self.bar.update(self.model.num_timesteps - self.bar.n)
        return True


def first_hand_payoffs(model: MaskablePPO, spec: str, hands: int, seed: int) -> np.ndarray:
    """The trained policy's payoff in the first hand of each of ``hands`` games (greedy actions)."""
    env = SingleSeatVectorEnv(num_envs=hands, opponents=spec)
    obs, _ = env.reset(seed=seed)
    payoffs, done = np.zeros(hands), np.zeros(hands, bool)
    while not done.all():
        actions, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        obs, rewards, terminated, _, _ = env.step(np.asarray(actions, dtype=np.int64))
        ended = terminated & ~done
        payoffs[ended] = rewards[ended]
        done |= terminated
    return payoffs


def audit(spec: str, timesteps: int, envs: int, n_steps: int, batch_size: int, hands: int, seed: int) -> dict:
    env = SB3VecEnv(SingleSeatVectorEnv(num_envs=envs, opponents=spec))
    env.seed(seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=batch_size, seed=seed, device="cpu", verbose=0)
    start = time.perf_counter()
    with tqdm(total=timesteps, desc=spec, unit="decision", unit_scale=True) as bar:
        model.learn(timesteps, callback=Progress(bar))
    seconds = time.perf_counter() - start
    payoffs = first_hand_payoffs(model, spec, hands, MEASURE_SEED)
    half = 1.96 * payoffs.std(ddof=1) / np.sqrt(hands)
    return {"agent": spec, "timesteps": timesteps, "hands": hands, "seed": seed, "edge": float(payoffs.mean()),
            "low": float(payoffs.mean() - half), "high": float(payoffs.mean() + half),
            "training_seconds": round(seconds, 1)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("specs", nargs="+", metavar="SPEC", help="the agents audited")
    parser.add_argument("--timesteps", type=int, default=2_000_000, help="learner decisions to train on")
    parser.add_argument("--envs", type=int, default=256, help="games stepped at once while training")
    parser.add_argument("--n-steps", type=int, default=64, help="MaskablePPO's rollout length per game")
    parser.add_argument("--batch-size", type=int, default=2048, help="MaskablePPO's minibatch")
    parser.add_argument("--hands", type=int, default=4000, help="hands of the final measurement")
    parser.add_argument("--seed", type=int, default=0, help="seeds the learner and its training hands")
    parser.add_argument("--out", type=Path, help="folder for results.json (rows saved as each agent is done)")
    args = parser.parse_args(argv)
    if min(args.timesteps, args.envs, args.n_steps, args.batch_size) < 1 or args.hands < 2:
        parser.error("--timesteps, --envs, --n-steps and --batch-size must be at least 1, --hands at least 2")
    rows = []
    print("| agent audited | MaskablePPO's one-against-four edge over it (95% CI) | training time |")
    print("|---|---|---|")
    for spec in args.specs:
        row = audit(spec, args.timesteps, args.envs, args.n_steps, args.batch_size, args.hands, args.seed)
        rows.append(row)
        print(f"| `{spec}` | {row['edge']:+.3f} ({row['low']:+.3f}, {row['high']:+.3f}) | "
              f"{row['training_seconds'] / 60:.0f} min |", flush=True)
        if args.out is not None:
            args.out.mkdir(parents=True, exist_ok=True)
            write_atomically(args.out / "results.json", json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
