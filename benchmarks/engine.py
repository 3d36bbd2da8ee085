"""Throughput on random legal games: the engine, the batched env, the AEC env.

    python -m benchmarks.engine                 # everything, default sizes
    python -m benchmarks.engine --only engine --batch-sizes 1024 8192 --rules seven

For each batch size B, B games are stepped together for a fixed time; each
step every live game takes one uniformly random legal action (drawn for all
games at once from the legal bit sets) and finished games are re-dealt in
place, as in training. Three ways of driving the engine are timed:

- ``inplace``: ``random_actions`` + ``step_inplace`` + ``reset_done``;
- ``pure``: the same with ``step``, which copies the state first;
- ``+mask``: ``inplace`` plus building the ``(B, 151)`` bool legal mask every
  step, as a policy network reading the mask would.

The scalar reference plays the same kind of games one at a time. Last, the presets of the
variants that change the table (``al_buio``, ``monte``, ``four_players``) are timed on the
engine (``inplace``), each against the chosen rules at the same batch size.

The batched environment (``BatchedEnv``) adds the observation of the seat to
act in every game, its legal mask and the auto-reset: "observed decisions".
The PettingZoo AEC env plays random games one at a time through ``last()``
and ``step()``, as ``raw_env()`` and as ``env()`` with its wrappers; steps
count decisions (not the five closing ``step(None)`` calls).

Each figure
is the best of ``--repeats`` timed blocks, so that a burst of load from other
processes on a shared machine does not count; still, compare the ratios
printed, measured in the same process, rather than absolute figures across
runs.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: NumPy's elementwise ops are single-threaded anyway
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import itertools  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from briscola_env import BatchedEnv, engine, env, preset, raw_env  # noqa: E402
from briscola_env.reference import ReferenceGame  # noqa: E402
from briscola_env.rules import PRESETS  # noqa: E402


TABLE_VARIANTS = ("al_buio", "monte", "four_players")  # presets of RULES.md's variants that change the table


def best_rate(blocks, seconds: float, repeats: int) -> float:
    """Best decisions per second over ``repeats`` timed blocks of about ``seconds / repeats``.

    ``blocks`` yields decision counts, one per unit of work, forever."""
    best = 0.0
    for _ in range(repeats):
        decisions, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds / repeats:
            decisions += next(blocks)
        best = max(best, decisions / elapsed)
    return best


def engine_steps(rules, batch_size: int, mode: str, seed: int = 0):
    """Step random games forever, yielding the decisions made by each step."""
    rng = np.random.default_rng(seed)
    state = engine.init(np.arange(batch_size), rules)
    next_seed = batch_size
    while True:
        if mode == "+mask":
            state.legal_action_mask
        actions = engine.random_actions(state, rng)
        if mode == "pure":
            state = engine.step(state, actions)
        else:
            engine.step_inplace(state, actions)
        if state.terminated.any():
            engine.reset_done(state, np.arange(next_seed, next_seed + batch_size))
            next_seed += batch_size
        yield int(np.count_nonzero(actions >= 0))


def reference_games(rules, seed: int = 0):
    """Play random games with the scalar reference forever, yielding each game's decisions."""
    rng = random.Random(seed)
    deals, dealers = engine.deal_from_seeds(np.arange(10_000), rules)  # dealing is not the reference's job
    deals, dealers = deals.tolist(), dealers.tolist()
    for game_seed in itertools.cycle(range(len(deals))):
        game = ReferenceGame(rules, deals[game_seed], dealers[game_seed])
        decisions = 0
        while not game.terminated:
            game.step(rng.choice(game.legal_actions()))
            decisions += 1
        yield decisions


def batched_env_steps(rules, num_envs: int, seed: int = 0):
    """Step a BatchedEnv with random legal actions forever, yielding the observed decisions."""
    env = BatchedEnv(num_envs, rules, seed=seed)
    env.reset()
    rng = np.random.default_rng(seed)
    while True:
        env.step(engine.random_actions(env.state, rng))
        yield num_envs


def aec_games(make_env, seed: int = 0):
    """Play random games through a PettingZoo AEC env forever, yielding each game's decisions."""
    aec = make_env()
    rng = np.random.default_rng(seed)
    aec.reset(seed=seed)
    while True:
        decisions = 0
        for _ in aec.agent_iter():
            obs, _, terminated, truncated, _ = aec.last()
            action = None
            if not (terminated or truncated):
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
                decisions += 1
            aec.step(action)
        aec.reset()
        yield decisions


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 64, 1024, 8192])
    parser.add_argument("--seconds", type=float, default=4.0, help="time per measurement")
    parser.add_argument("--repeats", type=int, default=8, help="timed blocks per measurement (the best counts)")
    parser.add_argument("--rules", default="standard", choices=list(PRESETS), help="rules preset")
    parser.add_argument("--modes", nargs="+", default=["inplace", "pure", "+mask"],
                        choices=["inplace", "pure", "+mask"], help="ways of driving the engine")
    parser.add_argument("--env-sizes", type=int, nargs="+", default=[1024, 4096, 8192],
                        help="batch sizes for the batched env")
    parser.add_argument("--only", nargs="+", default=["engine", "batched", "aec", "variants"],
                        choices=["engine", "batched", "aec", "variants"])
    args = parser.parse_args(argv)
    rules = preset(args.rules)

    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, Python "
          f"{platform.python_version()}, NumPy {np.__version__}, rules preset {args.rules!r}")
    best_rate(engine_steps(rules, 64, "inplace"), 0.3, 1)  # warm up caches and rule tables
    measure = lambda blocks: best_rate(blocks, args.seconds, args.repeats)  # noqa: E731
    reference = measure(reference_games(rules))
    print(f"reference (one game at a time): {reference:>12,.0f} decisions/s")
    if "engine" in args.only:
        header = "".join(f"{m + ' dec/s':>18}" for m in args.modes)
        print(f"engine\n{'batch':>6}{header}{'inplace / ref':>16}")
        for batch_size in args.batch_sizes:
            rates = [measure(engine_steps(rules, batch_size, m)) for m in args.modes]
            cells = "".join(f"{r:>18,.0f}" for r in rates)
            print(f"{batch_size:>6}{cells}{rates[0] / reference:>15.1f}x", flush=True)
    if "batched" in args.only:
        print(f"batched env (observation, mask, auto-reset)\n{'batch':>6}{'observed dec/s':>18}")
        for num_envs in args.env_sizes:
            print(f"{num_envs:>6}{measure(batched_env_steps(rules, num_envs)):>18,.0f}", flush=True)
    if "aec" in args.only:
        print("PettingZoo AEC env (one game at a time)")
        for name, make_env in (("raw_env()", lambda: raw_env(rules=rules)), ("env()", lambda: env(rules=rules))):
            print(f"{name:>10}{measure(aec_games(make_env)):>14,.0f} steps/s", flush=True)
    if "variants" in args.only:
        # The variants that change the table (other seats, tricks, a monte), against the rules above.
        print(f"table variants, engine inplace dec/s (vs {args.rules!r} at the same batch size)\n{'batch':>6}"
              + "".join(f"{name:>22}" for name in TABLE_VARIANTS))
        for batch_size in args.batch_sizes:
            base = measure(engine_steps(rules, batch_size, "inplace"))
            rates = [measure(engine_steps(preset(name), batch_size, "inplace")) for name in TABLE_VARIANTS]
            cells = "".join(f"{f'{r:,.0f} ({r / base:.2f}x)':>22}" for r in rates)
            print(f"{batch_size:>6}{cells}", flush=True)


if __name__ == "__main__":
    main()
