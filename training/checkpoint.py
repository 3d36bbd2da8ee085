"""The trainer's state in a training checkpoint: its layout's version (:data:`TRAINER_FORMAT`), the
check that a checkpoint is in it, and the conversion of its NumPy arrays to tensors and back
(:func:`pack`, :func:`unpack`), since a checkpoint holds only tensors and plain values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from .run_folder import RunError

TRAINER_FORMAT = 4
"""The version of the layout of a training checkpoint's trainer state (:func:`training.trainer.trainer_state`:
the storage's slots in use with their bits packed, each snapshot once, the league's win rates, the rolling
exploiters and the fixed agents' random states; with rollout workers, :func:`training.rollout_workers.learner_state`:
the games' part of it once per worker, under ``workers``); a checkpoint of any other is not resumed. Raised
whenever that layout changes."""


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


def unpack(obj):
    """The inverse of :func:`pack`: its tensors back as the NumPy arrays they were (tuples as lists)."""
    if isinstance(obj, dict) and "__array__" in obj:
        return obj["bytes"].numpy().view(np.dtype(obj["__array__"])).reshape(obj["shape"]).copy()
    if isinstance(obj, dict):
        return {key: unpack(value) for key, value in obj.items()}
    if isinstance(obj, list):
        return [unpack(value) for value in obj]
    return obj


def same_weights(one: torch.nn.Module, other: torch.nn.Module) -> bool:
    """The two networks hold the same weights, bit for bit (wherever they are)."""
    mine, theirs = one.state_dict(), other.state_dict()
    return mine.keys() == theirs.keys() and all(torch.equal(mine[name].cpu(), theirs[name].cpu()) for name in mine)


def check_trainer_format(payload: dict, path: Path) -> None:
    """The checkpoint's trainer state is in the layout this train.py resumes (:data:`TRAINER_FORMAT`), or a
    one-line :class:`RunError` saying which it holds (None: unmarked)."""
    found = payload["trainer"].get("format") if isinstance(payload["trainer"], dict) else None
    if found != TRAINER_FORMAT:
        raise RunError(f"{path} holds trainer state of format {found!r}, written by another train.py; this "
                       f"train.py resumes format {TRAINER_FORMAT} only: resume it with the version that wrote it, "
                       "or start afresh (overwrite=true)")


def random_state(agent, depth: int = 3) -> dict:
    """Every random generator an agent holds, by attribute name (NumPy's and PyTorch's), and those of the
    agents it holds (a search's rollout policy), as plain values and tensors: a fixed opponent that draws
    random numbers (heuristic:noise=..., random, ppo) then resumes where it was."""
    state = {}
    for name, value in vars(agent).items():
        if isinstance(value, np.random.Generator):
            state[name] = {"numpy": value.bit_generator.state}
        elif isinstance(value, torch.Generator):
            state[name] = {"torch": value.get_state()}
        elif depth and hasattr(value, "act") and hasattr(value, "__dict__"):
            state[name] = {"agent": random_state(value, depth - 1)}
    return state


def restore_random_state(agent, state: dict) -> None:
    """Put back what :func:`random_state` took from ``agent`` (an agent built from the same spec)."""
    for name, saved in state.items():
        value = getattr(agent, name)
        if "numpy" in saved:
            value.bit_generator.state = saved["numpy"]
        elif "torch" in saved:
            value.set_state(saved["torch"])
        else:
            restore_random_state(value, saved["agent"])
