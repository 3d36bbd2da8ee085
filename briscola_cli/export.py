"""Keep only the network of a training checkpoint (its policy and the config that sizes it), a far
smaller file to ship: ppo:OUT plays it, and init_from=OUT starts a training run from it."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("checkpoint", type=Path, help="a training checkpoint (checkpoint.pt of a run folder)")
    parser.add_argument("out", type=Path, help="the policy's file: a new one, unless --overwrite")
    parser.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")


def run(args: argparse.Namespace) -> None:
    from agents.ppo import export_policy
    from evaluation.report import writable_file

    writable_file(args.out, args.overwrite)  # before the checkpoint is read: fail before the work, not after
    if args.out.exists() and args.out.resolve() == args.checkpoint.resolve():
        raise ValueError(f"{args.out} is the checkpoint to export: writing there would replace it; "
                         "give another file name")
    print(f"{args.out}: {export_policy(args.checkpoint, args.out):,} bytes")
