"""Decision time of the PIMC search agent, many games deciding at once.

    python -m benchmarks.pimc                       # 256 games, K=32 worlds, heuristic rollouts
    python -m benchmarks.pimc --games 64 --worlds 16 --rollout random
    python -m benchmarks.pimc --weights policy --model ppo:checkpoints/strong.pt   # policy-based inference

The positions are drawn at random from every decision of games played by
the heuristic agent, so their phases are mixed as in play (mostly card play,
some bids and calls). Each repeat times one ``PIMCAgent.act`` call on
``--games`` such positions at once; the figure is the time per decision (the
call's time divided by the games), best and mean over the repeats. Decisions
with a single legal action are taken without search, as in play; their share
is printed too.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core

import argparse  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from agents import HeuristicAgent, PIMCAgent  # noqa: E402
from briscola_env import BatchedEnv, preset  # noqa: E402
from briscola_env.rules import PRESETS  # noqa: E402


def decisions(rules, games: int):
    """Every decision of ``games`` heuristic games: observations, masks and phases."""
    env = BatchedEnv(games, rules, seed=0, auto_reset=False)
    heuristic = HeuristicAgent(rules)
    out, seen = env.reset(), []
    while not env.state.terminated.all():
        live = np.flatnonzero(~env.state.terminated)
        seen.append((out.obs[live], out.mask[live], env.state.phase[live]))
        out = env.step(heuristic.act(out.obs, out.mask))
    return tuple(np.concatenate(parts) for parts in zip(*seen))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=256, help="games deciding at once")
    parser.add_argument("--worlds", type=int, default=32)
    parser.add_argument("--rollout", default="heuristic", help="rollout agent spec")
    parser.add_argument("--weights", default="uniform", help="how the worlds count: uniform or policy")
    parser.add_argument("--model", default=None, help="the policy model of --weights policy (an agent spec; "
                                                      "default: the rollout policy)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rules", default="standard", choices=list(PRESETS))
    args = parser.parse_args(argv)

    rules = preset(args.rules)
    agent = PIMCAgent(rules, worlds=args.worlds, rollout=args.rollout, weights=args.weights, model=args.model, seed=0)
    obs, mask, phase = decisions(rules, games=max(args.games, 256))
    rng = np.random.default_rng(0)
    print(f"# {platform.machine()}, {os.cpu_count()} cpus, Python {platform.python_version()}, "
          f"NumPy {np.__version__}, rules preset {args.rules!r}")
    print(f"pimc: {args.games} games deciding at once, {args.worlds} worlds, {args.rollout} rollouts, "
          f"{args.weights} weights" + (f" by {args.model}" if args.model else ""))
    times = []
    for repeat in range(args.repeats):
        pick = rng.choice(len(obs), args.games, replace=False)
        phases = np.bincount(phase[pick], minlength=3)
        forced = float((mask[pick].sum(axis=1) == 1).mean())
        start = time.perf_counter()
        agent.act(obs[pick], mask[pick])
        elapsed = time.perf_counter() - start
        times.append(elapsed / args.games)
        print(f"repeat {repeat}: {elapsed:6.2f} s, {1000 * times[-1]:6.1f} ms per decision "
              f"(auction/call/play: {phases[0]}/{phases[1]}/{phases[2]}, single legal action: {forced:.0%})")
    print(f"best {1000 * min(times):.1f} ms, mean {1000 * np.mean(times):.1f} ms per decision")


if __name__ == "__main__":
    main()
