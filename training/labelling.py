"""Labels for distillation: games played by a mix of agents and, at a sampled share of their decisions,
a search agent's estimated value of every candidate action (or a teacher's action), written in chunks.

    briscola label --players heuristic,ppo:checkpoints/strong.pt,random --search pimc:worlds=32 \\
        --deals 20000 --share 0.25 --out runs/labels                # resumable: run it again to go on
    briscola label ... --workers 8                                   # chunks as Ray tasks
    briscola label --players heuristic ppo:checkpoints/field.pt --teacher heuristic --share 1 ...  # imitation

Each seat of each game is drawn uniformly from ``players`` (the mix: strong agents for the positions
good play reaches, random for coverage); the search agent (any agent with PIMC's ``candidates`` and
``action_values``, such as ``pimc:worlds=32``) values the candidate actions of a ``share`` of the
decisions with more than one legal action, from the deciding seat's own view, and is never seated:
the games go on with the seat's own player. A chunk of ``chunk`` deals is one file,
``labels-00012.npz``, written whole or not at all; ``labels.json`` (written first) holds the plan,
so a second run with the same plan skips the chunks already written and one with another plan is
refused. Every chunk is seeded from the plan's seed and its index alone (its deals come from the
``"label"`` stream of :mod:`briscola_env.seeds`), so its file is the same wherever and whenever it is
written, with or without Ray. Each chunk is stamped with a digest of its plan and index (:data:`STAMP`):
a chunk of another plan, a truncated file or one missing a field is refused, by name, both when a run
goes on and when it is read, and only a finished run is read (:func:`load_labels`).

With ``--teacher SPEC`` instead of a search, the labels are imitation targets: at each sampled decision
the teacher (any agent: ``hybrid:auction=ppo:checkpoints/field.pt,play=heuristic``, say) is asked what it
would play from the deciding seat's view, and that action is the one candidate, valued at the payoff the
seat got in the game actually played. Distillation then teaches the network the teacher's choices (one draw
of a stochastic teacher's action a label: the cross-entropy to the draws is, in expectation, that to its
distribution) on the positions the mix of players reaches, and its value head the payoffs from there.

A chunk file holds, per labelled decision: ``views`` (the observation, as the environment gives it),
``masks`` (legal actions), ``candidates`` (the actions searched), ``values`` (the search's mean payoff
of each candidate for the deciding seat, NaN elsewhere), ``payoffs`` (that seat's payoff at the end of
the game actually played), and ``deal_seeds``, ``seats``, ``steps``, ``phases`` (where it came from).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from agents import make_agent
from agents.play import play_games
from briscola_env.actions import NUM_ACTIONS
from briscola_env.files import replace_atomically, write_atomically
from briscola_env.observation import observation_spec
from briscola_env.rules import resolve_rules
from briscola_env.seeds import deal_seeds
from evaluation.parallel import piece_seed, run_pieces
from evaluation.report import writable_folder

DEFAULT_SEARCH = "pimc:worlds=32"
MANIFEST = "labels.json"
CHUNK_FILE = "labels-{:05d}.npz"
LABEL_FORMAT = 2
FIELDS = ("views", "masks", "candidates", "values", "payoffs", "deal_seeds", "seats", "steps", "phases")
STAMP = "plan_stamp"
"""A chunk's field naming its plan and index (:meth:`LabelPlan.stamp`): a chunk of another plan, or another
chunk's file renamed, is never counted as done nor read."""


