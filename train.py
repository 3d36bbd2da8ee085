"""PPO self-play for Briscola Chiamata: one policy for all five seats learns the
auction, the call and the play.

    python train.py                                   # configs/default.yaml
    python train.py --config configs/tiny.yaml num_envs=16 seed=3
    python train.py --resume runs/default-1           # continue exactly where it stopped
    python train.py --resume runs/default-1 total_decisions=6000000 eval_every=50

A run lives in its folder, run_dir/exp_name-seed: config.yaml (the resolved config),
checkpoint.pt, TensorBoard events, and at the end summary.md (written last) and, with
record_games, games.jsonl. A folder that already holds a run is refused (overwrite=true
replaces it), and a trainer locks its folder (train.lock) while it runs. --resume may change
only what cannot change the run (RESUME_OVERRIDES: how far to go, evaluation and checkpoint
cadence, device, threads); resuming a finished run says so and does nothing. SIGINT (Ctrl-C)
and SIGTERM stop at the end of the current update with a checkpoint, so that --resume then
equals an uninterrupted run; a second signal stops at once. A kill (kill -9) loses the work since
the last checkpoint: --resume does it again, and TensorBoard shows its scalars once (purge_step).

checkpoint.pt holds what resumes the run exactly, and nothing else: the network, Adam's moments,
the games in progress (engine state and records), the trajectory storage's slots in use (the
learner's decisions in hands not yet ended; the views' 0/1 entries and the masks as bits), the
opponent pool's snapshots (up to pool_size; one taken at the checkpoint's update is the network
itself, saved once), the seats' owners and every random generator's state. For the default
config that is 7 MB after the first update and about 23 MB once the pool is full (it was 186 MB
before, with every slot of the storage: BENCHMARKS.md, "Checkpoint size"). To play or ship a
network alone (2 MB for the default config), `briscola export` writes just that.

Reads top to bottom: config, seeding, environment and opponents, agent,
rollout, update, logging, checkpoint, evaluation. PPO follows CleanRL's
reference (clipped objective, GAE, optional value clipping, advantage
normalisation, gradient clipping, learning-rate annealing), adapted to five
seats taking turns: each learner seat's decisions in a hand form its own
trajectory, which is completed, with the hand's payoff on its last decision,
when the hand ends; then its GAE is exact. In a configurable share of games
some seats are played by past snapshots of the policy or by the heuristic
agent; only the learner's seats produce training data.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import dataclasses
import fcntl
import inspect
import itertools
import json
import math
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Optional

import numpy as np
import torch
import yaml
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

import briscola_env
from agents import HeuristicAgent, RandomAgent
from agents.ppo import PolicyValueNet, PPOAgent, entropy, load_checkpoint, sample_actions, save_checkpoint
from briscola_env import BatchedEnv, preset, records
from briscola_env.actions import MIN_POINTS, NUM_ACTIONS, POINT_BID_OFFSET
from briscola_env.cards import NUM_SEATS, NUM_TRICKS
from briscola_env.engine import PHASE_NAMES, PLAY
from briscola_env.files import replace_atomically, write_atomically
from briscola_env.observation import SPEC
from briscola_env.rewards import REWARD_MODES
from briscola_env.seeds import seed_sequence
from evaluation import evaluate_pair
from evaluation.report import edges_table


# ----------------------------------------------------------------------------- config
@dataclass
class Config:
    exp_name: str = "default"
    """Name of the run; its folder is run_dir/exp_name-seed."""
    seed: int = 1
    """Seeds the deals, the sampling, the opponents and the network."""
    rules: str = "standard"
    """Rules preset (briscola_env.PRESETS)."""
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
    """Weight of a behaviour-cloning loss pulling the learner's decisions in demo_phases towards
    the heuristic agent's, annealed linearly to 0 by demo_until (0 turns it off): a warm start,
    after which PPO alone improves on the demonstration. In the auction it is needed: before
    the play is any good, every contract fails, so passing is learned at once, and a policy that
    never calls never learns to play as caller."""
    demo_until: float = 0.3
    """Share of the training over which the demonstration fades out."""
    demo_phases: list = field(default_factory=lambda: ["auction", "call", "play"])
    """Phases demonstrated: any of auction, call, play."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradients are clipped to this global norm."""
    belief_coef: float = 0.0
    """Weight of an auxiliary head predicting the partner's seat from the acting player's view,
    supervised from the privileged view, on card-play decisions before the reveal (0: no head)."""
    concealment_coef: float = 0.0
    """Weight of the partner's concealment reward: at the hand's end the partner gets this times
    the mean, over the learner's caller and defender views before the reveal, of (chance - the
    belief head's probability on the true partner). Needs belief_coef > 0."""
    opponent_share: float = 0.3
    """Share of games in which 1-4 seats are played by the opponent pool."""
    heuristic_share: float = 0.5
    """Of the pool's seats, the share played by the heuristic agent (the rest: past snapshots)."""
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
    torch_threads: int = 0
    """Threads for PyTorch on CPU (0: its default)."""
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
    "concealment_coef": NON_NEGATIVE, "opponent_share": SHARE, "heuristic_share": SHARE,
    "snapshot_every": COUNT, "pool_size": COUNT, "eval_every": COUNT, "eval_deals": COUNT,
    "final_eval_deals": COUNT, "checkpoint_every": COUNT, "torch_threads": NON_NEGATIVE,
    "stop_after": NON_NEGATIVE,
}
"""The range of every numeric config key (every int and float field of Config is here)."""
DEVICES = ("auto", "cpu", "cuda")


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
    """The default config updated by ``values``, checked whole by :func:`check_config`.
    An unknown key or a value of the wrong type is an error naming it."""
    known = {f.name: f for f in fields(Config)}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ValueError(f"unknown config key(s) {unknown}; known keys: {', '.join(known)}")
    config = Config()
    for key, value in values.items():
        expected = type(getattr(config, key))
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise ValueError(f"config key {key!r} must be {expected.__name__}; got {value!r}")
        setattr(config, key, value)
    check_config(config)
    return config


