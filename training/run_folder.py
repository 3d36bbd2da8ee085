"""A run folder while a trainer uses it: its lock (:func:`run_lock`), what it holds
(:func:`run_contents`), and the error for a run that cannot start as asked (:class:`RunError`)."""

from __future__ import annotations

import contextlib
from pathlib import Path

from filelock import FileLock, Timeout

LOCK_FILE = "train.lock"


class RunError(ValueError):
    """A run that cannot start as asked: its folder taken, in use or not resumable, or its device missing."""


@contextlib.contextmanager
def run_lock(run: Path):
    """Hold an exclusive lock on the run folder for the run's duration, so that two trainers never
    share one (they would race on checkpoint.pt). The filelock package's lock, an OS lock on every platform
    (flock, or msvcrt's on Windows): the system releases it however the trainer ends."""
    lock = FileLock(run / LOCK_FILE)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise RunError(f"{run} is in use by another train.py (it holds {run / LOCK_FILE}); "
                       "wait for it to end, or train in another folder") from None
    try:
        yield
    finally:
        lock.release()


def run_contents(run: Path) -> list[Path]:
    """What a run folder holds besides its lock file (nothing if it does not exist)."""
    if run.exists() and not run.is_dir():
        raise RunError(f"{run} is a file, not a run folder")
    return [path for path in run.iterdir() if path.name != LOCK_FILE] if run.exists() else []
