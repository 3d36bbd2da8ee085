"""One training run per seed of a config, then each seed's final network measured on held-out deals,
aggregated over the seeds (training.sweep); python train.py --config CONFIG --seeds ... does the same."""

from __future__ import annotations

import argparse

from .training_options import add_eval_deals_option, add_overrides, add_sweep_options, run_sweep

INTERMIXED = True  # key=value overrides before or after the options


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="the runs' YAML config: a file, or a shipped config's name (default, tiny, ...: "
                                       "configs/)")
    add_sweep_options(parser, seeds_required=True)
    add_eval_deals_option(parser)
    add_overrides(parser)


def run(args: argparse.Namespace) -> int:
    return run_sweep(args, args.config)
