"""The ``briscola`` command line: a dispatcher over one module per subcommand.

    briscola evaluate random random --deals 2000 --seed 0 --out runs/eval
    briscola evaluate SPEC SPEC [SPEC ...] [--rules RULES] [--deals N] [--seed S] [--out DIR]
    briscola session heuristic random random random random random --hands 10   # a table of 6
    briscola evaluate heuristic random --deals 100 --record --out runs/x            # + runs/x/games.jsonl
    briscola evaluate pimc heuristic --deals 1000 --one-sided                        # A's edge only
    briscola evaluate pimc ppo:checkpoints/strong.pt --deals 200 --tables 20         # 22 games a deal, not 32
    briscola tournament heuristic heuristic:noise=0.5 random --deals 300 --out runs/tournament
    briscola evaluate pimc heuristic --deals 1000 --one-sided --workers 2            # Ray tasks: the same results
    briscola replay runs/x/games.jsonl --game 3 --step
    briscola play --opponents heuristic --lang en
    briscola belief heuristic --games 20000 --out runs/belief.pt        # a partner-belief model
    briscola sweep configs/tiny.yaml --seeds 1,2,3 --workers 3          # one training a seed, aggregated
    briscola label --players heuristic random --search pimc:worlds=32 --deals 2000 --out runs/labels
    briscola distill runs/labels --out runs/distilled.pt                # a network that acts as the search
    briscola serve --opponents ppo:checkpoints/strong.pt --record runs/human   # the table in a browser
    briscola exploit ppo:checkpoints/strong.pt --decisions 5000000     # a fresh learner against it
    briscola concealment heuristic ppo:runs/x/checkpoint.pt --belief runs/belief.pt --out runs/conceal
    briscola field ppo:checkpoints/best.pt --seed 2027 --out runs/field   # against a fixed, wide field

Each subcommand NAME is the module ``briscola_cli.NAME``, in one shape:

- its docstring is the command's description in ``briscola NAME --help``, and ``EPILOG`` (a string,
  or a function called when the help is shown) what the help ends with, if anything (``USAGE``: a
  usage line of its own, where argparse's would wrap);
- ``add_arguments(parser)`` adds its options to a :class:`.options.HelpParser`, whose help shows
  every default; counts are :func:`.options.positive_int`; ``INTERMIXED = True`` parses them with
  ``parse_intermixed_args`` (config overrides before or after the options);
- ``run(args)`` calls the library (:mod:`evaluation`, :mod:`training`, :mod:`webtable`) and returns
  None or 0 for success, else an exit status. A ValueError it raises is a usage error: one line,
  after the command's usage.

Only the module of the command named is imported, and none imports torch at its top: what needs it
is imported in ``run``. So ``briscola --help`` imports no command, and no command's help imports torch
but those of ``distill`` and ``exploit``, whose defaults (:class:`training.distill.DistillSettings`,
:data:`training.exploit.EXPLOIT_DECISIONS`) live in the modules that train with torch. A command that
needs a package of an extra not installed says which, in one line.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType
from typing import Optional

from .options import HelpParser

COMMANDS = {
    "evaluate": "paired duplicate evaluation of agents",
    "session": "multi-hand matches at a table of 5, 6 or 7",
    "play": "play hands against agents in the terminal, until you type quit",
    "belief": "train a partner-belief model on games of agents",
    "concealment": "how well each population's partners hide from a belief model",
    "field": "an agent's table edge over a fixed, documented field of opponents",
    "tournament": "rate a population of agents on mixed tables",
    "export": "keep only the network of a training checkpoint (to ship it)",
    "label": "labels for distillation: games of a mix of agents, and a search's values of the actions (or a "
             "teacher's action) at sampled decisions",
    "distill": "train a network on search labels (then ppo:PATH, or init_from)",
    "train": "PPO self-play training: a run (or --resume), a sweep over --seeds, or an --exploit audit",
    "sweep": "one training run per seed of a config, aggregated over the seeds",
    "exploit": "exploitability: a fresh PPO learner trained against an agent, then its table edge over it",
    "serve": "play, watch and replay games in the browser (a local web table)",
    "replay": "show a recorded hand from a games.jsonl file",
}
"""Each subcommand (the module ``briscola_cli.NAME``) and its line in ``briscola --help``."""

EXTRAS = {"torch": "train", "yaml": "train", "tensorboard": "train", "ray": "ray"}
"""The optional packages a command may need, and the extra (pyproject.toml) that installs each."""


def top_parser() -> argparse.ArgumentParser:
    """``briscola``'s own parser: the list of subcommands, for its help and for a command it does not know."""
    parser = HelpParser(prog="briscola", description="Briscola Chiamata toolkit",
                        epilog="briscola COMMAND --help tells what a command does and lists its options")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, summary in COMMANDS.items():
        commands.add_parser(name, help=summary)
    return parser


def command_parser(module: ModuleType, prog: str) -> argparse.ArgumentParser:
    """The parser of the command ``module`` (see above), its usage and errors headed ``prog``."""
    parser = HelpParser(prog=prog, usage=getattr(module, "USAGE", None), description=module.__doc__,
                        epilog=getattr(module, "EPILOG", None))
    module.add_arguments(parser)
    return parser


def run_command(module: ModuleType, argv: list[str], prog: str) -> int:
    """Parse ``argv`` by the command ``module``'s parser and run it; its exit status. A ValueError of
    ``run`` is a usage error (exit status 2); a package of an extra not installed is said in one line
    (exit status 1)."""
    try:
        parser = command_parser(module, prog)
        parse = parser.parse_intermixed_args if getattr(module, "INTERMIXED", False) else parser.parse_args
        args = parse(argv)
        try:
            return module.run(args) or 0
        except ValueError as error:
            parser.error(str(error))
    except ModuleNotFoundError as error:
        extra = EXTRAS.get((error.name or "").partition(".")[0])
        if extra is None:
            raise
        print(f"{prog} needs {error.name}: pip install -e '.[{extra}]'", file=sys.stderr)
        return 1


def main(argv: Optional[list[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] not in COMMANDS:
        top_parser().parse_args(argv)  # the help, or a usage error: it exits
    name = argv[0]
    return run_command(importlib.import_module(f"{__package__}.{name}"), argv[1:], prog=f"briscola {name}")


if __name__ == "__main__":
    sys.exit(main())
