"""What the ``briscola`` subcommands share: the help's layout, the argparse types of counts and
scores, the options several commands take (``--rules``, ``--workers``/``--chunk``) and the list
of agent specs that ``briscola evaluate --help`` ends with.

Nothing here imports torch, and nothing of the project until a command uses it: ``briscola --help``
imports this module alone."""

from __future__ import annotations

import argparse
import ast
import inspect
import itertools
import textwrap
from typing import Optional


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Help with every option's default, and descriptions and epilogs laid out as written. A flag, an
    option without a default (None), or one whose help already speaks of its default, is shown as its
    help says."""

    def _get_help_string(self, action):
        if action.nargs == 0 or action.default is None or "default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


class HelpParser(argparse.ArgumentParser):
    """An ArgumentParser with :class:`HelpFormatter`, whose epilog may be a function, called only when
    the help is shown (the list of agent specs reads every agent class's options)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def format_help(self) -> str:
        if callable(self.epilog):
            self.epilog = self.epilog()
        return super().format_help()


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (a count of deals, games, hands, decisions...)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"a whole number of at least 1; got {text!r}")
    return value


def positive_score(text: str) -> float:
    """An argparse type: a finite score above 0 (a session's target)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number above 0; got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number above 0; got {text}")
    return value


def rules_value(text: str):
    """An argparse type: the :class:`~briscola_env.rules.RulesConfig` a rules string names
    (:func:`briscola_env.rules.parse_rules`)."""
    from briscola_env.rules import parse_rules

    try:
        return parse_rules(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_rules_option(parser: argparse.ArgumentParser) -> None:
    """``--rules``: the rules the command plays, a preset (:data:`briscola_env.rules.PRESETS`) with
    optional field=value overrides, read once into a RulesConfig."""
    from briscola_env.rules import PRESETS

    parser.add_argument("--rules", default="standard", type=rules_value, metavar="RULES",
                        help=f"a preset ({', '.join(PRESETS)}), optionally followed by field=value overrides "
                             "of docs/RULES.md's variants, e.g. standard,follow_suit=true,players=4 "
                             "(default: standard)")


def add_work_arguments(parser: argparse.ArgumentParser) -> None:
    """``--workers`` and ``--chunk``: how a command (evaluate, tournament, field) spreads its deals over
    Ray tasks. Checked by :func:`evaluation.parallel.check_workers` and :func:`evaluation.parallel.chunk_size`
    before the command writes anything."""
    from evaluation.parallel import MAX_CHUNK, MIN_PIECES

    parser.add_argument("--workers", type=int, default=0,
                        help="0: play in this process; N: as Ray tasks on a local Ray of N CPUs started for the run "
                             "(pip install -e '.[ray]'), or on the cluster at RAY_ADDRESS (after ray start --head). "
                             "The results are the same either way, whatever N")
    parser.add_argument("--chunk", type=int, default=None,
                        help="deals a piece of work (one batch of games, one Ray task). The agents are seeded per "
                             "piece, so agents that draw random numbers play other games with another chunk "
                             f"(default: {MAX_CHUNK}, or fewer so as to cut the deals into {MIN_PIECES} pieces)")


def field_docs(cls: type) -> dict[str, str]:
    """Each documented field of the dataclass ``cls`` by name: its docstring (the string literal
    after it), on one line; the help of a command whose options are the class's fields."""
    statements = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body
    return {field.target.id: " ".join(doc.value.value.split())
            for field, doc in itertools.pairwise(statements)
            if isinstance(field, ast.AnnAssign) and isinstance(doc, ast.Expr)
            and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str)}


class PPOSpecOptions:
    """The options of a ``ppo:PATH`` spec, as :class:`agents.ppo.PPOAgent` declares them (a test holds
    the two alike): read from here, the help lists them without importing torch."""

    def __init__(self, path: str, seed: Optional[int] = None, greedy: bool = False):
        pass


def agent_specs_help() -> str:
    """Every agent spec with its options and their defaults, read from the registry's classes (so
    the list is that of :func:`agents.make_agent`): the epilog of ``briscola evaluate --help``."""
    from agents.registry import AGENTS
    from agents.spec import NESTED_SPEC_EXAMPLE, describe_options

    def entry(form: str, options: list[str], about: str = "") -> str:
        text = about + ", ".join(options)
        return f"  {form}\n" + textwrap.fill(text, width=100, initial_indent=" " * 6, subsequent_indent=" " * 6)

    lines = ["agent specs: a name, then options as key=value after a colon, separated by commas "
             "(heuristic:take_from=5);", "a nested spec with options goes in brackets: "
             f"pimc:worlds=32,{NESTED_SPEC_EXAMPLE}", ""]
    lines += [entry(name, describe_options(cls)) for name, cls in AGENTS.items()]
    # The path is the spec's first item, written without its key.
    ppo_options = [option for option in describe_options(PPOSpecOptions) if not option.startswith("path ")]
    lines += [entry("ppo:PATH  (needs torch: pip install -e '.[train]')", ppo_options,
                    "a training checkpoint or an exported network; options after a comma (ppo:PATH,greedy=true): "),
              entry("package.module:Class", [], "any agents.Agent subclass; options after a second colon, "
                                                "converted to the types its __init__ declares")]
    return "\n".join(lines)

