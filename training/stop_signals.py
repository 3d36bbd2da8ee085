"""SIGINT and SIGTERM while training: noted, and acted on at the next update boundary
(:class:`StopSignals`), where training stops with a checkpoint (:class:`Interrupted`)."""

from __future__ import annotations

import signal
import threading
from typing import Optional


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