def check_config(config: Config) -> None:
    """Every value in its range and the keys consistent with each other, or a ValueError naming the key."""
    for key, bound in BOUNDS.items():
        value = getattr(config, key)
        if not bound.admits(value):
            raise ValueError(f"config key {key!r} must be {bound}; got {value!r}")
    preset(config.rules)  # checks the preset name
    if config.reward not in REWARD_MODES:
        raise ValueError(f"config key 'reward' must be one of {', '.join(REWARD_MODES)}; got {config.reward!r}")
    if config.device not in DEVICES:
        raise ValueError(f"config key 'device' must be one of {', '.join(DEVICES)}; got {config.device!r}")
    if not config.exp_name or Path(config.exp_name).name != config.exp_name or config.exp_name in (".", ".."):
        raise ValueError(f"config key 'exp_name' must be a plain folder name (no '/'); got {config.exp_name!r}")
    if not config.run_dir:
        raise ValueError("config key 'run_dir' must name a folder; got ''")
    if not config.hidden_sizes or not all(type(size) is int and size > 0 for size in config.hidden_sizes):
        raise ValueError(f"config key 'hidden_sizes' must list one or more positive integers; "
                         f"got {config.hidden_sizes!r}")
    if config.concealment_coef and not config.belief_coef:
        raise ValueError("config key 'concealment_coef' needs the belief head: set belief_coef > 0")
    unknown = [p for p in config.demo_phases if p not in ("auction", "call", "play")]
    if unknown:
        raise ValueError(f"config key 'demo_phases': unknown phase(s) {unknown}; use auction, call, play")


def load_config(path: Optional[str], overrides: list[str]) -> Config:
    """The default config, updated by a YAML file, then by key=value overrides."""
    return make_config({**(read_mapping(path) if path else {}), **parse_overrides(overrides)})


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


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# ----------------------------------------------------------------------------- storage
VIEW_BITS = np.flatnonzero(SPEC.high == 1)  # the view's flags and one-hot entries: 0 or 1, saved as bits
VIEW_COUNTS = np.flatnonzero(SPEC.high > 1)  # its raw counts (points, tricks): saved as bytes