@dataclass(frozen=True)
class LabelPlan:
    """What a labelling run plays and labels; every chunk follows from it and its index alone."""

    players: tuple[str, ...]
    """Agent specs; each seat of each game is one of them, drawn uniformly."""
    search: Optional[str] = None
    """The labeller: an agent spec whose agent has ``candidates(obs, mask)`` and ``action_values(obs, candidates)``;
    :data:`DEFAULT_SEARCH` when neither it nor ``teacher`` is given."""
    deals: int = 1000
    share: float = 0.25
    """The share of decisions (with more than one legal action) labelled."""
    chunk: int = 100
    """Deals a chunk file (and a Ray task)."""
    seed: int = 0
    rules: str = "standard"
    """The rules played: a rules string (briscola_env.rules.parse_rules), as the plan records them."""
    teacher: Optional[str] = None
    """An agent spec whose actions are the labels (imitation), instead of a search's values."""

    def __post_init__(self):
        if self.search is not None and self.teacher is not None:
            raise ValueError(f"label with a search ({self.search!r}) or a teacher ({self.teacher!r}), not both")
        if self.search is None and self.teacher is None:
            object.__setattr__(self, "search", DEFAULT_SEARCH)
        labeller = self.search if self.teacher is None else self.teacher
        if not isinstance(labeller, str) or not labeller:
            raise ValueError(f"the labeller must be an agent spec; got {labeller!r}")
        if not self.players or not all(isinstance(spec, str) and spec for spec in self.players):
            raise ValueError(f"players must be one agent spec or more; got {self.players!r}")
        for name in ("deals", "chunk"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number of at least 1; got {value!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise ValueError(f"seed must be a whole number of at least 0; got {self.seed!r}")
        if isinstance(self.share, bool) or not isinstance(self.share, (int, float)) or not 0 < self.share <= 1:
            raise ValueError(f"share (of decisions labelled) must be in (0, 1]; got {self.share!r}")

    def check_agents(self) -> None:
        """Build every agent once, so that a bad spec or a labeller that cannot value actions is an error
        before any file is written."""
        rules = resolve_rules(self.rules)
        for spec in self.players:
            make_agent(spec, rules=rules)
        if self.teacher is not None:
            make_agent(self.teacher, rules=rules)
            return
        searcher = make_agent(self.search, rules=rules)
        if not all(callable(getattr(searcher, name, None)) for name in ("candidates", "action_values")):
            raise ValueError(f"--search {self.search!r} cannot value actions: it needs candidates() and "
                             "action_values(), as pimc has")

    @property
    def chunks(self) -> int:
        return -(-self.deals // self.chunk)

    def as_dict(self) -> dict:
        return {"format": LABEL_FORMAT, **dataclasses.asdict(self), "players": list(self.players)}

    def stamp(self, index: int) -> str:
        """Chunk ``index``'s :data:`STAMP`: a digest of this plan and the index."""
        text = json.dumps(self.as_dict(), sort_keys=True) + f"#{index}"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def label_chunk(piece: tuple[LabelPlan, int, str]) -> int:
    """Write chunk ``index`` of ``plan`` into ``folder`` (``(plan, index, folder)``), unless it is there;
    returns the number of decisions it holds. The same file wherever it is computed."""
    plan, index, folder = piece
    path = Path(folder) / CHUNK_FILE.format(index)
    if path.is_file():
        return len(read_chunk(path, plan, index)["values"])
    rules = resolve_rules(plan.rules)
    rng = np.random.default_rng(piece_seed(plan.seed, "label", index))
    players = [make_agent(spec, seed=int(rng.integers(2**32)), rules=rules) for spec in plan.players]
    labeller = make_agent(plan.search or plan.teacher, seed=int(rng.integers(2**32)), rules=rules)
    seeds = deal_seeds("label", plan.seed, min(plan.deals, (index + 1) * plan.chunk))[index * plan.chunk:]
    seat_agents = rng.integers(len(players), size=(len(seeds), rules.table_shape.seats))
    parts: list[dict[str, np.ndarray]] = []
    steps = iter(range(10**9))

    def label(env, out) -> None:
        step = next(steps)
        chosen = ~env.state.terminated & (out.mask.sum(axis=1) > 1) & (rng.random(len(seeds)) < plan.share)
        games = np.flatnonzero(chosen)
        if games.size:
            if plan.teacher is None:
                candidates = labeller.candidates(out.obs[games], out.mask[games])
                values = labeller.action_values(out.obs[games], candidates)
            else:  # the teacher's action, valued once the game's payoff is known
                candidates = np.zeros(out.mask[games].shape, bool)
                candidates[np.arange(games.size), labeller.act(out.obs[games], out.mask[games])] = True
                values = np.zeros(candidates.shape)
            parts.append({"games": games, "views": out.obs[games], "masks": out.mask[games], "candidates": candidates,
                          "values": np.where(candidates, values, np.nan).astype(np.float32),
                          "seats": out.seat[games].astype(np.int8), "steps": np.full(games.size, step, np.int16),
                          "phases": env.state.phase[games].astype(np.int8)})

    state, _ = play_games(players, seat_agents, seeds, rules, observe=label)
    arrays = {name: np.concatenate([part[name] for part in parts]) for name in parts[0]} if parts else \
        empty_chunk(observation_spec(rules).size)
    games = arrays.pop("games")
    arrays["deal_seeds"] = seeds[games]
    arrays["payoffs"] = state.rewards[games, arrays["seats"].astype(np.int64)].astype(np.float32)
    if plan.teacher is not None:
        arrays["values"] = np.where(arrays["candidates"], arrays["payoffs"][:, None], np.nan).astype(np.float32)
    arrays[STAMP] = np.array(plan.stamp(index))
    save_chunk(path, arrays)
    return len(games)


def empty_chunk(view_size: int) -> dict[str, np.ndarray]:
    """A chunk in which no decision was drawn for a label (a tiny share of a few deals), of views of
    ``view_size`` entries (those of the plan's rules)."""
    return {"games": np.zeros(0, np.int64), "views": np.zeros((0, view_size), np.uint8),
            "masks": np.zeros((0, NUM_ACTIONS), bool), "candidates": np.zeros((0, NUM_ACTIONS), bool),
            "values": np.zeros((0, NUM_ACTIONS), np.float32), "seats": np.zeros(0, np.int8),
            "steps": np.zeros(0, np.int16), "phases": np.zeros(0, np.int8)}


def save_chunk(path: Path, arrays: dict[str, np.ndarray]) -> None:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    try:
        replace_atomically(path, lambda temporary: temporary.write_bytes(buffer.getvalue()))
    except OSError as error:  # a full disk, a folder made read-only meanwhile: nothing half-written is left
        raise ValueError(f"cannot write {path}: {error.strerror or error}") from None


def read_chunk(path: Path, plan: LabelPlan, index: int) -> dict[str, np.ndarray]:
    """The fields of chunk ``index`` of ``plan`` in ``path``; a ValueError naming the file if it is not one
    (truncated, of another plan or index, missing a field) or its labels cannot be trained on."""
    redo = "delete it and run the same briscola label command again to relabel it"
    try:
        with np.load(path) as chunk:
            missing = [name for name in (*FIELDS, STAMP) if name not in chunk.files]
            if missing:
                raise ValueError(f"{path} is not a chunk of labels of this version: it lacks {', '.join(missing)}; "
                                 + redo)
            if str(chunk[STAMP]) != plan.stamp(index):
                raise ValueError(f"{path} is not chunk {index} of this folder's plan ({MANIFEST}): {redo}")
            arrays = {name: chunk[name] for name in FIELDS}
    except (OSError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(f"{path} cannot be read ({error}): {redo}") from None
    searched = arrays["candidates"]
    bad = ~searched.any(axis=1) | ~np.isfinite(np.where(searched, arrays["values"], 0.0)).all(axis=1)
    if bad.any():
        raise ValueError(f"{path}: {int(bad.sum())} of its {len(bad)} labelled decisions have no candidate or a "
                         f"value that is not a finite number; {redo}")
    return arrays


def load_labels(folder: Path) -> dict[str, np.ndarray]:
    """Every chunk of a finished labelling run's ``folder``, concatenated in chunk order; a ValueError
    naming the chunks still missing if the run is unfinished, or a chunk that is not one of its plan."""
    folder = Path(folder)
    plan = read_plan(folder)
    files = [folder / CHUNK_FILE.format(index) for index in range(plan.chunks)]
    missing = [path.name for path in files if not path.is_file()]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise ValueError(f"{folder} holds {plan.chunks - len(missing)} of the {plan.chunks} chunks of its plan "
                         f"({shown} missing): run the same briscola label command again to finish it")
    chunks = [read_chunk(path, plan, index) for index, path in enumerate(files)]
    return {name: np.concatenate([chunk[name] for chunk in chunks]) for name in FIELDS}


def read_plan(folder: Path) -> LabelPlan:
    manifest = Path(folder) / MANIFEST
    if not manifest.is_file():
        raise ValueError(f"{folder} is not a labelling run: it has no {MANIFEST}")
    try:
        values = json.loads(manifest.read_text(encoding="utf-8"))
        if values.pop("format", None) != LABEL_FORMAT:
            raise ValueError(f"{manifest} is of another format than this version's ({LABEL_FORMAT}): "
                             "label again into a new folder")
        unknown = sorted(set(values) - {field.name for field in dataclasses.fields(LabelPlan)})
        if unknown:
            raise ValueError(f"{manifest} holds keys a labelling plan has not: {', '.join(unknown)}")
        return LabelPlan(**{**values, "players": tuple(values["players"])})
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError, KeyError, TypeError) as error:
        raise ValueError(f"{manifest} is not a labelling plan ({type(error).__name__}: {error})") from None


def start_labelling(plan: LabelPlan, folder: Path) -> None:
    """Check ``plan`` and ``folder`` before any chunk: a new folder gets the plan; a folder with the same
    plan goes on; any other folder (another plan, or files of something else) is refused."""
    plan.check_agents()
    folder = Path(folder)
    if (folder / MANIFEST).is_file():
        theirs = read_plan(folder)
        if theirs != plan:
            differ = [f"{key} ({getattr(theirs, key)!r}, not {getattr(plan, key)!r})"
                      for key in theirs.as_dict() if key != "format" and getattr(theirs, key) != getattr(plan, key)]
            raise ValueError(f"{folder} holds labels of another plan: it differs in {', '.join(differ)}; "
                             "use another --out, or the same options to go on")
        return
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ValueError(f"{folder} is not empty and holds no labelling run: give a new or empty folder")
    writable_folder(folder, exist_ok=True)  # a parent that is a file, a read-only place: one line, nothing made
    try:
        write_atomically(folder / MANIFEST, json.dumps(plan.as_dict(), indent=2) + "\n")
    except OSError as error:
        raise ValueError(f"cannot write {folder / MANIFEST}: {error.strerror or error}") from None


def label(plan: LabelPlan, folder: Path, workers: int = 0,
          progress: Optional[Callable[[int], None]] = None) -> int:
    """Label every chunk of ``plan`` not yet in ``folder`` (see the module docstring), in this process or
    as Ray tasks; returns the number of labelled decisions in the folder."""
    start_labelling(plan, folder)
    folder = Path(folder).resolve()  # as a Ray worker elsewhere must find it (a shared file system)
    pieces = [(plan, index, str(folder)) for index in range(plan.chunks)]
    return sum(run_pieces(label_chunk, pieces, workers, progress=progress))
