"""What the training commands share (``python train.py``, ``briscola sweep``, ``briscola exploit``):
the options of a sweep and of an exploitability audit, config overrides, and running the work so
that a stop by SIGINT or SIGTERM ends with that signal's exit status."""

from __future__ import annotations

import argparse
import sys
from typing import Callable

from .options import positive_int

DEFAULT_CONFIG = "default"  # configs/default.yaml, found by name wherever the package is installed


def seed_list(text: str) -> list[int]:
    """``--seeds``: distinct whole numbers in train.py's seed range, comma-separated, at least two."""
    from evaluation.sweep import MIN_SEEDS
    from training.config import MAX_TRAINING_SEED

    items = [item.strip() for item in text.split(",")]
    bad = [item for item in items if not (item.isascii() and item.isdigit()) or int(item) > MAX_TRAINING_SEED]
    if bad:
        raise argparse.ArgumentTypeError(f"seeds are whole numbers from 0 to {MAX_TRAINING_SEED}, comma-separated "
                                         f"(e.g. 1,2,3); got {', '.join(map(repr, bad))} in {text!r}")
    seeds = [int(item) for item in items]
    repeated = sorted({seed for seed in seeds if seeds.count(seed) > 1})
    if repeated:
        raise argparse.ArgumentTypeError(f"each seed once: {', '.join(map(str, repeated))} repeated in {text!r}")
    if len(seeds) < MIN_SEEDS:
        raise argparse.ArgumentTypeError(f"a sweep needs at least {MIN_SEEDS} seeds to aggregate; got {text!r}")
    return seeds


def add_sweep_options(parser: argparse.ArgumentParser, seeds_required: bool) -> None:
    """A sweep's options: ``--seeds`` (the sweep itself), ``--aggregate-only`` and ``--workers``."""
    parser.add_argument("--seeds", type=seed_list, default=None, required=seeds_required, metavar="S1,S2,...",
                        help="a sweep: one run per seed (run_dir/exp_name-seed; finished runs are reused, unfinished "
                             "ones resumed), then each seed's final network measured on held-out deals against "
                             "heuristic and random, and the mean, IQM and bootstrap CIs over seeds in "
                             "run_dir/exp_name-sweep.md and .json")
    parser.add_argument("--aggregate-only", action="store_true",
                        help="with --seeds: train nothing; aggregate the seeds' finished runs (refused if one is not)")
    parser.add_argument("--workers", type=int, default=0, metavar="N",
                        help="with --seeds: 0 (default) trains the seeds one after the other here; N runs each seed "
                             "as a Ray task on a local Ray of N CPUs (pip install -e '.[ray]'), or on the cluster at "
                             "RAY_ADDRESS, whose nodes must then share run_dir. With torch_threads set, the same "
                             "networks and report either way (PyTorch's sums may differ with its number of threads)")


def add_exploit_options(parser: argparse.ArgumentParser) -> None:
    """An exploitability audit's options besides the agent audited: ``--decisions`` and ``--tables``."""
    from training.exploit import EXPLOIT_DECISIONS  # torch: the audit's budget is the audit module's

    parser.add_argument("--decisions", type=positive_int, default=None, metavar="N",
                        help=f"the exploiter's training decisions (default: {EXPLOIT_DECISIONS:,}, the same for every "
                             "agent audited)")
    parser.add_argument("--tables", type=int, default=None, metavar="N",
                        help="tables a deal of the final measurement, 30 (default) or 20")


def add_eval_deals_option(parser: argparse.ArgumentParser) -> None:
    """``--eval-deals``: the held-out deals of the final measurements of a sweep or an audit."""
    parser.add_argument("--eval-deals", type=positive_int, default=None, metavar="N",
                        help="held-out deals of each final measurement (a sweep: per seed and opponent; default: "
                             "the config's final_eval_deals)")


def add_overrides(parser: argparse.ArgumentParser) -> None:
    """The positional ``key=value`` config overrides, before or after the options (parsed intermixed)."""
    parser.add_argument("overrides", nargs="*", metavar="key=value",
                        help="config overrides (VALUE is YAML); `python train.py --help` lists every key")


def run_work(work: Callable[[], object]) -> int:
    """``work()``, then 0; a stop by SIGINT or SIGTERM (the checkpoint written: --resume goes on) gives
    that signal's exit status. A run folder's refusal (a RunError) stays a ValueError, which the command
    line shows as a usage error; any other ValueError raised while training is no usage error, and
    keeps its traceback, as a RuntimeError."""
    from training.run_folder import RunError
    from training.stop_signals import Interrupted

    try:
        work()
    except RunError:
        raise
    except ValueError as error:
        raise RuntimeError(f"the work stopped on an error: {error}") from error
    except Interrupted as stopped:
        print(stopped, file=sys.stderr)
        return 128 + stopped.signum
    except KeyboardInterrupt:
        print("interrupted: stopped at once, without a new checkpoint", file=sys.stderr)
        return 130
    return 0


def run_sweep(args: argparse.Namespace, config_path: str) -> int:
    """A sweep from parsed options (:func:`add_sweep_options`, :func:`add_eval_deals_option`,
    :func:`add_overrides`): planned and checked (a ValueError if it cannot be), then run."""
    from evaluation.parallel import check_workers
    from training.config import load_config
    from training.sweep import plan_sweep, sweep

    check_workers(args.workers)
    config = load_config(config_path, args.overrides)
    runs = plan_sweep(config, args.seeds, args.overrides, args.aggregate_only)
    return run_work(lambda: sweep(runs, args.eval_deals or config.final_eval_deals, args.workers))


def run_exploit(args: argparse.Namespace, spec: str, config_path: str) -> int:
    """An exploitability audit of the agent ``spec`` from parsed options (:func:`add_exploit_options`,
    :func:`add_eval_deals_option`, :func:`add_overrides`): checked (a ValueError if it cannot be), then run."""
    from evaluation.table_edge import check_tables
    from training.config import load_config
    from training.exploit import EXPLOIT_DECISIONS, exploit, exploit_config

    config = exploit_config(load_config(config_path, args.overrides), spec, args.decisions or EXPLOIT_DECISIONS,
                            args.overrides)
    check_tables(args.tables, config.rules.table_shape.seats)  # before any training
    return run_work(lambda: exploit(config, args.eval_deals or config.final_eval_deals, args.tables))
