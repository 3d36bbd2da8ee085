"""One game state per browser session: its play table, its watch table and its replay.

A browser session is named by a random token (``secrets.token_urlsafe``) that the server gives
the page in a cookie; :class:`SessionStore` keeps at most :data:`MAX_SESSIONS` of them, dropping
the one used longest ago, so no number of visits grows the server without bound. Every table of
a session is built from the server's :class:`Settings` alone (the agent specs, seed, rules and
record folder of the command line): nothing a request sends names an agent or a file to open.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from briscola_env.cards import NUM_SEATS
from briscola_env.rules import RulesConfig

from .replay import Replay
from .tables import Table

MAX_SESSIONS = 64  # browser sessions kept; the oldest is forgotten past this


@dataclass(frozen=True)
class Settings:
    """What the command line chose: ``opponents``, the four agents of play mode in seat order after
    ``seat`` (the person's); ``watchers``, the five of watch mode; ``seed`` (None: new hands each
    session); the rules; the record folder (None: no records written, none to replay)."""

    opponents: tuple[str, ...]
    seat: int
    watchers: tuple[str, ...]
    seed: Optional[int]
    rules_name: str
    rules: RulesConfig
    record_folder: Optional[Path] = None

    def play_specs(self) -> list[Optional[str]]:
        others = iter(self.opponents)
        return [None if s == self.seat else next(others) for s in range(NUM_SEATS)]


class BrowserSession:
    """The games of one browser: ``play``, ``watch`` (with whether its hands are shown face up) and
    ``replay``, each None until started. ``lock`` keeps two requests of a session from mixing."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.lock = threading.Lock()
        self.play: Optional[Table] = None
        self.watch: Optional[Table] = None
        self.watch_face_up = False
        self.replay: Optional[Replay] = None

    def new_play(self) -> Table:
        """A new play session (totals from zero), its first hand dealt and played up to the person. Its
        hands are recorded, if the server records, in a file of their own: ``play-<time>-<random>.jsonl``."""
        folder = self.settings.record_folder
        name = f"play-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}.jsonl"
        table = Table(self.settings.play_specs(), self.settings.seed, self.settings.rules,
                      record_file=folder / name if folder is not None else None)
        table.play_agents()
        self.play = table
        return table

    def new_watch(self) -> Table:
        self.watch = Table(list(self.settings.watchers), self.settings.seed, self.settings.rules)
        return self.watch


class SessionStore:
    """Browser sessions by token, the least recently used dropped past ``limit``."""

    def __init__(self, settings: Settings, limit: int = MAX_SESSIONS):
        self.settings, self.limit = settings, limit
        self._sessions: OrderedDict[str, BrowserSession] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, token: Optional[str]) -> Optional[BrowserSession]:
        with self._lock:
            session = self._sessions.get(token) if token else None
            if session is not None:
                self._sessions.move_to_end(token)
            return session

    def create(self) -> tuple[str, BrowserSession]:
        token = secrets.token_urlsafe(32)
        with self._lock:
            self._sessions[token] = session = BrowserSession(self.settings)
            while len(self._sessions) > self.limit:
                self._sessions.popitem(last=False)
        return token, session
