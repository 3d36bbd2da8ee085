"""A training run's config: :class:`Config` (every key, its default and its docstring, which
``train.py --help`` prints), the range of each numeric key (:data:`BOUNDS`), what ``--resume``
may change (:data:`RESUME_OVERRIDES`), and reading a config from YAML files and ``key=value``
overrides, checked before anything is trained or written."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import json
import math
import os
import re
import textwrap
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Optional

import yaml

from agents.ppo import load_checkpoint
from agents.registry import check_spec
from agents.shipped import data_folder, is_plain_name
from briscola_env.observation import SPEC, observation_spec
from briscola_env.rewards import REWARD_MODES
from briscola_env.rules import RulesConfig, resolve_rules, rules_text

@dataclass
class Config:
    exp_name: str = "default"
    """Name of the run; its folder is run_dir/exp_name-seed (so at most 235 bytes: a file name has 255)."""
    seed: int = 1
    """Seeds the deals, the sampling, the opponents and the network."""
    rules: RulesConfig = field(default_factory=RulesConfig)
    """The rules trained under: a preset's name, a rules string (``standard,follow_suit=true,players=4``) or a
    mapping of rules fields (its optional ``preset`` key names the preset they override); read once into a
    RulesConfig, whose every field config.yaml and the checkpoints record."""
    reward: str = "payoff"
    """'payoff' (session points), 'points' or 'win_loss'."""
    num_envs: int = 512
    """Games played at once."""
    num_steps: int = 16
    """Environment steps per rollout (every game makes one decision per step)."""
    total_decisions: int = 3_000_000
    """Training length, in decisions by every seat (learner or not)."""
    hidden_sizes: list = field(default_factory=lambda: [256, 256])
    """Widths of the network's hidden layers."""
    init_from: str = ""
    """A policy or training checkpoint whose network starts the learner (a distilled one: briscola distill),
    with the same hidden_sizes; its belief head, if any, is not taken. Empty: fresh weights. Read when the
    run starts only: --resume takes the weights from the run's checkpoint, so the file may be gone by then."""
    learning_rate: float = 3e-4
    """Adam's step size (annealed by anneal_lr)."""
    anneal_lr: bool = True
    """Anneal the learning rate linearly to 0."""
    gamma: float = 1.0
    """Discount: a hand is short and only its end pays."""
    gae_lambda: float = 0.95
    """GAE's lambda: 1 is the Monte Carlo return, 0 the one-step TD error."""
    update_epochs: int = 4
    """Passes over each rollout's finished decisions per update."""
    num_minibatches: int = 8
    """Minibatches per epoch (fewer if there are fewer decisions)."""
    clip_coef: float = 0.2
    """PPO's clipping of the probability ratio to [1 - clip_coef, 1 + clip_coef] (and of the value, with clip_vloss)."""
    clip_vloss: bool = True
    """Clip the value loss as PPO does the policy's."""
    norm_adv: bool = True
    """Normalise the advantages within each minibatch."""
    ent_coef: float = 0.01
    """Weight of the entropy bonus over the legal actions."""
    demo_coef: float = 1.0
    """Weight of a behaviour-cloning loss pulling the learner's decisions in demo_phases towards the
    demonstrator's (the heuristic's by default), annealed linearly to 0 by demo_until (0 turns it off): a warm
    start, after which PPO alone improves on the demonstration. In the auction it is needed: before the play is
    any good, every contract fails, so passing is learned at once, and a policy that never calls never learns to
    play as caller."""
    demo_until: float = 0.3
    """Share of the training over which the demonstration fades out."""
    demo_phases: list = field(default_factory=lambda: ["auction", "call", "play"])
    """Phases demonstrated: any of auction, call, play."""
    demonstrator: str = "heuristic"
    """Agent spec whose decisions the demonstration clones: the heuristic, or a network whose auction a stage
    should keep while it learns the card play (`ppo:checkpoints/imitation.pt` with demo_phases [auction, call])."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    privileged_critic: bool = False
    """Estimate values with a critic of its own that reads the privileged view (every hand, the partner)
    beside the player's view (training.critic: perfect training, imperfect execution); the policy never
    reads it. False: the value head on the policy's trunk."""
    max_grad_norm: float = 0.5
    """Gradients are clipped to this global norm."""
    belief_coef: float = 0.0
    """Weight of an auxiliary head predicting the partner's seat from the acting player's view,
    supervised from the privileged view, on card-play decisions before the reveal (0: no head)."""
    concealment_coef: float = 0.0
    """Weight of the partner's concealment reward. With an online adversary (adversary_views), the partner's payoff
    becomes payoff - this * (the mean over the defenders' views before the reveal of log(the adversary's
    probability on him, at least 0.01) - log(chance)): training.adversary. Without one, it reads the belief head
    (belief_coef > 0): the partner gets this times the mean, over the learner's caller and defender views before
    the reveal, of (chance - the head's probability on the true partner)."""
    adversary_views: int = 0
    """An online adversary (training.adversary): a partner-belief model fitted while the learner learns on a rolling
    buffer of this many views of the defenders of the learner's recent hands, naming the partner; its accuracy by
    trick goes to TensorBoard (adversary/) and concealment_coef rewards the partner for hiding from it. 0: none;
    otherwise at least one minibatch (512). Standard five-seat rules without monte only, and without rollout
    workers."""
    opponent_share: float = 0.3
    """Share of games in which 1-4 seats are played by the opponent pool."""
    heuristic_share: float = 0.5
    """Of the pool's seats, the share played by the pool's fixed agents, `opponent` and the `league`'s (the rest:
    past snapshots)."""
    opponent: str = "heuristic"
    """Agent spec (as `briscola evaluate` takes) of the pool's fixed agent; --exploit SPEC trains against SPEC alone."""
    league: list = field(default_factory=list)
    """More fixed agents for the pool besides `opponent` (agent specs: the distilled network, exploiters of
    the learner, ...): each fixed seat goes to one of them, the ones the learner beats least the most often
    (prioritised fictitious self-play, AlphaStar's f(x) = (1 - x)^pfsp_power of the learner's win rate
    against each). Empty: `opponent` alone."""
    pfsp_power: float = 2.0
    """The exponent of the league's weighting: 0 draws the fixed agents uniformly; higher, the harder ones more."""
    exploiter_every: int = 0
    """Updates between rolling exploiters (training.exploiters): a copy of the learner trained against it, then
    added to the league's fixed agents. 0: none."""
    exploiter_decisions: int = 1_000_000
    """Training decisions of each rolling exploiter."""
    snapshot_every: int = 20
    """Updates between snapshots of the policy added to the pool."""
    pool_size: int = 5
    """Snapshots kept (the oldest is dropped)."""
    eval_every: int = 25
    """Updates between small duplicate evaluations against random and heuristic."""
    eval_deals: int = 100
    """Deals of each evaluation (every eval_every updates) against random and heuristic."""
    final_eval_deals: int = 500
    """Deals of the final evaluation against random and heuristic (its table is in summary.md)."""
    record_games: bool = False
    """Write the final evaluation's games to games.jsonl in the run folder (briscola replay reads it)."""
    checkpoint_every: int = 25
    """Updates between checkpoints (also written at the end, and on SIGINT or SIGTERM once the update ends)."""
    device: str = "auto"
    """'auto' (CUDA if present), 'cpu' or 'cuda'."""
    torch_threads: int = 1
    """Threads for PyTorch on CPU; 0: PyTorch's own count (every core). One thread slows in proportion to its share
    of the cores beside other jobs; PyTorch's count was 13% faster alone on 2 idle cores but beside four busy
    processes 4.6 times slower than its share predicts: its threads wait on each other while other processes hold
    the cores (BENCHMARKS.md, "On a shared machine"). Rollout workers (below) are the way to use more cores."""
    workers: int = 0
    """Rollout workers (training.rollout_workers): this many Ray actors, each playing its share of the num_envs
    games with its own opponents and a CPU copy of the policy, while this process gathers their trajectories
    and runs the PPO update (synchronous: the same algorithm). A local Ray of `workers` CPUs, or the cluster
    at RAY_ADDRESS (after `ray start`); each worker's PyTorch uses torch_threads threads, or 1. 0: everything in
    this process. Part of the run: the same seed and workers give the same run, and --resume keeps them."""
    run_dir: str = "runs"
    """Folder holding the run folders."""
    stop_after: int = 0
    """Stop, with a checkpoint, after this many updates in this process (0: run to the end);
    --resume continues the same run exactly."""
    overwrite: bool = False
    """Start afresh in a run folder that already holds a run, deleting it (without this, refused)."""