class Trajectories:
    """Learner decisions, kept until their hand ends; then their advantages are computed
    and they are ready for an update. A ring of ``capacity`` slots; every step's decisions
    and every step's ended hands are handled at once, without a loop over games."""

    FIELDS = ("obs", "mask", "action", "logprob", "value", "advantage", "ret", "demo", "partner",
              "game", "seat", "time", "in_use", "open", "ready")

    def __init__(self, capacity: int, num_games: int):
        self.capacity, self.num_games = capacity, num_games
        self.obs = np.zeros((capacity, SPEC.size), dtype=np.uint8)
        self.mask = np.zeros((capacity, NUM_ACTIONS), dtype=bool)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.logprob = np.zeros(capacity, dtype=np.float32)
        self.value = np.zeros(capacity, dtype=np.float32)
        self.advantage = np.zeros(capacity, dtype=np.float32)
        self.ret = np.zeros(capacity, dtype=np.float32)
        self.demo = np.full(capacity, -1, dtype=np.int64)  # the heuristic's action in a demo phase, else -1
        self.partner = np.full(capacity, -1, dtype=np.int64)  # belief target: partner's relative seat, else -1
        self.game = np.zeros(capacity, dtype=np.int64)
        self.seat = np.zeros(capacity, dtype=np.int64)
        self.time = np.zeros(capacity, dtype=np.int64)  # when the decision was made (orders a trajectory)
        self.in_use = np.zeros(capacity, dtype=bool)
        self.open = np.zeros(capacity, dtype=bool)  # its hand has not ended yet
        self.ready = np.zeros(capacity, dtype=bool)  # completed, waiting for the next update
        self.next = self.clock = 0

    def add(self, games, seats, obs, mask, action, logprob, value, demo, partner) -> None:
        at = (self.next + np.arange(len(games))) % self.capacity
        if self.in_use[at].any():
            raise RuntimeError("trajectory storage full: raise its capacity")
        self.next = int((self.next + len(games)) % self.capacity)
        self.in_use[at] = self.open[at] = True
        self.obs[at], self.mask[at], self.action[at] = obs, mask, action
        self.logprob[at], self.value[at], self.demo[at], self.partner[at] = logprob, value, demo, partner
        self.game[at], self.seat[at], self.time[at] = games, seats, self.clock
        self.clock += 1

    def finish(self, games: np.ndarray, rewards: np.ndarray, gamma: float, lam: float) -> None:
        """The hands in ``games`` ended with ``rewards`` (num_games, 5): each learner seat's
        trajectory in them gets its GAE, with the payoff on its last decision."""
        ended = np.zeros(self.num_games, dtype=bool)
        ended[games] = True
        ids = np.flatnonzero(self.open & ended[self.game])
        if not len(ids):
            return
        ids = ids[np.lexsort((self.time[ids], self.seat[ids], self.game[ids]))]  # trajectory by trajectory
        trajectory = self.game[ids] * NUM_SEATS + self.seat[ids]
        last = np.append(trajectory[1:] != trajectory[:-1], True)  # each trajectory's last decision
        values = self.value[ids]
        following = np.where(last, 0.0, np.append(values[1:], 0.0))  # no value after the last decision
        deltas = gamma * following - values + np.where(last, rewards[self.game[ids], self.seat[ids]], 0.0)
        # GAE backwards from each trajectory's end, all trajectories at once.
        ends = np.flatnonzero(last)
        to_end = ends[np.searchsorted(ends, np.arange(len(ids)))] - np.arange(len(ids))
        advantage = np.zeros(len(ids), dtype=np.float64)
        for distance in range(int(to_end.max()) + 1):
            rows = np.flatnonzero(to_end == distance)
            advantage[rows] = deltas[rows] + (gamma * lam * advantage[rows + 1] if distance else 0.0)
        self.advantage[ids] = advantage
        self.ret[ids] = advantage + values
        self.open[ids], self.ready[ids] = False, True

    def take_ready(self) -> np.ndarray:
        ids = np.flatnonzero(self.ready)
        self.ready[ids] = self.in_use[ids] = False
        return ids

    def state_dict(self) -> dict:
        """What resumes the storage exactly: the slots in use (``rows``), field by field, and the ring's
        position. A free slot is rewritten by :meth:`add` (and :meth:`finish`, for its advantage and
        return) before anything reads it, so it is left out: at an update boundary only the open
        trajectories of hands in progress are in use (an eighth to a fifth of the capacity in the
        default config). The views' 0/1 entries and the masks are packed as bits."""
        rows = np.flatnonzero(self.in_use)
        saved = {name: getattr(self, name)[rows] for name in self.FIELDS if name != "in_use"}
        obs = saved["obs"]
        if obs[:, VIEW_BITS].max(initial=0) > 1:
            raise RuntimeError("an observation entry that SPEC.high says is 0 or 1 holds more: "
                               "it cannot be saved as a bit")
        saved["obs"] = {"bits": np.packbits(obs[:, VIEW_BITS], axis=1), "counts": obs[:, VIEW_COUNTS]}
        saved["mask"] = np.packbits(saved["mask"], axis=1)
        return saved | {"rows": rows, "next": self.next, "clock": self.clock}

    def load_state_dict(self, saved: dict) -> None:
        """Restore :meth:`state_dict`'s slots in use; every other slot is free."""
        expected = [name for name in self.FIELDS if name != "in_use"] + ["rows", "next", "clock"]
        missing = [name for name in expected if name not in saved]
        if missing:
            raise ValueError(f"the checkpoint's trajectory storage lacks {missing}: it was written by an "
                             "older train.py, whose runs cannot be resumed by this one")
        rows = saved["rows"]
        obs = np.empty((len(rows), SPEC.size), dtype=np.uint8)
        obs[:, VIEW_BITS] = np.unpackbits(saved["obs"]["bits"], axis=1, count=len(VIEW_BITS))
        obs[:, VIEW_COUNTS] = saved["obs"]["counts"]
        self.in_use[:] = self.open[:] = self.ready[:] = False
        self.in_use[rows] = True
        self.obs[rows] = obs
        self.mask[rows] = np.unpackbits(saved["mask"], axis=1, count=NUM_ACTIONS)
        for name in self.FIELDS:
            if name not in ("obs", "mask", "in_use"):
                getattr(self, name)[rows] = saved[name]
        self.next, self.clock = saved["next"], saved["clock"]


def belief_targets(state, out, rows: np.ndarray) -> np.ndarray:
    """The belief head's target for the decisions ``rows``: the partner's seat relative to the
    player to act (his own if he is the partner, or the solo caller), on card-play decisions
    before the called card is played; -1 elsewhere. From the privileged state: training only."""
    partner = state.hidden.partner[rows].astype(np.int64)
    hidden = SPEC.view(out.obs[rows], "partner_revealed")[:, 0] == 0
    asked = (state.phase[rows] == PLAY) & (partner >= 0) & hidden
    return np.where(asked, (partner - out.seat[rows]) % NUM_SEATS, -1)


class BeliefTracker:
    """The belief head's accuracy by trick, for TensorBoard, and the concealment reward: per
    game, the running sum over the learner's caller and defender views before the reveal of
    (chance - the head's probability on the true partner). The partner's own views are left
    out: he knows."""

    CHANCE = 0.25

    def __init__(self, num_envs: int):
        self.sums = np.zeros((num_envs, 2))  # per game: sum of (chance - p_true), number of views
        self.hits = np.zeros((NUM_TRICKS, 2))  # per trick: right guesses, views (since the last log)
        self.scores = []  # per finished hand with a partner: its mean (chance - p_true)

    def observe(self, state, rows: np.ndarray, partner: np.ndarray, probabilities: np.ndarray) -> None:
        outsider = np.flatnonzero((partner >= 0) & (state.current_player[rows] != state.hidden.partner[rows]))
        target = partner[outsider]
        p_true = probabilities[outsider, target]
        np.add.at(self.hits, (state.trick_index[rows[outsider]].astype(np.int64), 0),
                  probabilities[outsider].argmax(axis=1) == target)
        np.add.at(self.hits, (state.trick_index[rows[outsider]].astype(np.int64), 1), 1)
        np.add.at(self.sums, (rows[outsider], 0), self.CHANCE - p_true)
        np.add.at(self.sums, (rows[outsider], 1), 1)

    def finish_hands(self, rewards: np.ndarray, ended: np.ndarray, info: dict, coef: float) -> None:
        """Add the concealment reward to the partner's payoff in the hands that ended (if ``coef``)."""
        caller, partner = info["caller"][ended], info["partner"][ended].astype(np.int64)
        total, views = self.sums[ended, 0], self.sums[ended, 1]
        paid = (caller >= 0) & (partner != caller) & (views > 0)
        score = total[paid] / views[paid]
        if coef:
            rewards[ended[paid], partner[paid]] += coef * score
        self.scores.extend(score.tolist())
        self.sums[ended] = 0

    def log(self, writer, step: int) -> None:
        for trick in np.flatnonzero(self.hits[:, 1]):
            writer.add_scalar(f"belief/accuracy_by_trick/trick_{trick + 1}",
                              self.hits[trick, 0] / self.hits[trick, 1], step)
        if self.scores:  # how well the partners hid from the head (the reward, before its coefficient)
            writer.add_scalar("concealment/hiding_score", float(np.mean(self.scores)), step)
        self.hits[:], self.scores = 0, []

    def state_dict(self) -> dict:
        return {"sums": self.sums}

    def load_state_dict(self, saved: dict) -> None:
        self.sums[...] = saved["sums"]


