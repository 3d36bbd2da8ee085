"""The ``briscola`` command line.

    briscola evaluate random random --deals 2000 --seed 0 --out runs/eval
    briscola evaluate SPEC SPEC [SPEC ...] [--rules PRESET] [--deals N] [--seed S] [--out DIR]
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

Agent specs are those of :func:`agents.make_agent`. With two specs, A's table
edge over B (:mod:`evaluation.table_edge`) and A's and B's one-against-four
paired edges (:mod:`evaluation.duplicate`); with more, every pair on the same
deals. Prints Markdown tables (edges, per-agent statistics,
OpenSkill ratings) and writes them, ``results.json`` and PNG plots into
``--out``, a run folder of its own (see :mod:`evaluation.report`): one that
is not empty is refused, and ``results.json``, written last, is there only
when the run finished.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import time
from pathlib import Path
from typing import Optional

import numpy as np
from tqdm import tqdm

from agents import make_agent
from agents.registry import AGENTS
from agents.spec import NESTED_SPEC_EXAMPLE, describe_options
from briscola_env import __version__, preset
from briscola_env.cards import LANGUAGES, NUM_SEATS
from briscola_env.files import write_atomically
from briscola_env.render import printable
from briscola_env.rules import PRESETS
from briscola_env.seeds import deal_seeds, refuse_training_deals
from evaluation.field import FIELD, SEARCH_TABLES, field_games, field_json, field_markdown, measure_field
from evaluation.duplicate import DuplicateResult, evaluate_one_sided, games_per_deal, lone_games, round_robin
from evaluation.parallel import add_work_arguments, check_workers, chunk_size
from evaluation.report import (MIXED_GAMES_FILE, claim_folder, ratings, results_markdown, writable_file,
                               writable_folder, write)
from evaluation.table_edge import check_tables
from evaluation.session import play_sessions
from evaluation.terminal import play_in_terminal, replay_in_terminal, suit_letters_text
from evaluation.tournament import add_tournament_parser, run_tournament
from webtable import add_serve_parser, serve_command
from training.distill import DistillSettings, distill
from training.labelling import DEFAULT_SEARCH, LabelPlan, label
from training.command import (DEFAULT_CONFIG, add_eval_deals_option, add_exploit_options, add_overrides,
                              add_sweep_options, exploit_command, sweep_command)


def evaluate(specs: list[str], deals: int, seed: int, rules_name: str, out: Optional[Path],
             record: bool = False, one_sided: bool = False, numbered_out: bool = False,
             tables: Optional[int] = None, workers: int = 0,
             chunk: Optional[int] = None) -> tuple[list[DuplicateResult], dict, Optional[Path]]:
    """The Python API behind ``briscola evaluate``: the pair results (:class:`.duplicate.TableResult`,
    with each pair's table edge), the ratings, and the run folder written (none if ``out`` is None;
    see :func:`.report.claim_folder` for ``numbered_out``). ``tables``: the mixed tables a deal of
    :func:`.duplicate.evaluate_table`, 30 (None) or 20. One-sided, exactly two specs: the first's edge
    alone, among four of the second (an :class:`.duplicate.OneSidedResult`: no table edge, so no ``tables``).
    ``workers``: 0 plays in this process, N > 0 as Ray tasks on N CPUs (:mod:`.parallel`), with the
    same results; ``chunk``: deals a piece of work (default: :func:`.parallel.chunk_size`'s)."""
    if one_sided and len(specs) != 2:
        raise ValueError("--one-sided evaluates exactly two agent specs: the first against the second")
    if one_sided and tables is not None:
        raise ValueError("--tables chooses the mixed tables of the table edge, and --one-sided plays none (only A "
                         "alone among four B's), so it has no table edge: drop one of them")
    if len(specs) < 2:
        raise ValueError("evaluate needs at least two agent specs")
    if record and out is None:
        raise ValueError("recording games needs a run folder to write them into")
    rules = preset(rules_name)
    seats = rules.table_shape.seats
    if not one_sided:
        tables = check_tables(tables, seats)
    workers = check_workers(workers)
    chunk = chunk_size(deals, chunk)  # checked, and as resolved: it decides the games of agents that draw
    agents = [make_agent(spec, seed=seed + i, rules=rules) for i, spec in enumerate(specs)]
    names = [spec if specs.count(spec) == 1 else f"{spec}#{i}" for i, spec in enumerate(specs)]
    if out is not None:
        out = claim_folder(out, numbered_out)
    pairs = len(specs) * (len(specs) - 1) // 2
    per_pair = deals * (lone_games(seats) if one_sided else games_per_deal(tables, seats))
    with tqdm(total=per_pair * pairs, unit="game", desc="evaluate", file=sys.stderr) as bar:
        done = [0]

        def progress(n: int) -> None:  # n: this pair's games so far
            bar.update(n - done[0])
            done[0] = n if n < per_pair else 0

        if one_sided:
            results = [evaluate_one_sided(*agents, deals, seed, rules, chunk, names=tuple(names),
                                          progress=lambda n: progress(n * lone_games(seats)), workers=workers)]
        else:
            results = round_robin(agents, names, deals, seed, rules, tables, workers, chunk=chunk, progress=progress)
    rated = ratings(results)
    if out is not None:
        write(results, rated, out, {"version": __version__, "specs": specs, "deals": deals, "seed": seed,
                                    "rules": rules_name, "one_sided": one_sided, "tables": tables,
                                    "chunk": chunk, "recorded": record},
              record_rules=rules if record else None)
    return results, rated, out


def session(specs: list[str], sessions: int, hands: Optional[int], target: Optional[float], seed: int,
            rules_name: str) -> str:
    """The Python API behind ``briscola session``: a Markdown table of the players' results.
    Player p is ``specs[p]``; the table has 5, 6 or 7 players."""
    agents = [make_agent(spec, seed=seed + i, rules=preset(rules_name)) for i, spec in enumerate(specs)]
    players = np.tile(np.arange(len(specs)), (sessions, 1))
    result = play_sessions(agents, players, hands, target, seed, preset(rules_name))
    rows = [f"{sessions} sessions of {len(specs)} players; hands per session: mean {result.hands.mean():.1f}",
            "", "| player | agent | mean total | wins (ties shared) |", "|---|---|---:|---:|"]
    share = result.winners / result.winners.sum(axis=1, keepdims=True)
    for p, spec in enumerate(specs):
        rows.append(f"| {p} | {spec} | {result.totals[:, p].mean():+.2f} | {share[:, p].mean():.1%} |")
    return "\n".join(rows)


def train_belief_model(specs: list[str], games: int, seed: int, rules_name: str, out: Path, epochs: int) -> str:
    """The Python API behind ``briscola belief``: log games of the agents (each seat drawn from
    ``specs``, every game), fit a belief model, save it; returns a line on its held-out accuracy.
    The games are dealt from the ``"belief-train"`` stream of ``seed``, the held-out ones from
    ``"belief-heldout"`` (:mod:`briscola_env.seeds`); the model records the deals it was fitted on."""
    from agents.belief import BeliefModel, collect_views, save_belief, train_belief

    rules = preset(rules_name)
    agents = [make_agent(spec, seed=seed + i, rules=rules) for i, spec in enumerate(specs)]
    held_out = max(1, games // 10)
    fit_deals, check_deals = deal_seeds("belief-train", seed, games), deal_seeds("belief-heldout", seed, held_out)
    refuse_training_deals(check_deals, fit_deals, "the belief model")
    if out.is_dir():
        raise ValueError(f"{out} is a folder: --out names the model file to write, such as runs/belief.pt")
    writable_folder(out.parent)
    layout = np.random.default_rng(seed).integers(0, len(agents), (games + held_out, rules.table_shape.seats))
    views = collect_views(agents, layout, np.concatenate([fit_deals, check_deals]), rules)
    fit, check = views.select(views.game < games), views.select(views.game >= games)
    with tqdm(total=epochs, desc="belief", unit="epoch", file=sys.stderr) as bar:
        net = train_belief(fit, epochs=epochs, seed=seed,
                           progress=lambda epoch, loss: (bar.set_postfix_str(f"loss {loss:.3f}"), bar.update(1)))
    save_belief(out, net, specs=specs, games=games, rules=rules_name, seed=seed)
    probabilities = BeliefModel(net).probabilities(check.obs)
    hidden = ~check.revealed
    accuracy = float((probabilities.argmax(axis=1) == check.partner)[hidden].mean())
    return (f"belief model in {out}: {len(fit)} views of {games} games; held-out accuracy before the reveal "
            f"{accuracy:.3f} on {int(hidden.sum())} views of {held_out} games")


def concealment_report(specs: list[str], belief_path: Path, games: int, seed: int, rules_name: str,
                       out: Optional[Path]) -> str:
    """The Python API behind ``briscola concealment``: one population per spec (that agent at
    every seat), measured against the belief model; the tables, also written with a PNG to ``out``.
    A model trained on any of the deals played, or without a record of its training deals, is
    refused before anything is played or written."""
    from agents.belief import BeliefModel

    from evaluation.concealment import belief_unseen_on, concealment, concealment_deals, concealment_table, \
        write as write_concealment

    belief = BeliefModel.load(belief_path)
    belief_unseen_on(belief, concealment_deals(games, seed))
    rules = preset(rules_name)
    agents = [make_agent(spec, seed=seed + i, rules=rules) for i, spec in enumerate(specs)]
    if out is not None:
        claim_folder(out)
    results = [concealment(belief, agent, spec, games, seed, rules) for agent, spec in zip(agents, specs)]
    if out is not None:
        write_concealment(results, out)
    return concealment_table(results)


def label_command(args: argparse.Namespace) -> int:
    check_workers(args.workers)
    plan = LabelPlan(players=tuple(args.players), search=args.search, teacher=args.teacher, deals=args.deals,
                     share=args.share, chunk=args.chunk, seed=args.seed, rules=args.rules)
    with tqdm(total=plan.chunks, desc="label", unit="chunk", file=sys.stderr) as bar:
        labelled = label(plan, args.out, args.workers, progress=lambda done: bar.update(done - bar.n))
    print(f"{labelled:,} labelled decisions from {plan.deals:,} deals in {args.out}")
    return 0


def distill_command(args: argparse.Namespace) -> int:
    writable_file(args.out, args.overwrite)  # before the work, not after
    options = {name: getattr(args, name) for name in DISTILL_OPTIONS}
    settings = DistillSettings(**options, hidden_sizes=args.hidden_sizes)
    report = distill(args.labels, args.out, settings)
    print("\n".join(f"{key}: {value}" for key, value in report.items()))
    print(f"the network in {args.out}: play it as ppo:{args.out}, or start PPO from it with init_from={args.out}")
    return 0


DISTILL_OPTIONS = ("epochs", "batch_size", "learning_rate", "temperature", "value_coef", "holdout", "seed")


def hidden_sizes(text: str) -> tuple[int, ...]:
    """An argparse type: comma-separated positive widths, such as 512,256."""
    try:
        sizes = tuple(int(item) for item in text.split(","))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"comma-separated positive widths, such as 512,256; got {text!r}")
    return sizes


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (a count of deals, games, hands...)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1; got {value}")
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


def agent_specs_help() -> str:
    """Every agent spec with its options and their defaults, read from the registry's classes (so
    the list is that of :func:`agents.make_agent`): the epilog of ``briscola evaluate --help``."""
    def entry(form: str, options: list[str], about: str = "") -> str:
        text = about + ", ".join(options)
        return f"  {form}\n" + textwrap.fill(text, width=100, initial_indent=" " * 6, subsequent_indent=" " * 6)

    lines = ["agent specs: a name, then options as key=value after a colon, separated by commas "
             "(heuristic:take_from=5);", "a nested spec with options goes in brackets: "
             f"pimc:worlds=32,{NESTED_SPEC_EXAMPLE}", ""]
    lines += [entry(name, describe_options(cls)) for name, cls in AGENTS.items()]
    try:
        from agents.ppo import PPOAgent  # torch, needed only here and for trained agents

        # The path is the spec's first item, written without its key.
        ppo_options = [option for option in describe_options(PPOAgent) if not option.startswith("path ")]
    except ImportError:
        ppo_options = ["needs torch (pip install -e '.[train]')"]
    lines += [entry("ppo:PATH", ppo_options, "a training checkpoint or an exported network; options after a "
                                             "comma (ppo:PATH,greedy=true): "),
              entry("package.module:Class", [], "any agents.Agent subclass; options after a second colon, "
                                                "converted to the types its __init__ declares")]
    return "\n".join(lines)


class _HelpParser(argparse.ArgumentParser):
    """An ArgumentParser whose epilog may be a function, called only when the help is shown
    (the agent list reads ppo's options, which imports torch)."""

    def format_help(self) -> str:
        if callable(self.epilog):
            self.epilog = self.epilog()
        return super().format_help()


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Help with every option's default, and epilogs (the agent specs) laid out as written. An option
    without a default (None) says in its own words what leaving it out does."""

    def _get_help_string(self, action):
        return action.help if action.default is None else super()._get_help_string(action)


def main(argv: Optional[list[str]] = None) -> int:
    parser = _HelpParser(prog="briscola", description="Briscola Chiamata toolkit")
    commands = parser.add_subparsers(dest="command", required=True)
    ev = commands.add_parser("evaluate", help="paired duplicate evaluation of agents", epilog=agent_specs_help,
                             formatter_class=HelpFormatter)
    ev.add_argument("specs", nargs="+", help=f"agent specs: {', '.join(AGENTS)}, ppo:PATH or package.module:Class, "
                                             "with options (listed below), such as heuristic:noise=0.5 "
                                             "(an evaluation seeds every agent itself, from --seed)")
    ev.add_argument("--deals", type=positive_int, default=2000,
                    help="deals to play (x32 games per pair; x22 with --tables 20; x6 with --one-sided)")
    ev.add_argument("--seed", type=int, default=0, help="seeds the deals and the agents")
    ev.add_argument("--rules", default="standard", choices=list(PRESETS), help="rules preset")
    ev.add_argument("--out", type=Path, default=None,
                    help="run folder for results.json, results.md and plots/, new or empty: a folder that is not "
                         "empty is refused, so runs never mix (default runs/evaluate-<time>, numbered -2, -3... "
                         "if taken); results.json is written last, so a folder without it is an unfinished run")
    ev.add_argument("--record", action="store_true",
                    help="also write every game into the run folder: the twelve a deal of the one-against-four "
                         "tables (all-B, A alone at each seat, all-A, B alone at each seat) to games.jsonl, as "
                         "before, and the tables with two or three copies of A to mixed_games.jsonl")
    ev.add_argument("--one-sided", action="store_true",
                    help="two specs only: the first's edge alone, from 6 games a deal instead of 32 (for costly "
                         "agents: search); "
                         "the same outputs, with B's edge marked not measured and B's statistics from the all-B "
                         "games; no table edge (results.json's table_edge is null, with a note), so no --tables")
    ev.add_argument("--tables", type=int, default=None,
                    help="mixed tables a deal for the table edge (default: all 30 seatings of A and B with both "
                         "present, k = 1..4 copies of A); 20 for costly agents: all 5 of k = 1 and of k = 4 (the "
                         "one-against-four games, played anyway) and half of k = 2 and of k = 3, 5 each, drawn per "
                         "deal from --seed with A at every seat equally often within each k (no other count keeps "
                         "that balance and edge(A, B) = -edge(B, A)). Fewer tables make each deal's mean noisier, "
                         "so the interval widens; the bootstrap over deals still covers that noise. With --rules "
                         "four_players every evaluation plays all 14 seatings of a table of four (k = 1..3), and 20 is "
                         "refused")
    add_work_arguments(ev)
    se = commands.add_parser("session", help="multi-hand matches at a table of 5, 6 or 7",
                             formatter_class=HelpFormatter)
    se.add_argument("specs", nargs="+", help="one agent spec per player, in seat order (5, 6 or 7)")
    se.add_argument("--sessions", type=positive_int, default=200, help="sessions played (all at once)")
    se.add_argument("--hands", type=positive_int, default=None,
                    help="hands per session (give --hands, --target or both)")
    se.add_argument("--target", type=positive_score, default=None,
                    help="end a session when a player reaches this score")
    se.add_argument("--seed", type=int, default=0, help="seeds the deals and the agents")
    se.add_argument("--rules", default="standard", choices=list(PRESETS), help="rules preset")
    pl = commands.add_parser("play", help="play hands against agents in the terminal, until you type quit",
                             formatter_class=HelpFormatter)
    pl.add_argument("--opponents", nargs="+", default=["heuristic"],
                    help="one agent spec (for the four other seats), or four in seat order (three with --rules "
                         "four_players); the specs of "
                         "briscola evaluate --help")
    pl.add_argument("--seat", type=int, default=0, choices=range(NUM_SEATS), help="your seat")
    pl.add_argument("--seed", type=int, default=None,
                    help="seeds the deals and the agents, to play the same hands again "
                         "(default: new hands each time)")
    pl.add_argument("--rules", default="standard", choices=list(PRESETS), help="rules preset")
    pl.add_argument("--lang", default="it", choices=LANGUAGES,
                    help="card names and the suit letters you type: "
                         + ", ".join(f"{lang} {suit_letters_text(lang)}" for lang in LANGUAGES)
                         + "; the symbols ♥ ♦ ♣ ♠ in both")
    be = commands.add_parser("belief", help="train a partner-belief model on games of agents",
                             formatter_class=HelpFormatter)
    be.add_argument("specs", nargs="+", help="agent specs; each seat of each game is drawn from them")
    be.add_argument("--games", type=positive_int, default=20_000,
                    help="games to fit the model on (a tenth more are held out to measure it)")
    be.add_argument("--epochs", type=positive_int, default=4, help="passes of the fit over the games' views")
    be.add_argument("--seed", type=int, default=0, help="seeds the deals, the agents and the fit")
    be.add_argument("--rules", default="standard", choices=list(PRESETS), help="rules preset")
    be.add_argument("--out", type=Path, default=Path("runs/belief.pt"), help="where to save the model")
    co = commands.add_parser("concealment", help="how well each population's partners hide from a belief model",
                             formatter_class=HelpFormatter)
    co.add_argument("specs", nargs="+", help="one population per spec (that agent at every seat)")
    co.add_argument("--belief", type=Path, required=True, help="a model from: briscola belief ...")
    co.add_argument("--games", type=positive_int, default=2000, help="games per population")
    co.add_argument("--seed", type=int, default=0,
                    help="seeds the deals (from their own stream, never the belief model's) and the agents")
    co.add_argument("--rules", default="standard", choices=list(PRESETS), help="rules preset")
    co.add_argument("--out", type=Path, default=None,
                    help="folder for concealment.md, .json and .png, new or empty (one that is not empty is refused)")
    fi = commands.add_parser("field", help="an agent's table edge over a fixed, documented field of opponents",
                             formatter_class=HelpFormatter, description=field_description())
    fi.add_argument("spec", help="the agent measured")
    fi.add_argument("--deals", type=positive_int, default=2000, help="deals against each member that does not search")
    fi.add_argument("--search-deals", type=int, default=300,
                    help=f"deals against the searching member, on {SEARCH_TABLES} tables a deal (0: leave it out)")
    fi.add_argument("--seed", type=int, default=0, help="seeds the deals and the agents")
    fi.add_argument("--rules", default="standard", choices=list(PRESETS), help="rules preset")
    fi.add_argument("--out", type=Path, default=None,
                    help="folder for field.md and results.json, new or empty (default: print only)")
    add_work_arguments(fi)
    add_tournament_parser(commands, HelpFormatter, agent_specs_help, positive_int)
    ex = commands.add_parser("export", help="keep only the network of a training checkpoint (to ship it)")
    ex.add_argument("checkpoint", type=Path)
    ex.add_argument("out", type=Path, help="the policy's file: a new one, unless --overwrite")
    ex.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")
    lb = commands.add_parser("label", help="labels for distillation: games of a mix of agents, and a search's "
                                           "values of the actions (or a teacher's action) at sampled decisions",
                             formatter_class=HelpFormatter,
                             description="training.labelling; run it again with the same options to go on")
    lb.add_argument("--players", nargs="+", required=True, metavar="SPEC",
                    help="agent specs; each seat of each game is one of them, drawn uniformly (strong agents for the "
                         "positions good play reaches, random for coverage)")
    labeller = lb.add_mutually_exclusive_group()
    labeller.add_argument("--search", help=f"the labeller, an agent that values actions (default: {DEFAULT_SEARCH})")
    labeller.add_argument("--teacher", metavar="SPEC",
                          help="label with this agent's actions instead (imitation: any agent, a hybrid say)")
    lb.add_argument("--deals", type=positive_int, default=2000, help="deals to play")
    lb.add_argument("--share", type=float, default=0.25,
                    help="share of the decisions with more than one legal action that are labelled")
    lb.add_argument("--chunk", type=positive_int, default=100, help="deals a chunk file (and a Ray task)")
    lb.add_argument("--seed", type=int, default=0, help="seeds the deals, the seating and the agents")
    lb.add_argument("--rules", default="standard", choices=list(PRESETS), help="rules preset")
    lb.add_argument("--workers", type=int, default=0,
                    help="0: label in this process; N: chunks as Ray tasks on a local Ray of N CPUs, or on the "
                         "cluster at RAY_ADDRESS (--out on a file system every node shares); the same files")
    lb.add_argument("--out", type=Path, required=True, help="the labels' folder: new, empty, or this plan's to go on")
    di = commands.add_parser("distill", help="train a network on search labels (then ppo:PATH, or init_from)",
                             formatter_class=HelpFormatter, description="training.distill")
    di.add_argument("labels", type=Path, help="a folder of briscola label")
    di.add_argument("--out", type=Path, required=True, help="the network's file (an exported policy): a new one, "
                    "unless --overwrite")
    di.add_argument("--overwrite", action="store_true", help="replace --out if it exists")
    defaults = DistillSettings()
    di.add_argument("--hidden-sizes", type=hidden_sizes, default=defaults.hidden_sizes, metavar="W1,W2,...",
                    help=f"widths of the hidden layers (default: {','.join(map(str, defaults.hidden_sizes))})")
    for name in DISTILL_OPTIONS:  # training.distill's docstring says what each does
        default = getattr(defaults, name)
        di.add_argument(f"--{name.replace('_', '-')}", type=type(default), default=default, help=f"default: {default}")
    sw = commands.add_parser("sweep", help="one training run per seed of a config, aggregated over the seeds",
                             formatter_class=HelpFormatter,
                             description="python train.py --config CONFIG --seeds ... does the same (training.sweep)")
    sw.add_argument("config", help="the YAML config file of the runs (such as configs/default.yaml)")
    add_sweep_options(sw, seeds_required=True)
    add_eval_deals_option(sw)
    add_overrides(sw)
    xp = commands.add_parser("exploit", help="exploitability: a fresh PPO learner trained against an agent, then "
                                             "its table edge over it", formatter_class=HelpFormatter,
                             description="python train.py --exploit SPEC does the same (training.exploit)")
    xp.add_argument("spec", help="the agent audited, frozen at every seat the learner does not hold")
    xp.add_argument("--config", default=DEFAULT_CONFIG, help="the learner's training config")
    add_exploit_options(xp)
    add_eval_deals_option(xp)
    add_overrides(xp)
    add_serve_parser(commands, HelpFormatter)
    rp = commands.add_parser("replay", help="show a recorded hand from a games.jsonl file",
                             formatter_class=HelpFormatter)
    rp.add_argument("file", type=Path, help="a games.jsonl, such as briscola evaluate --record writes")
    rp.add_argument("--game", type=int, default=0,
                    help="which record, from 0: the file's N-th non-blank line, read no further; "
                         "it is checked against its replay before it is shown")
    rp.add_argument("--step", action="store_true", help="one action at a time, Enter to go on")
    rp.add_argument("--lang", default="it", choices=LANGUAGES, help="language of the card names")
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["sweep"]:  # parsed by its own parser, whose key=value overrides may come before or after options
        args = sw.parse_intermixed_args(argv[1:])
        sweep_command(sw, args, args.config)
        return 0
    if argv[:1] == ["exploit"]:
        args = xp.parse_intermixed_args(argv[1:])
        exploit_command(xp, args, args.spec, args.config)
        return 0
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args) or 0
    except ValueError as error:
        parser.error(str(error))


def evaluate_command(args: argparse.Namespace) -> None:
    results, rated, out = evaluate(args.specs, args.deals, args.seed, args.rules,
                                   args.out or Path("runs") / time.strftime("evaluate-%Y%m%d-%H%M%S"),
                                   args.record, args.one_sided, numbered_out=args.out is None,
                                   tables=args.tables, workers=args.workers, chunk=args.chunk)
    if args.record:
        games = sum(r.games.batch_size for r in results)
        mixed = sum(getattr(r, "mixed_games", 0) for r in results)
        print(f"{games} games recorded in {out / 'games.jsonl'}"
              + (f", {mixed} of the mixed tables in {out / MIXED_GAMES_FILE}" if mixed else ""), file=sys.stderr)
    print(f"results in {out}", file=sys.stderr)
    print(results_markdown(results, rated))


def field_description() -> str:
    """``briscola field --help``'s description: the module's account of the field, and its members."""
    import evaluation.field

    members = "\n".join(f"  {m.spec}: {m.about}" for m in FIELD)
    return f"{evaluation.field.__doc__}\n\nThe field:\n{members}"


def field_command(args: argparse.Namespace) -> None:
    if args.search_deals < 0:
        raise ValueError(f"--search-deals must be 0 (no search) or more; got {args.search_deals}")
    rules = preset(args.rules)
    check_workers(args.workers)
    out = claim_folder(args.out) if args.out is not None else None
    total = field_games(args.spec, args.deals, args.search_deals, rules.table_shape.seats)
    with tqdm(total=total, unit="game", desc="field", file=sys.stderr) as bar:
        rows = measure_field(args.spec, args.deals, args.search_deals, args.seed, rules, args.workers, args.chunk,
                             progress=lambda games: bar.update(games - bar.n))
    table = field_markdown(args.spec, rows)
    if out is not None:
        write_atomically(out / "field.md", table + "\n")
        meta = {"version": __version__, "deals": args.deals, "search_deals": args.search_deals, "seed": args.seed,
                "rules": args.rules}
        write_atomically(out / "results.json", json.dumps(field_json(args.spec, rows, meta), indent=1) + "\n")
        print(f"results in {out}", file=sys.stderr)
    print(table)


def export_command(args: argparse.Namespace) -> None:
    from agents.ppo import export_policy

    writable_file(args.out, args.overwrite)  # before the checkpoint is read: fail before the work, not after
    if args.out.exists() and args.out.resolve() == args.checkpoint.resolve():
        raise ValueError(f"{args.out} is the checkpoint to export: writing there would replace it; "
                         "give another file name")
    print(f"{args.out}: {export_policy(args.checkpoint, args.out):,} bytes")


def play_command(args: argparse.Namespace) -> int:
    try:
        play_in_terminal(args.opponents, args.seat, args.seed, preset(args.rules), args.lang)
    except KeyboardInterrupt:  # quit and the end of input end the session inside, with its totals
        print("\nsession interrupted")
        return 1
    return 0


def replay_command(args: argparse.Namespace) -> int:
    try:
        replay_in_terminal(args.file, args.game, args.lang, args.step)
    except OSError as error:
        raise ValueError(f"cannot read {printable(args.file)}: {error.strerror or error}") from None
    except (EOFError, KeyboardInterrupt):  # --step waits for Enter
        print("\nreplay stopped")
        return 1
    return 0


COMMANDS = {  # but sweep and exploit, parsed on their own (see main)
    "evaluate": evaluate_command,
    "tournament": run_tournament,
    "session": lambda args: print(session(args.specs, args.sessions, args.hands, args.target, args.seed, args.rules)),
    "play": play_command,
    "replay": replay_command,
    "belief": lambda args: print(train_belief_model(args.specs, args.games, args.seed, args.rules, args.out,
                                                    args.epochs)),
    "concealment": lambda args: print(concealment_report(args.specs, args.belief, args.games, args.seed, args.rules,
                                                         args.out)),
    "field": field_command,
    "export": export_command,
    "label": label_command,
    "distill": distill_command,
    "serve": serve_command,
}
"""What each subcommand runs, from its parsed arguments: None or 0 for success, else an exit status.
A ValueError is a usage error."""


if __name__ == "__main__":
    sys.exit(main())