PER_PROCESS = ("stop_after", "overwrite")
"""Keys of one process, not of the run: never saved in its config.yaml."""
RESUME_OVERRIDES = ("total_decisions", "stop_after", "eval_every", "eval_deals", "final_eval_deals",
                    "record_games", "checkpoint_every", "device", "torch_threads")
"""Keys --resume may override: how far to go, evaluation and checkpoint cadence, hardware. The rest
(rules, seed, network, PPO and pool settings, ...) would make the resumed run another one. A new
total_decisions stretches what is left of the learning-rate and demonstration schedules to it."""


@dataclass(frozen=True)
class Bound:
    """The values a numeric config key allows: low <= value <= high (low < value if ``open_low``)."""
    low: float
    high: float = math.inf
    open_low: bool = False

    def admits(self, value) -> bool:
        above = value > self.low if self.open_low else value >= self.low
        return math.isfinite(value) and above and value <= self.high  # NaN fails every comparison

    def __str__(self) -> str:
        low = f"> {self.low}" if self.open_low else f">= {self.low}"
        return low if self.high == math.inf else f"in [{self.low}, {self.high}]"


MAX_TRAINING_SEED = 2**63 - 1  # torch.manual_seed's limit; NumPy's generators take any non-negative int
COUNT, POSITIVE, NON_NEGATIVE, SHARE = Bound(1), Bound(0, open_low=True), Bound(0), Bound(0, 1)
BOUNDS = {
    "seed": Bound(0, MAX_TRAINING_SEED), "num_envs": COUNT, "num_steps": COUNT, "total_decisions": COUNT,
    "learning_rate": POSITIVE, "gamma": SHARE, "gae_lambda": SHARE, "update_epochs": COUNT,
    "num_minibatches": COUNT, "clip_coef": POSITIVE, "ent_coef": NON_NEGATIVE, "demo_coef": NON_NEGATIVE,
    "demo_until": SHARE, "vf_coef": NON_NEGATIVE, "max_grad_norm": POSITIVE, "belief_coef": NON_NEGATIVE,
    "concealment_coef": NON_NEGATIVE, "adversary_views": NON_NEGATIVE, "opponent_share": SHARE,
    "heuristic_share": SHARE,
    "snapshot_every": COUNT, "pool_size": COUNT, "eval_every": COUNT, "eval_deals": COUNT,
    "final_eval_deals": COUNT, "checkpoint_every": COUNT, "torch_threads": NON_NEGATIVE,
    "stop_after": NON_NEGATIVE, "pfsp_power": NON_NEGATIVE, "exploiter_every": NON_NEGATIVE,
    "exploiter_decisions": COUNT, "workers": NON_NEGATIVE,
}
"""The range of every numeric config key (every int and float field of Config is here)."""
DEVICES = ("auto", "cpu", "cuda")
ADVERSARY_BATCH = 512
"""Views in one of the online adversary's minibatches (:mod:`training.adversary`); its buffer holds at least one."""
MAX_EXP_NAME = 235
"""The longest exp_name, in bytes: a file name has at most 255, and run_dir holds exp_name-seed (a seed has
up to 19 digits: 20 bytes more) and a sweep's exp_name-sweep.json, written through exp_name-sweep.json.tmp
(15 more)."""
EXPONENT_FLOAT = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)[eE][-+]?\d+")
"""A number in exponent notation (``1e-4``, ``3E-4``, ``1.5e2``), which YAML 1.1 reads as text unless it
has a dot and a signed exponent: a float key takes it as the float it means."""