TRAINER_FORMAT = 2
"""Layout of a training checkpoint's trainer state. 2: the storage's slots in use, with bits packed, and
each snapshot once; 1 (unmarked): every slot of the storage, 186 MB for the default config."""


def pack(obj):
    """NumPy arrays inside ``obj`` as tensors (checkpoints hold only tensors and plain values)."""
    if isinstance(obj, np.ndarray):
        return {"__array__": str(obj.dtype), "shape": list(obj.shape),
                "bytes": torch.from_numpy(np.ascontiguousarray(obj).view(np.uint8).reshape(-1).copy())}
    if isinstance(obj, dict):
        return {key: pack(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [pack(value) for value in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


def same_weights(one: torch.nn.Module, other: torch.nn.Module) -> bool:
    """The two networks hold the same weights, bit for bit (wherever they are)."""
    mine, theirs = one.state_dict(), other.state_dict()
    return mine.keys() == theirs.keys() and all(torch.equal(mine[name].cpu(), theirs[name].cpu()) for name in mine)


def unpack(obj):
    if isinstance(obj, dict) and "__array__" in obj:
        return obj["bytes"].numpy().view(np.dtype(obj["__array__"])).reshape(obj["shape"]).copy()
    if isinstance(obj, dict):
        return {key: unpack(value) for key, value in obj.items()}
    if isinstance(obj, list):
        return [unpack(value) for value in obj]
    return obj


# ----------------------------------------------------------------------------- run folder and signals
LOCK_FILE = "train.lock"


class RunError(ValueError):
    """A run that cannot start as asked: its folder taken, in use or not resumable, or its device missing."""


class Interrupted(Exception):
    """Training stopped on SIGINT or SIGTERM, with a checkpoint at an update boundary."""

    def __init__(self, signum: int, message: str):
        super().__init__(message)
        self.signum = signum


class StopSignals:
    """SIGINT (Ctrl-C) and SIGTERM (kill, schedulers) while training are noted and acted on at the
    next update boundary: a checkpoint taken mid-rollout would hold half-made trajectories and a
    rollout's worth of decisions that the resumed run would not repeat. A second signal stops at
    once (KeyboardInterrupt), leaving the last checkpoint as it was; so does the first, once
    ``at_once`` is set (for work after training, whose files are written whole or not at all)."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.received: Optional[int] = None
        self.at_once = False
        self.previous = {}

    def __enter__(self) -> "StopSignals":
        if threading.current_thread() is threading.main_thread():  # only the main thread may set handlers
            self.previous = {signum: signal.signal(signum, self.note) for signum in self.SIGNALS}
        return self

    def __exit__(self, *exc) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        self.previous = {}

    def note(self, signum, frame) -> None:
        if self.received is not None or self.at_once:
            raise KeyboardInterrupt
        self.received = signum


@contextlib.contextmanager
def run_lock(run: Path):
    """Hold an exclusive lock on the run folder for the run's duration, so that two trainers never
    share one (they would race on checkpoint.pt). flock: the system releases it however we end."""
    with open(run / LOCK_FILE, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunError(f"{run} is in use by another train.py (it holds {run / LOCK_FILE}); "
                                 "wait for it to end, or train in another folder") from None
        yield


def run_contents(run: Path) -> list[Path]:
    """What a run folder holds besides its lock file (nothing if it does not exist)."""
    if run.exists() and not run.is_dir():
        raise RunError(f"{run} is a file, not a run folder")
    return [path for path in run.iterdir() if path.name != LOCK_FILE] if run.exists() else []


def check_trainer_format(payload: dict, path: Path) -> None:
    """The checkpoint's trainer state is in the layout this train.py resumes (:data:`TRAINER_FORMAT`)."""
    found = payload["trainer"].get("format", 1) if isinstance(payload["trainer"], dict) else None
    if found != TRAINER_FORMAT:
        writer = "an older train.py, which saved every storage slot" if found == 1 else "another train.py"
        raise RunError(f"{path} holds trainer state of format {found!r}, written by {writer}; this train.py "
                       f"resumes format {TRAINER_FORMAT} only: resume it with the version that wrote it, "
                       "or start afresh (overwrite=true)")


def check_checkpoint_matches(payload: dict, config: Config, path: Path) -> None:
    """The checkpoint was written by the run its folder's config.yaml describes."""
    theirs = payload.get("config", {})
    fixed = [key for key, value in dataclasses.asdict(config).items()
             if key not in (*RESUME_OVERRIDES, *PER_PROCESS, "run_dir") and key in theirs and theirs[key] != value]
    if fixed:
        raise RunError(f"{path} was written by another run than its folder's config.yaml describes "
                             f"(they differ in {', '.join(fixed)}); it cannot be resumed as this run")


def training_device(name: str) -> torch.device:
    if name == "cuda" and not torch.cuda.is_available():
        raise RunError("config key 'device' is 'cuda', but PyTorch sees no CUDA device here")
    return torch.device("cuda" if name == "auto" and torch.cuda.is_available() else "cpu" if name == "auto" else name)


# ----------------------------------------------------------------------------- training
def train(config: Config, resume: Optional[Path] = None) -> Path:
    """Train a new run in run_dir/exp_name-seed, or continue the run folder ``resume``; returns
    the folder. Everything is checked before a file is written: a folder that already holds a run
    is refused (unless ``overwrite``), and one a trainer is using always is. SIGINT and SIGTERM
    stop at the next update boundary with a checkpoint, raising :class:`Interrupted`. A new run
    that ends before its first checkpoint leaves no folder behind."""
    check_config(config)
    device = training_device(config.device)
    run = Path(config.run_dir) / f"{config.exp_name}-{config.seed}" if resume is None else Path(resume)
    payload = None
    if resume is not None:
        try:
            payload = load_checkpoint(run / "checkpoint.pt", training=True)
        except ValueError as error:
            raise RunError(str(error)) from None
        check_trainer_format(payload, run / "checkpoint.pt")
        check_checkpoint_matches(payload, config, run / "checkpoint.pt")
    elif run_contents(run) and not config.overwrite:
        raise RunError(f"{run} already holds a run: resume it (python train.py --resume {run}), "
                             "choose another exp_name, seed or run_dir, or replace it with overwrite=true")
    with StopSignals() as stop:
        run.mkdir(parents=True, exist_ok=True)
        with run_lock(run):
            try:
                if resume is None:
                    start_run_folder(run, config)
                return run_training(config, run, payload, device, stop)
            except BaseException:
                if resume is None and not (run / "checkpoint.pt").exists():
                    shutil.rmtree(run, ignore_errors=True)  # nothing to resume: leave nothing behind
                raise


def start_run_folder(run: Path, config: Config) -> None:
    """Empty the folder (``overwrite``: checked before) and save the run's resolved config."""
    for path in run_contents(run):
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    values = {key: value for key, value in dataclasses.asdict(config).items() if key not in PER_PROCESS}
    write_atomically(run / "config.yaml", yaml.safe_dump(
        {**values, "version": briscola_env.__version__, "git_commit": git_commit()}))


def save_resumed_config(run: Path, config: Config) -> None:
    """Keep config.yaml the run's own after a resume with overrides (how far, cadence, hardware),
    so that the next resume goes on with them."""
    saved = read_mapping(run / "config.yaml")
    values = {**saved, **{key: value for key, value in dataclasses.asdict(config).items() if key not in PER_PROCESS}}
    if values != saved:
        write_atomically(run / "config.yaml", yaml.safe_dump(values))


def run_training(config: Config, run: Path, payload: Optional[dict], device: torch.device,
                 stop: StopSignals) -> Path:
    # Seeding: every random source comes from the config's seed.
    rng = np.random.default_rng(config.seed)
    torch.manual_seed(config.seed)
    sampler = torch.Generator().manual_seed(config.seed)
    if config.torch_threads:
        torch.set_num_threads(config.torch_threads)

    # Environment and opponents: owner[g, s] = 0 learner, 1 heuristic, 2 + k snapshot k.
    rules = preset(config.rules)
    # Deals from a stream of their own (briscola_env.seeds), drawn apart from every evaluation's, whatever its seed.
    env = BatchedEnv(config.num_envs, rules, seed=seed_sequence("train-env", config.seed), reward=config.reward)
    out = env.reset()
    heuristic = HeuristicAgent(rules, seed=config.seed)
    demo_phases = [PHASE_NAMES.index(name) for name in config.demo_phases]
    owner = np.zeros((config.num_envs, NUM_SEATS), dtype=np.int64)
    pool: list[PolicyValueNet] = []

    def assign_seats(games: np.ndarray) -> None:
        owner[games] = 0
        for g in games[rng.random(len(games)) < config.opponent_share]:
            seats = rng.choice(NUM_SEATS, size=rng.integers(1, NUM_SEATS), replace=False)
            for s in seats:
                use_snapshot = pool and rng.random() >= config.heuristic_share
                owner[g, s] = 2 + int(rng.integers(len(pool))) if use_snapshot else 1

    assign_seats(np.arange(config.num_envs))

    # Agent.
    net = PolicyValueNet(config.hidden_sizes, belief=config.belief_coef > 0).to(device)
    # fused: one kernel for the whole step (PyTorch 2.4+ on CPU), 6x faster than the default here
    optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate, eps=1e-5, fused=True)
    storage = Trajectories(config.num_envs * (config.num_steps + 160), config.num_envs)
    belief = BeliefTracker(config.num_envs)
    decisions_per_update = config.num_envs * config.num_steps
    num_updates = max(1, config.total_decisions // decisions_per_update)
    update = decisions = 0

    if payload is not None:
        saved = unpack(payload["trainer"])
        net.load_state_dict(payload["model"])
        optimizer.load_state_dict(saved["optimizer"])
        out = env.load_state_dict(saved["env"])
        storage.load_state_dict(saved["storage"])
        belief.load_state_dict(saved["belief"])
        owner[...] = saved["owner"]
        for state in saved["pool"] + ([payload["model"]] if saved["pool_ends_with_model"] else []):
            pool.append(PolicyValueNet(config.hidden_sizes, belief=config.belief_coef > 0))
            pool[-1].load_state_dict(state)
        rng.bit_generator.state = saved["rng"]
        torch.set_rng_state(saved["torch_rng"])
        sampler.set_state(saved["sampler"])
        update, decisions = saved["update"], saved["decisions"]
        if update >= num_updates and (run / "summary.md").exists():
            print(f"{run} already finished: {update} updates, {decisions:,} decisions; "
                  f"its results are in {run / 'summary.md'}", file=sys.stderr)
            return run
        save_resumed_config(run, config)
    if update < num_updates:  # going further than a finished run went: its results are stale
        for stale in (run / "summary.md", run / "games.jsonl"):
            stale.unlink(missing_ok=True)

    # A process killed (kill -9) after its last checkpoint may have logged scalars of updates that the
    # resumed run does again: purge_step makes TensorBoard drop what earlier files hold past the checkpoint.
    writer = SummaryWriter(str(run), purge_step=decisions + 1 if payload is not None else None)

    def checkpoint() -> None:
        writer.flush()  # every scalar up to this boundary is on disk before the checkpoint says it was reached
        # A snapshot taken at this update boundary is the network itself: saved once, as the model.
        newest_is_model = bool(pool) and same_weights(pool[-1], net)
        trainer = {"format": TRAINER_FORMAT, "optimizer": optimizer.state_dict(), "env": env.state_dict(),
                   "storage": storage.state_dict(), "belief": belief.state_dict(), "owner": owner,
                   "pool": [p.state_dict() for p in pool[:len(pool) - newest_is_model]],
                   "pool_ends_with_model": newest_is_model, "rng": rng.bit_generator.state,
                   "torch_rng": torch.get_rng_state(), "sampler": sampler.get_state(),
                   "update": update, "decisions": decisions}
        save_checkpoint(run / "checkpoint.pt", net, config=dataclasses.asdict(config), trainer=pack(trainer))

    env_time = 0.0
    start, start_decisions = time.time(), decisions
    bar = tqdm(total=num_updates, initial=update, desc=config.exp_name, file=sys.stderr)
    latest_eval = ""
    stop_at = min(num_updates, update + config.stop_after) if config.stop_after else num_updates
    while update < stop_at and stop.received is None:
        # Rollout: every game makes num_steps decisions; hands that end complete their trajectories.
        finished = []
        for _ in range(config.num_steps):
            seat = out.seat
            who = owner[np.arange(config.num_envs), seat]
            actions = np.empty(config.num_envs, dtype=np.int64)
            learn = np.flatnonzero(who == 0)
            learner_obs, learner_mask = out.obs[learn], out.mask[learn]
            with torch.no_grad():
                logits, value, belief_logits = net.heads(torch.from_numpy(learner_obs).to(device),
                                                         torch.from_numpy(learner_mask).to(device))
                log_probs = torch.log_softmax(logits, dim=1)
                action = sample_actions(log_probs, sampler)
                logprob = log_probs.gather(1, action[:, None]).squeeze(1)
                action = action.cpu().numpy()
            actions[learn] = action
            partner = belief_targets(env.state, out, learn)
            if belief_logits is not None:
                belief.observe(env.state, learn, partner, torch.softmax(belief_logits, 1).cpu().numpy())
            demo = np.full(len(learn), -1, dtype=np.int64)
            if demo_weight(config, update, num_updates) > 0:
                shown = np.flatnonzero(SPEC.view(learner_obs, "phase")[:, demo_phases].any(axis=1))
                demo[shown] = heuristic.act(learner_obs[shown], learner_mask[shown])
            storage.add(learn, seat[learn], learner_obs, learner_mask, action,
                        logprob.cpu().numpy(), value.cpu().numpy(), demo, partner)
            by_heuristic = np.flatnonzero(who == 1)
            if by_heuristic.size:
                actions[by_heuristic] = heuristic.act(out.obs[by_heuristic], out.mask[by_heuristic])
            for k, snapshot in enumerate(pool):
                rows = np.flatnonzero(who == 2 + k)
                if rows.size:
                    with torch.no_grad():
                        logits, _ = snapshot(torch.from_numpy(out.obs[rows]), torch.from_numpy(out.mask[rows]))
                    actions[rows] = sample_actions(torch.log_softmax(logits, 1), sampler).numpy()
            tick = time.time()
            out = env.step(actions)
            env_time += time.time() - tick
            decisions += config.num_envs
            ended = np.flatnonzero(out.done)
            rewards = out.rewards.copy()
            belief.finish_hands(rewards, ended, out.info, config.concealment_coef)
            storage.finish(ended, rewards, config.gamma, config.gae_lambda)
            finished.append({key: out.info[key][ended] for key in GAME_FACTS} | {"learner": owner[ended] == 0})
            assign_seats(ended)

        # Update: PPO on every completed learner decision.
        update += 1
        if config.anneal_lr:
            optimizer.param_groups[0]["lr"] = config.learning_rate * (1 - (update - 1) / num_updates)
        ids = storage.take_ready()
        stats = ppo_update(net, optimizer, storage, ids, config, sampler, device,
                           demo_weight(config, update - 1, num_updates)) if len(ids) else {}

        # Logging.
        sps = int((decisions - start_decisions) / max(time.time() - start, 1e-9))
        writer.add_scalar("charts/SPS", sps, decisions)
        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], decisions)
        for name, value in stats.items():
            writer.add_scalar(name if "/" in name else f"losses/{name}", value, decisions)
        log_games(writer, finished, decisions)
        belief.log(writer, decisions)
        shares = np.bincount(np.minimum(owner, 2).ravel(), minlength=3) / owner.size
        for name, share in zip(("learner", "heuristic", "snapshot"), shares):
            writer.add_scalar(f"pool/{name}_seats", share, decisions)
        writer.add_scalar("pool/snapshots", len(pool), decisions)
        if update % config.snapshot_every == 0:
            pool.append(copy.deepcopy(net).cpu().eval())
            del pool[:-config.pool_size]
        if update % config.eval_every == 0 or update == num_updates:
            latest_eval = evaluate(net, rules, config, writer, decisions, config.eval_deals, update)
        if update % config.checkpoint_every == 0:
            checkpoint()
        bar.set_postfix_str(f"SPS {sps} {latest_eval}")
        bar.update(1)
    bar.close()
    checkpoint()
    if stop.received is not None:
        writer.close()
        raise Interrupted(stop.received, f"{signal.Signals(stop.received).name}: stopped after update {update} "
                                         f"of {num_updates}, checkpointed; continue: python train.py --resume {run}")
    if update < num_updates:
        print(f"stopped after update {update} of {num_updates}: python train.py --resume {run}", file=sys.stderr)
        writer.close()
        return run

    elapsed = time.time() - start
    summary = (f"{decisions - start_decisions} decisions in {elapsed:.0f} s: "
               f"{(decisions - start_decisions) / max(elapsed, 1e-9):,.0f} decisions/s end to end, "
               f"{env_time / max(elapsed, 1e-9):.0%} of the time in the environment")
    stop.at_once = True
    table = final_evaluation(run / "checkpoint.pt", rules, config)
    write_atomically(run / "summary.md", summary + "\n\n" + table + "\n")  # last: the run's mark of completion
    print(summary)
    print(table)
    writer.close()
    return run


def demo_weight(config: Config, update: int, num_updates: int) -> float:
    """The demonstration's weight at ``update`` (counted from 0): linear fade to 0."""
    until = config.demo_until * num_updates
    return config.demo_coef * max(0.0, 1 - update / until) if until > 0 else 0.0


def ppo_update(net, optimizer, storage: Trajectories, ids: np.ndarray, config: Config, sampler,
               device, demo_coef: float) -> dict:
    obs = net.scaled(torch.from_numpy(storage.obs[ids]).to(device))  # once, not in every epoch
    mask = torch.from_numpy(storage.mask[ids]).to(device)
    actions = torch.from_numpy(storage.action[ids]).to(device)
    old_logprob = torch.from_numpy(storage.logprob[ids]).to(device)
    old_value = torch.from_numpy(storage.value[ids]).to(device)
    advantages = torch.from_numpy(storage.advantage[ids]).to(device)
    returns = torch.from_numpy(storage.ret[ids]).to(device)
    demo = torch.from_numpy(storage.demo[ids]).to(device)
    partner = torch.from_numpy(storage.partner[ids]).to(device)
    demo_loss = belief_loss = torch.tensor(0.0)
    clipfracs, approx_kl = [], torch.tensor(0.0)
    for _ in range(config.update_epochs):
        order = torch.randperm(len(ids), generator=sampler)
        for mb in torch.tensor_split(order, min(config.num_minibatches, len(ids))):
            mb = mb.to(device)
            legal = mask[mb]
            logits, value, belief_logits = net.heads(obs[mb], legal)
            log_probs = torch.log_softmax(logits, dim=1)
            logprob = log_probs.gather(1, actions[mb, None]).squeeze(1)
            log_ratio = logprob - old_logprob[mb]
            ratio = log_ratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > config.clip_coef).float().mean().item())
            adv = advantages[mb]
            if config.norm_adv and len(mb) > 1:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            policy_loss = torch.max(-adv * ratio,
                                    -adv * torch.clamp(ratio, 1 - config.clip_coef, 1 + config.clip_coef)).mean()
            if config.clip_vloss:
                clipped = old_value[mb] + torch.clamp(value - old_value[mb], -config.clip_coef, config.clip_coef)
                value_loss = 0.5 * torch.max((value - returns[mb]) ** 2, (clipped - returns[mb]) ** 2).mean()
            else:
                value_loss = 0.5 * ((value - returns[mb]) ** 2).mean()
            mean_entropy = entropy(log_probs, legal).mean()
            loss = policy_loss - config.ent_coef * mean_entropy + config.vf_coef * value_loss
            shown = demo[mb] >= 0
            if demo_coef > 0 and shown.any():
                demo_loss = -log_probs.gather(1, demo[mb, None].clamp(min=0)).squeeze(1)[shown].mean()
                loss = loss + demo_coef * demo_loss
            asked = partner[mb] >= 0
            if belief_logits is not None and asked.any():
                belief_loss = torch.nn.functional.cross_entropy(belief_logits[asked], partner[mb][asked])
                loss = loss + config.belief_coef * belief_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), config.max_grad_norm)
            optimizer.step()
    variance = returns.var()
    explained = (1 - (returns - old_value).var() / variance).item() if variance > 0 else float("nan")
    stats = {"policy_loss": policy_loss.item(), "value_loss": value_loss.item(), "entropy": mean_entropy.item(),
             "approx_kl": approx_kl.item(), "clipfrac": float(np.mean(clipfracs)), "explained_variance": explained,
             "demo": demo_loss.item(), "demo_coef": demo_coef}
    if net.belief is not None:
        stats["belief/loss"] = belief_loss.item()
    return stats


