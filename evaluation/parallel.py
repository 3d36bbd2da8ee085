"""Independent pieces of work (chunks of deals, training seeds) in this process, or as Ray tasks.

    results = run_pieces(play_chunk, chunks)               # one process, in order
    results = run_pieces(play_chunk, chunks, workers=2)    # Ray tasks on a local Ray of 2 CPUs
    RAY_ADDRESS=auto ... run_pieces(..., workers=8)         # the cluster of ``ray start --head``

Either way the results come back in the order of ``pieces``, and each piece is computed by the
same function from the same inputs, so a piece's result never depends on where it ran: a command
that seeds each piece from the piece itself (:func:`piece_seed`, not a generator shared across
pieces) and cuts its work into pieces independently of the workers (:func:`deal_chunks`) gives
the same output with or without Ray, whatever the number of workers. ``fn`` must be a module-level
function and the pieces and results picklable (seeds, NumPy arrays, agents), since Ray ships them
to its workers: a piece's objects are rebuilt there from their pickles, so their classes must be
importable there (an installed package; ``__main__``'s are shipped by value). A piece that fails
raises its own exception here, whatever ran it (:func:`worker_error`).

Ray is an optional dependency (``pip install -e '.[ray]'``). Without ``RAY_ADDRESS`` the call
starts a local Ray of ``workers`` CPUs and stops it at the end; with it (``auto`` or an address,
after ``ray start --head`` on the head node and ``ray start --address=...`` on the others) it joins
that cluster, whose size then bounds the parallelism, and leaves it running. A Ray already
initialised in this process (:func:`ray_for`, or the caller's ``ray.init``) is used as it is.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import threading
from contextlib import contextmanager
from math import ceil
from typing import Callable, Iterator, Optional, Sequence, TypeVar

import numpy as np

Piece = TypeVar("Piece")
Result = TypeVar("Result")

MAX_CHUNK = 256  # deals a piece by default at most: batches of a few thousand games, as evaluations played before
MIN_PIECES = 4  # pieces a run is cut into by default when it has the deals: work for a few workers


def check_workers(workers) -> int:
    """``workers`` as an int if it is 0 (this process) or a positive number of Ray workers (Ray then
    installed), else a ValueError."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise ValueError(f"workers must be 0 (this process) or a positive number of Ray workers; got {workers!r}")
    if workers and importlib.util.find_spec("ray") is None:
        raise ValueError("workers > 0 runs the work as Ray tasks: install Ray (pip install -e '.[ray]')")
    return workers


def chunk_size(deals: int, chunk: Optional[int] = None) -> int:
    """The deals a piece: ``chunk`` if a whole number of at least 1 (else a ValueError); by default
    (None) :data:`MAX_CHUNK`, or fewer so as to make :data:`MIN_PIECES` pieces when there are as many
    deals. It depends on ``deals`` and ``chunk`` alone, never on the workers."""
    if chunk is None:
        return min(MAX_CHUNK, max(1, ceil(deals / MIN_PIECES)))
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise ValueError(f"chunk (deals a piece of work) must be a whole number of at least 1; got {chunk!r}")
    return int(chunk)


def deal_chunks(deals: int, chunk: Optional[int] = None) -> list[slice]:
    """Deals ``0..deals-1`` cut into pieces of :func:`chunk_size` deals, the last one shorter."""
    size = chunk_size(deals, chunk)
    return [slice(start, min(start + size, deals)) for start in range(0, deals, size)]


def piece_seed(seed: int, stream: str, *path: int) -> int:
    """A 32-bit seed drawn from the run's ``seed`` alone for what ``path`` names in a piece (such as
    its index and an agent's role in it), in a ``stream`` keyed apart from the run's other draws."""
    key = int.from_bytes(stream.encode(), "big")
    return int(np.random.SeedSequence(seed, spawn_key=(key, *path)).generate_state(1)[0])


