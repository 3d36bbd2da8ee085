"""``python train.py``'s command line: one run (or ``--resume``), a sweep over seeds (``--seeds``) or an
exploitability audit (``--exploit``), each checked before anything is trained or written. The options of
the sweep and of the audit are added here for ``briscola sweep`` and ``briscola exploit`` too, so that
both commands take them alike."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from briscola_env import preset
from evaluation.parallel import check_workers
from evaluation.sweep import MIN_SEEDS
from evaluation.table_edge import check_tables
from training.config import MAX_TRAINING_SEED, RESUME_OVERRIDES, config_help, load_config, resume_config
from training.exploit import EXPLOIT_DECISIONS, exploit, exploit_config
from training.run_folder import RunError
from training.stop_signals import Interrupted
from training.sweep import plan_sweep, sweep
from training import trainer
from training.run import train

DEFAULT_CONFIG = "configs/default.yaml"


def seed_list(text: str) -> list[int]:
    """``--seeds``: distinct whole numbers in train.py's seed range, comma-separated, at least two."""
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


def positive_count(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a whole number of at least 1; got {text!r}")
    return int(text)



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
    parser.add_argument("--decisions", type=positive_count, default=None, metavar="N",
                        help=f"the exploiter's training decisions (default: {EXPLOIT_DECISIONS:,}, the same for every "
                             "agent audited)")
    parser.add_argument("--tables", type=int, default=None, metavar="N",
                        help="tables a deal of the final measurement, 30 (default) or 20")


def add_eval_deals_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--eval-deals", type=positive_count, default=None, metavar="N",
                        help="held-out deals of each final measurement (a sweep: per seed and opponent; default: "
                             "the config's final_eval_deals)")


def add_overrides(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("overrides", nargs="*", metavar="key=value",
                        help="config overrides (VALUE is YAML); `python train.py --help` lists every key")


def run_or_exit(parser: argparse.ArgumentParser, work) -> None:
    """``work()``, a run folder's refusal turned into ``parser``'s usage error, and a stop by SIGINT or
    SIGTERM into the exit status of that signal (the checkpoint was written: --resume goes on)."""
    try:
        work()
    except RunError as error:
        parser.error(str(error))
    except Interrupted as stopped:
        print(stopped, file=sys.stderr)
        sys.exit(128 + stopped.signum)
    except KeyboardInterrupt:
        print("interrupted: stopped at once, without a new checkpoint", file=sys.stderr)
        sys.exit(130)


def sweep_command(parser: argparse.ArgumentParser, args: argparse.Namespace, config_path: str) -> None:
    """A sweep from parsed options (:func:`add_sweep_options`, :func:`add_eval_deals_option`,
    :func:`add_overrides`): planned and checked, then run."""
    try:
        check_workers(args.workers)
        config = load_config(config_path, args.overrides)
        runs = plan_sweep(config, args.seeds, args.overrides, args.aggregate_only)
    except ValueError as error:  # RunError included
        parser.error(str(error))
    run_or_exit(parser, lambda: sweep(runs, args.eval_deals or config.final_eval_deals, args.workers))


def exploit_command(parser: argparse.ArgumentParser, args: argparse.Namespace, spec: str, config_path: str) -> None:
    """An exploitability audit of the agent ``spec`` from parsed options (:func:`add_exploit_options`,
    :func:`add_eval_deals_option`, :func:`add_overrides`): checked, then run."""
    try:
        config = exploit_config(load_config(config_path, args.overrides), spec, args.decisions or EXPLOIT_DECISIONS,
                                args.overrides)
        check_tables(args.tables, preset(config.rules).table_shape.seats)  # before any training
    except ValueError as error:
        parser.error(str(error))
    run_or_exit(parser, lambda: exploit(config, args.eval_deals or config.final_eval_deals, args.tables))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        description=trainer.__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        # one line, which a usage error prints above its message: argparse's own would wrap it to three
        usage="%(prog)s [-h] [--config CONFIG | --resume RUN] [--seeds S1,S2,... [--aggregate-only] [--workers N] | "
              "--exploit SPEC [--decisions N] [--tables N]] [--eval-deals N] [key=value ...]",
        epilog="\n".join(textwrap.wrap(
            "A new run's folder must not hold a run already (overwrite=true replaces it). --resume may "
            f"override only {', '.join(RESUME_OVERRIDES)}. SIGINT (Ctrl-C) or SIGTERM stops at the end "
            "of the current update, with a checkpoint; a second one stops at once.", width=100))
        + "\n\n" + config_help())
    parser.add_argument("--config", default=None, help=f"YAML file of config values (default: {DEFAULT_CONFIG})")
    parser.add_argument("--resume", type=Path, default=None, help="a run folder to continue")
    add_sweep_options(parser, seeds_required=False)
    parser.add_argument("--exploit", default=None, metavar="SPEC",
                        help="train a fresh learner against the agent SPEC at every other seat (run_dir/exploit-SPEC-"
                             "seed; finished runs reused, unfinished resumed), then its table edge over SPEC on "
                             "held-out deals in the run's exploit.md and .json (also: briscola exploit SPEC)")
    add_exploit_options(parser)
    add_eval_deals_option(parser)
    add_overrides(parser)
    args = parser.parse_intermixed_args(argv)  # key=value overrides may come before or after the options
    if args.resume is not None and args.config is not None:
        parser.error("--resume continues a run with its own config.yaml: --config does not go with it")
    for option, given in (("--aggregate-only", args.aggregate_only), ("--workers", args.workers)):
        if args.seeds is None and given:
            parser.error(f"{option} goes with --seeds")
    if args.seeds is None and args.exploit is None and args.eval_deals is not None:
        parser.error("--eval-deals goes with --seeds or --exploit")
    if args.exploit is None and (args.tables is not None or args.decisions is not None):
        parser.error("--decisions and --tables go with --exploit")
    if args.exploit is not None and (args.seeds is not None or args.resume is not None):
        parser.error("--exploit trains one run of its own (resuming it when unfinished): --seeds and --resume "
                     "do not go with it")
    if args.seeds is not None and args.resume is not None:
        parser.error("--seeds starts from --config, resuming each seed's unfinished run itself: --resume does not "
                     "go with it")
    if args.exploit is not None:
        exploit_command(parser, args, args.exploit, args.config or DEFAULT_CONFIG)
    elif args.seeds is not None:
        sweep_command(parser, args, args.config or DEFAULT_CONFIG)
    else:
        try:
            config = resume_config(args.resume, args.overrides) if args.resume is not None else \
                load_config(args.config or DEFAULT_CONFIG, args.overrides)
        except ValueError as error:
            parser.error(str(error))
        run_or_exit(parser, lambda: train(config, args.resume))