GAME_FACTS = ("caller", "partner", "contract", "contract_made", "called_trick", "captured_points")


def log_games(writer, finished: list[dict], step: int) -> None:
    """game/: how the learner's auctions and hands go, over the hands that ended in this rollout."""
    if not finished:
        return
    facts = {key: np.concatenate([f[key] for f in finished]) for key in GAME_FACTS + ("learner",)}
    caller, partner, learner = facts["caller"], facts["partner"], facts["learner"]
    if not len(caller):
        return
    played = caller >= 0
    writer.add_scalar("game/void_rate", float((~played).mean()), step)
    rows = np.arange(len(caller))
    learner_called = played & learner[rows, np.maximum(caller, 0)]
    # Per learner seat: the share of its hands in which it won the auction (0.2 at a table of equals).
    writer.add_scalar("game/learner_auction_win_rate", float(learner_called.sum() / learner.sum()), step)
    if learner_called.any():
        contract = facts["contract"][learner_called]
        point_bid = contract >= POINT_BID_OFFSET
        target = np.where(point_bid, contract - POINT_BID_OFFSET + MIN_POINTS, MIN_POINTS)
        writer.add_scalar("game/learner_mean_contract_points", float(target.mean()), step)
        writer.add_scalar("game/learner_points_bid_rate", float(point_bid.mean()), step)
        writer.add_scalar("game/learner_contract_success_rate",
                          float(facts["contract_made"][learner_called].mean()), step)
        writer.add_scalar("game/learner_solo_rate", float((partner == caller)[learner_called].mean()), step)
    shown = facts["called_trick"][played & (partner != caller)]
    if shown.size:
        writer.add_scalar("game/called_card_trick", float(shown.mean() + 1), step)  # 1..8
    # Captured points of the learner's seats, by role.
    seats = np.arange(NUM_SEATS)
    role = np.where(seats == caller[:, None], 0, np.where(seats == partner[:, None], 1, 2))
    for r, name in enumerate(("caller", "partner", "defender")):
        mine = played[:, None] & learner & (role == r)
        if mine.any():
            writer.add_scalar(f"game/learner_points_as_{name}", float(facts["captured_points"][mine].mean()), step)


