"""Engine throughput: random legal games, decisions per second.

    python -m benchmarks.engine                 # batch sizes 1, 64, 1024, 8192 and the reference
    python -m benchmarks.engine --seconds 5 --batch-sizes 1024 8192 --rules seven

For each batch size B, B games are stepped together for a fixed time; each
step every live game takes one uniformly random legal action (drawn for all
games at once from the legal bit sets) and finished games are re-dealt in
place, as in training. Three ways of driving the engine are timed:

- ``inplace``: ``random_actions`` + ``step_inplace`` + ``reset_done``;
- ``pure``: the same with ``step``, which copies the state first;
- ``+mask``: ``inplace`` plus building the ``(B, 151)`` bool legal mask every
  step, as a policy network reading the mask would.

The scalar reference plays the same kind of games one at a time. Numbers from
one run on a shared machine are noisy: compare the ratios printed, measured in
the same process, rather than absolute figures across runs.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: NumPy's elementwise ops are single-threaded anyway
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from briscola_env import engine, preset  # noqa: E402
from briscola_env.reference import ReferenceGame  # noqa: E402
from briscola_env.rules import PRESETS  # noqa: E402


def engine_rate(rules, batch_size: int, seconds: float, mode: str, seed: int = 0) -> float:
    """Decisions per second of the batched engine."""
    rng = np.random.default_rng(seed)
    state = engine.init(np.arange(batch_size), rules)
    next_seed = batch_size
    decisions = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        if mode == "+mask":
            state.legal_action_mask
        actions = engine.random_actions(state, rng)
        if mode == "pure":
            state = engine.step(state, actions)
        else:
            engine.step_inplace(state, actions)
        decisions += int(np.count_nonzero(actions >= 0))
        if state.terminated.any():
            engine.reset_done(state, np.arange(next_seed, next_seed + batch_size))
            next_seed += batch_size
    return decisions / elapsed


def reference_rate(rules, seconds: float, seed: int = 0) -> float:
    """Decisions per second of the scalar reference, one game at a time."""
    rng = random.Random(seed)
    deals, dealers = engine.deal_from_seeds(np.arange(100_000))
    decisions, game_index = 0, 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        game = ReferenceGame(rules, deals[game_index].tolist(), int(dealers[game_index]))
        game_index += 1
        while not game.terminated:
            game.step(rng.choice(game.legal_actions()))
            decisions += 1
    return decisions / elapsed


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 64, 1024, 8192])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--rules", default="standard", choices=list(PRESETS), help="rules preset")
    parser.add_argument("--modes", nargs="+", default=["inplace", "pure", "+mask"],
                        choices=["inplace", "pure", "+mask"])
    args = parser.parse_args(argv)
    rules = preset(args.rules)

    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, Python "
          f"{platform.python_version()}, NumPy {np.__version__}, rules preset {args.rules!r}")
    engine_rate(rules, 64, 0.3, "inplace")  # warm up caches and rule tables
    reference = reference_rate(rules, args.seconds)
    print(f"reference (one game at a time): {reference:>12,.0f} decisions/s")
    header = "".join(f"{m + ' dec/s':>18}" for m in args.modes)
    print(f"{'batch':>6}{header}{'inplace / ref':>16}")
    for batch_size in args.batch_sizes:
        rates = [engine_rate(rules, batch_size, args.seconds, m) for m in args.modes]
        cells = "".join(f"{r:>18,.0f}" for r in rates)
        print(f"{batch_size:>6}{cells}{rates[0] / reference:>15.1f}x", flush=True)


if __name__ == "__main__":
    main()