def parse_yaml(text: str, where: str):
    """``text`` as YAML; a syntax error is a one-line ValueError naming ``where`` and the place."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        place = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or " ".join(str(error).split())
        raise ValueError(f"{where}: not valid YAML{place}: {problem}") from None


def read_mapping(path) -> dict:
    """A YAML file of config keys; an unreadable, empty or malformed one is an error naming it."""
    try:
        values = parse_yaml(Path(path).read_text(), str(path))
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read {path}: {error}") from None
    if not isinstance(values, dict):
        found = "it is empty" if values is None else f"it holds a {type(values).__name__}"
        raise ValueError(f"{path}: expected a mapping of config keys; {found}")
    return values


def parse_overrides(overrides: list[str]) -> dict:
    values = {}
    for item in overrides:
        key, sep, text = item.partition("=")
        if not sep:
            raise ValueError(f"override {item!r} is not key=value")
        values[key] = parse_yaml(text, f"override {item!r}")
    return values


def make_config(values: dict) -> Config:
    """The default config updated by ``values``, checked whole by :func:`check_config`. An unknown key or a
    value of the wrong type is an error naming it.
    A float key also takes a number in exponent notation that YAML 1.1 (PyYAML) reads as text, such as
    ``3e-4`` (:data:`EXPONENT_FLOAT`)."""
    known = {f.name: f for f in fields(Config)}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ValueError(f"unknown config key(s) {unknown}; known keys: {', '.join(known)}")
    config = Config()
    for key, value in values.items():
        if key == "rules":
            try:
                if value is None:
                    raise ValueError("give a preset's name, a rules string or a mapping of rules fields")
                config.rules = resolve_rules(value)
            except ValueError as error:
                raise ValueError(f"config key 'rules': {error}") from None
            continue
        expected = type(getattr(config, key))
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        elif expected is float and isinstance(value, str) and EXPONENT_FLOAT.fullmatch(value.strip()):
            value = float(value)
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ValueError(f"config key {key!r} must be {expected.__name__}; got {value!r}")
        setattr(config, key, value)
    check_config(config)
    return config


def check_config(config: Config) -> None:
    """Every value in its range and the keys consistent with each other, or a ValueError naming the key.
    The agent specs (opponent, demonstrator, league) are checked by parsing them, and init_from not at all: what
    is built from them is built once, by the trainer (:class:`training.trainer.Trainer`), which names the key of
    one that does not build; train.py builds it before it writes anything."""
    for key, bound in BOUNDS.items():
        value = getattr(config, key)
        if not bound.admits(value):
            raise ValueError(f"config key {key!r} must be {bound}; got {value!r}")
    if not isinstance(config.rules, RulesConfig):
        raise ValueError(f"config key 'rules' must be a RulesConfig; got {config.rules!r}")
    for key in ("opponent", "demonstrator"):
        try:
            check_spec(getattr(config, key))
        except ValueError as error:
            raise ValueError(f"config key {key!r} must be an agent spec: {error}") from None
    if not all(isinstance(spec, str) for spec in config.league):
        raise ValueError(f"config key 'league' must list agent specs; got {config.league!r}")
    for spec in config.league:
        try:
            check_spec(spec)
        except ValueError as error:
            raise ValueError(f"config key 'league': {spec!r} is not an agent spec: {error}") from None
    if config.reward not in REWARD_MODES:
        raise ValueError(f"config key 'reward' must be one of {', '.join(REWARD_MODES)}; got {config.reward!r}")
    if config.device not in DEVICES:
        raise ValueError(f"config key 'device' must be one of {', '.join(DEVICES)}; got {config.device!r}")
    if not config.exp_name or Path(config.exp_name).name != config.exp_name or config.exp_name in (".", ".."):
        raise ValueError(f"config key 'exp_name' must be a plain folder name (no '/'); got {config.exp_name!r}")
    if len(os.fsencode(config.exp_name)) > MAX_EXP_NAME:
        raise ValueError(f"config key 'exp_name' must be at most {MAX_EXP_NAME} bytes long (it names the run's "
                         f"folder, exp_name-seed); got one of {len(os.fsencode(config.exp_name))} bytes")
    if not config.run_dir:
        raise ValueError("config key 'run_dir' must name a folder; got ''")
    if not config.hidden_sizes or not all(type(size) is int and size > 0 for size in config.hidden_sizes):
        raise ValueError(f"config key 'hidden_sizes' must list one or more positive integers; "
                         f"got {config.hidden_sizes!r}")
    if config.workers > config.num_envs:
        raise ValueError(f"config key 'workers' must be at most num_envs ({config.num_envs}): each rollout worker "
                         f"plays a share of the games; got {config.workers}")
    check_partner_keys(config)
    unknown = [p for p in config.demo_phases if p not in ("auction", "call", "play")]
    if unknown:
        raise ValueError(f"config key 'demo_phases': unknown phase(s) {unknown}; use auction, call, play")


def check_partner_keys(config: Config) -> None:
    """The concealment reward has an observer to hide from, and the online adversary can run."""
    if config.concealment_coef and not (config.belief_coef or config.adversary_views):
        raise ValueError("config key 'concealment_coef' needs someone to hide from: set adversary_views > 0 (an "
                         "online adversary) or belief_coef > 0 (the belief head)")
    if config.adversary_views and config.workers:
        raise ValueError("config key 'adversary_views' cannot be used with rollout workers yet: set workers=0")
    if config.adversary_views and config.adversary_views < ADVERSARY_BATCH:
        raise ValueError(f"config key 'adversary_views' is {config.adversary_views}: the adversary fits on "
                         f"minibatches of {ADVERSARY_BATCH} views, so its buffer holds at least that many "
                         "(0: no adversary)")
    if config.adversary_views and observation_spec(config.rules).sections != SPEC.sections:
        raise ValueError("config key 'adversary_views': the adversary reads the standard table's view (five seats, "
                         "8 cards, no monte); these rules have another")


def config_values(config: Config) -> dict:
    """The config as plain values, as config.yaml and the checkpoints save it (the rules as every field:
    :meth:`briscola_env.rules.RulesConfig.to_dict`); :func:`make_config` reads it back."""
    return {**dataclasses.asdict(config), "rules": config.rules.to_dict()}


CONFIGS_PACKAGE = "briscola_configs"
"""The data package of the configs that ship with the package (the repository's configs/ folder)."""


def shipped_configs() -> list[str]:
    """The names of the configs this installation ships (``default``, ``tiny``, ...), sorted."""
    folder = data_folder(CONFIGS_PACKAGE)
    return sorted(path.stem for path in folder.glob("*.yaml")) if folder is not None else []


def config_file(path: str) -> Path:
    """The YAML file ``path`` names: the path itself when that file exists or it is no name (it has a folder
    or a suffix), else the shipped config of that name (``tiny`` is configs/tiny.yaml, in a clone or an
    installed wheel alike); a ValueError listing the shipped names for a name that is neither."""
    if Path(path).exists() or not is_plain_name(path):
        return Path(path)
    folder = data_folder(CONFIGS_PACKAGE)
    if folder is None or not (folder / f"{path}.yaml").is_file():
        raise ValueError(f"no config file {path}, and no shipped config of that name; shipped configs: "
                         f"{', '.join(shipped_configs()) or 'none'} (or give a YAML file's path)")
    return folder / f"{path}.yaml"


def load_config(path: Optional[str], overrides: list[str]) -> Config:
    """The default config, updated by a YAML file (a path, or a shipped config's name: :func:`config_file`),
    then by key=value overrides."""
    return make_config({**(read_mapping(config_file(path)) if path else {}), **parse_overrides(overrides)})


def resume_config(run: Path, overrides: list[str]) -> Config:
    """The config saved in a run folder, with only the :data:`RESUME_OVERRIDES` overridden."""
    if run.is_file():
        load_checkpoint(run, training=True)  # a file that is no training checkpoint: the error says what it is
        raise ValueError(f"--resume takes a run folder, not a file: {run} is a training checkpoint; "
                         f"resume its folder, {run.parent}")
    if not (run / "config.yaml").is_file():
        raise ValueError(f"{run} is not a run folder of train.py: it has no config.yaml")
    saved = read_mapping(run / "config.yaml")
    for extra in ("version", "git_commit", *PER_PROCESS):  # not part of the run itself
        saved.pop(extra, None)
    changes = parse_overrides(overrides)
    refused = [key for key in changes if key not in RESUME_OVERRIDES]
    if refused:
        raise ValueError(f"--resume cannot change {', '.join(map(repr, refused))}: it would make the run "
                         f"another one; a resumed run may override only {', '.join(RESUME_OVERRIDES)}")
    return make_config({**saved, **changes})




def config_docs() -> dict[str, str]:
    """Each documented field of :class:`Config` by name: its docstring (the string literal after it), on one line."""
    statements = ast.parse(textwrap.dedent(inspect.getsource(Config))).body[0].body
    return {field_.target.id: " ".join(doc.value.value.split())
            for field_, doc in itertools.pairwise(statements)
            if isinstance(field_, ast.AnnAssign) and isinstance(doc, ast.Expr)
            and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str)}


def config_help() -> str:
    """Every config key with its type, default, range and docstring, read from :class:`Config` itself."""
    docs, defaults = config_docs(), {**config_values(Config()), "rules": rules_text(Config().rules)}
    lines = ["config keys, as key=VALUE after the options or in the --config file (VALUE is YAML); the defaults",
             "are Config's, which the shipped config default (configs/default.yaml, read when --config is not",
             "given) partly overrides:"]
    for field_ in fields(Config):  # the type is its annotation's text (annotations are postponed here)
        key = field_.name
        notes = [field_.type, f"default {json.dumps(defaults[key])}"]
        if key in BOUNDS:
            notes.append(str(BOUNDS[key]))
        if key in RESUME_OVERRIDES:
            notes.append("--resume may override")
        lines.append(f"  {key}=VALUE  ({', '.join(notes)})")
        lines += textwrap.wrap(docs.get(key, ""), width=96, initial_indent=" " * 6, subsequent_indent=" " * 6)
    return "\n".join(lines)