def evaluate(net, rules, config: Config, writer, step: int, deals: int, update: int) -> str:
    """eval/: the current policy's paired edge against random and heuristic, with 95% CIs."""
    agent = PPOAgent.from_network(copy.deepcopy(net).cpu(), seed=0)
    parts = []
    for name, other in (("random", RandomAgent()), ("heuristic", HeuristicAgent(rules))):
        result = evaluate_pair(agent, other, deals, seed=10_000 + update, rules=rules, chunk=deals)
        writer.add_scalar(f"eval/edge_vs_{name}", result.edge_a, step)
        writer.add_scalar(f"eval/edge_vs_{name}_ci_low", result.edge_a_ci[0], step)
        writer.add_scalar(f"eval/edge_vs_{name}_ci_high", result.edge_a_ci[1], step)
        parts.append(f"vs {name} {result.edge_a:+.2f}")
    return ", ".join(parts)


def final_evaluation(checkpoint: Path, rules, config: Config) -> str:
    results = [evaluate_pair(PPOAgent(checkpoint, seed=1), other, config.final_eval_deals, seed=1, rules=rules,
                             names=(f"ppo:{checkpoint}", name))
               for name, other in (("random", RandomAgent()), ("heuristic", HeuristicAgent(rules)))]
    if config.record_games:  # written whole, then renamed: never a partial or doubled file
        def write_games(temporary: Path) -> None:
            for result in results:
                records.write(temporary, result.records(rules))

        replace_atomically(checkpoint.parent / "games.jsonl", write_games)
    return edges_table(results)


