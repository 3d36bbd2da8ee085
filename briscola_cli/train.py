"""PPO self-play for Briscola Chiamata (training.run, training.trainer): one policy for all the seats learns the
auction, the call and the play. One run (or --resume), a sweep over seeds (--seeds) or an
exploitability audit (--exploit), each checked before anything is trained or written."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path
from typing import Optional

from .training_options import (DEFAULT_CONFIG, add_eval_deals_option, add_exploit_options, add_overrides,
                               add_sweep_options, run_exploit, run_sweep, run_work)

INTERMIXED = True  # key=value overrides before or after the options
# One line, which a usage error prints above its message: argparse's own would wrap it to three.
USAGE = ("%(prog)s [-h] [--config CONFIG | --resume RUN] [--seeds S1,S2,... [--aggregate-only] [--workers N] | "
         "--exploit SPEC [--decisions N] [--tables N]] [--eval-deals N] [key=value ...]")


def epilog() -> str:
    """The help's end: how runs start, resume and stop, then every config key (read from the config)."""
    from training.config import RESUME_OVERRIDES, config_help

    return "\n".join(textwrap.wrap(
        "A new run's folder must not hold a run already (overwrite=true replaces it). --resume may "
        f"override only {', '.join(RESUME_OVERRIDES)}. SIGINT (Ctrl-C) or SIGTERM stops at the end "
        "of the current update, with a checkpoint; a second one stops at once.", width=100)) + "\n\n" + config_help()


EPILOG = epilog


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default=None,
                        help="a YAML file of config values, or a shipped config's name (tiny, strong, ...: configs/; "
                             f"default: {DEFAULT_CONFIG})")
    parser.add_argument("--resume", type=Path, default=None, metavar="RUN", help="a run folder to continue")
    add_sweep_options(parser, seeds_required=False)
    parser.add_argument("--exploit", default=None, metavar="SPEC",
                        help="train a fresh learner against the agent SPEC at every other seat (run_dir/exploit-SPEC-"
                             "seed; finished runs reused, unfinished resumed), then its table edge over SPEC on "
                             "held-out deals in the run's exploit.md and .json (also: briscola exploit SPEC)")
    add_exploit_options(parser)
    add_eval_deals_option(parser)
    add_overrides(parser)


def check_combination(args: argparse.Namespace) -> None:
    """A ValueError if options are given together that do not go together."""
    if args.resume is not None and args.config is not None:
        raise ValueError("--resume continues a run with its own config.yaml: --config does not go with it")
    for option, given in (("--aggregate-only", args.aggregate_only), ("--workers", args.workers)):
        if args.seeds is None and given:
            raise ValueError(f"{option} goes with --seeds")
    if args.seeds is None and args.exploit is None and args.eval_deals is not None:
        raise ValueError("--eval-deals goes with --seeds or --exploit")
    if args.exploit is None and (args.tables is not None or args.decisions is not None):
        raise ValueError("--decisions and --tables go with --exploit")
    if args.exploit is not None and (args.seeds is not None or args.resume is not None):
        raise ValueError("--exploit trains one run of its own (resuming it when unfinished): --seeds and --resume "
                         "do not go with it")
    if args.seeds is not None and args.resume is not None:
        raise ValueError("--seeds starts from --config, resuming each seed's unfinished run itself: --resume does "
                         "not go with it")


def run(args: argparse.Namespace) -> int:
    check_combination(args)
    if args.exploit is not None:
        return run_exploit(args, args.exploit, args.config or DEFAULT_CONFIG)
    if args.seeds is not None:
        return run_sweep(args, args.config or DEFAULT_CONFIG)
    from training.config import load_config, resume_config
    from training.run import train

    config = resume_config(args.resume, args.overrides) if args.resume is not None else \
        load_config(args.config or DEFAULT_CONFIG, args.overrides)
    return run_work(lambda: train(config, args.resume))


def main(argv: Optional[list[str]] = None) -> int:
    """``python train.py``: this command under its script's name; its exit status."""
    from .main import run_command

    return run_command(sys.modules[__name__], sys.argv[1:] if argv is None else list(argv), prog="train.py")
