"""Independent pieces of work (chunks of deals, training seeds) in this process, or as Ray tasks.

    results = run_pieces(play_chunk, chunks)               # one process, in order
    results = run_pieces(play_chunk, chunks, workers=2)    # Ray tasks on a local Ray of 2 CPUs
    RAY_ADDRESS=auto ... run_pieces(..., workers=8)         # the cluster of ``ray start --head``

Either way the results come back in the order of ``pieces``, and each piece is computed by the
same function from the same inputs, so a piece's result never depends on where it ran: a command
that seeds each piece from the piece itself (not from a generator shared across pieces) gives the
same output with or without Ray. ``fn`` must be a module-level function and the pieces and results
picklable (spec strings, seeds, NumPy arrays), since Ray ships them to its workers.

Ray is an optional dependency (``pip install -e '.[ray]'``). Without ``RAY_ADDRESS`` the call
starts a local Ray of ``workers`` CPUs and stops it at the end; with it (``auto`` or an address,
after ``ray start --head`` on the head node and ``ray start --address=...`` on the others) it joins
that cluster, whose size then bounds the parallelism, and leaves it running.
"""

from __future__ import annotations

import os
from typing import Callable, Optional, Sequence, TypeVar

Piece = TypeVar("Piece")
Result = TypeVar("Result")


def check_workers(workers) -> int:
    """``workers`` as an int if it is 0 (this process) or a positive number of Ray workers, else a ValueError."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise ValueError(f"workers must be 0 (this process) or a positive number of Ray workers; got {workers!r}")
    return workers


def run_pieces(fn: Callable[[Piece], Result], pieces: Sequence[Piece], workers: int = 0,
               progress: Optional[Callable[[int], None]] = None) -> list[Result]:
    """``[fn(piece) for piece in pieces]``, in this process (``workers=0``) or as Ray tasks;
    ``progress(done)`` after each piece that finishes (in the order they finish under Ray)."""
    workers = check_workers(workers)
    if workers == 0:
        results = []
        for piece in pieces:
            results.append(fn(piece))
            if progress:
                progress(len(results))
        return results
    try:
        import ray
    except ImportError:
        raise RuntimeError("workers > 0 runs the work as Ray tasks: install Ray (pip install -e '.[ray]')") from None
    address = os.environ.get("RAY_ADDRESS")
    started_here = not ray.is_initialized()
    if started_here:
        # A local Ray of exactly ``workers`` CPUs; on a cluster its own resources decide.
        ray.init(address=address, num_cpus=None if address else workers, include_dashboard=False,
                 log_to_driver=False, configure_logging=False)
    try:
        task = ray.remote(num_cpus=1)(fn)
        refs = [task.remote(piece) for piece in pieces]
        pending, done = list(refs), 0
        while pending:
            finished, pending = ray.wait(pending, num_returns=1)
            done += len(finished)
            if progress:
                progress(done)
        return ray.get(refs)
    finally:
        if started_here and not address:
            ray.shutdown()