def config_docs() -> dict[str, str]:
    """Each documented field of :class:`Config` by name: its docstring (the string literal after it), on one line."""
    statements = ast.parse(textwrap.dedent(inspect.getsource(Config))).body[0].body
    return {field_.target.id: " ".join(doc.value.value.split())
            for field_, doc in itertools.pairwise(statements)
            if isinstance(field_, ast.AnnAssign) and isinstance(doc, ast.Expr)
            and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str)}


def config_help() -> str:
    """Every config key with its type, default, range and docstring, read from :class:`Config` itself."""
    docs, defaults = config_docs(), dataclasses.asdict(Config())
    lines = ["config keys, as key=VALUE after the options or in the --config file (VALUE is YAML); the defaults",
             "are Config's, which configs/default.yaml (read when --config is not given) partly overrides:"]
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


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(textwrap.wrap(
            "A new run's folder must not hold a run already (overwrite=true replaces it). --resume may "
            f"override only {', '.join(RESUME_OVERRIDES)}. SIGINT (Ctrl-C) or SIGTERM stops at the end "
            "of the current update, with a checkpoint; a second one stops at once.", width=100))
        + "\n\n" + config_help())
    parser.add_argument("--config", default=None, help="YAML file of config values (default: configs/default.yaml)")
    parser.add_argument("--resume", type=Path, default=None, help="a run folder to continue")
    parser.add_argument("overrides", nargs="*", help="key=value config overrides")
    args = parser.parse_args(argv)
    if args.resume is not None and args.config is not None:
        parser.error("--resume continues a run with its own config.yaml: --config does not go with it")
    try:
        config = (resume_config(args.resume, args.overrides) if args.resume is not None
                  else load_config(args.config or "configs/default.yaml", args.overrides))
    except ValueError as error:
        parser.error(str(error))
    try:
        train(config, args.resume)
    except RunError as error:
        parser.error(str(error))
    except Interrupted as stopped:
        print(stopped, file=sys.stderr)
        sys.exit(128 + stopped.signum)
    except KeyboardInterrupt:
        print("interrupted: stopped at once, without a new checkpoint", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