@contextmanager
def ray_for(workers: int) -> Iterator[None]:
    """Ray kept up for the :func:`run_pieces` calls inside (one start for several runs), or for a training
    run's rollout workers: with ``workers`` > 0 and no Ray running here, a local Ray of ``workers`` CPUs (or
    the cluster at ``RAY_ADDRESS``) is started, and the local one stopped at the end; otherwise nothing is
    done. The SIGINT and SIGTERM handlers that ``ray.init`` replaces are put back at the end."""
    if check_workers(workers) == 0:
        yield
        return
    import ray

    address = os.environ.get("RAY_ADDRESS")
    started_here = not ray.is_initialized()
    handlers = saved_signal_handlers()
    if started_here:
        # A local Ray of exactly ``workers`` CPUs; on a cluster its own resources decide.
        ray.init(address=address, num_cpus=None if address else workers, include_dashboard=False,
                 log_to_driver=False, configure_logging=False)
    try:
        yield
    finally:
        if started_here and not address:
            ray.shutdown()
        if started_here:  # a cluster's connection too: ray.init replaced them when it connected
            restore_signal_handlers(handlers)


RAY_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""Signals whose handlers ``ray.init`` replaces in the driver (SIGTERM) and ``ray.shutdown`` leaves replaced."""


def saved_signal_handlers() -> dict:
    """The handlers of :data:`RAY_SIGNALS` now, for :func:`restore_signal_handlers`."""
    return {signum: signal.getsignal(signum) for signum in RAY_SIGNALS}


def restore_signal_handlers(handlers: dict) -> None:
    """Put back the handlers :func:`saved_signal_handlers` saved, so that after Ray the process stops on
    SIGTERM as it did before (only the main thread may set handlers, as only it may start Ray's with them;
    a handler not set from Python, None, is put back as the default)."""
    if threading.current_thread() is threading.main_thread():
        for signum, handler in handlers.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)


def run_pieces(fn: Callable[[Piece], Result], pieces: Sequence[Piece], workers: int = 0,
               progress: Optional[Callable[[int], None]] = None, num_gpus: float = 0) -> list[Result]:
    """``[fn(piece) for piece in pieces]``, in this process (``workers=0``) or as Ray tasks of one CPU and
    ``num_gpus`` GPUs each (Ray shows a task the GPUs it asks for, and none else);
    ``progress(done)`` after each piece that finishes (in the order they finish under Ray)."""
    workers = check_workers(workers)
    if workers == 0:
        results = []
        for piece in pieces:
            results.append(fn(piece))
            if progress:
                progress(len(results))
        return results
    with ray_for(workers):
        import ray

        task = ray.remote(num_cpus=1, num_gpus=num_gpus)(fn)
        refs = [task.remote(piece) for piece in pieces]
        pending, done = list(refs), 0
        while pending:
            finished, pending = ray.wait(pending, num_returns=1)
            done += len(finished)
            if progress:
                progress(done)
        try:
            return ray.get(refs)
        except ray.exceptions.RayTaskError as error:
            raise worker_error(error) from None


def cluster_gpus() -> float:
    """The GPUs of the Ray this process is connected to (:func:`ray_for`)."""
    import ray

    return ray.cluster_resources().get("GPU", 0)


def worker_error(error) -> BaseException:
    """The exception a Ray task raised, as the task raised it, for ``error``, the RayTaskError that Ray raises
    in its place: Ray's own says it with the worker's traceback, colour codes, pid and address, which a
    command would print as its one-line message. The worker's traceback is kept as a note, which a traceback
    printed for an unexpected error shows. An error Ray could not bring back (unpicklable) stays Ray's."""
    import ray

    cause = getattr(error, "cause", None)
    if not isinstance(cause, Exception) or isinstance(cause, ray.exceptions.RayError):
        return error
    if hasattr(cause, "add_note"):  # Python 3.11+
        cause.add_note(f"raised in a Ray worker:\n{getattr(error, 'traceback_str', '')}".rstrip())
    return cause
