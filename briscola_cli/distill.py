"""Train a network on labels of briscola label (training.distill): its policy learns to act as the
search (or the teacher) did, its value to value the position as the search did. The result is an
exported policy: play it as ppo:OUT, or start PPO from it with init_from=OUT."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from .options import field_docs


def hidden_sizes(text: str) -> tuple[int, ...]:
    """An argparse type: comma-separated positive widths, such as 512,256."""
    try:
        sizes = tuple(int(item) for item in text.split(","))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"comma-separated positive widths, such as 512,256; got {text!r}")
    return sizes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from training.distill import DistillSettings  # torch: the settings' home is the module that fits with them

    parser.add_argument("labels", type=Path, help="a folder of briscola label")
    parser.add_argument("--out", type=Path, required=True,
                        help="the network's file (an exported policy): a new one, unless --overwrite")
    parser.add_argument("--overwrite", action="store_true", help="replace --out if it exists")
    docs, defaults = field_docs(DistillSettings), DistillSettings()
    parser.add_argument("--hidden-sizes", type=hidden_sizes, default=defaults.hidden_sizes, metavar="W1,W2,...",
                        help=f"{docs['hidden_sizes']} (default: {','.join(map(str, defaults.hidden_sizes))})")
    for field in dataclasses.fields(DistillSettings):
        if field.name != "hidden_sizes":
            default = getattr(defaults, field.name)
            parser.add_argument(f"--{field.name.replace('_', '-')}", type=type(default), default=default,
                                help=docs[field.name])


def run(args: argparse.Namespace) -> None:
    from evaluation.report import writable_file
    from training.distill import DistillSettings, distill

    writable_file(args.out, args.overwrite)  # before the work, not after
    names = [field.name for field in dataclasses.fields(DistillSettings)]
    settings = DistillSettings(**{name: getattr(args, name) for name in names})
    report = distill(args.labels, args.out, settings)
    print("\n".join(f"{key}: {value}" for key, value in report.items()))
    print(f"the network in {args.out}: play it as ppo:{args.out}, or start PPO from it with init_from={args.out}")
