"""One game state per browser session: its play table, its watch table and its replay.

A browser session is named by a random token (``secrets.token_urlsafe``) that the server gives
the page in a cookie; :class:`SessionStore` keeps at most :data:`MAX_SESSIONS` of them, so no
number of visits grows the server without bound. Past that number a new session takes the place
of one that holds no game (the one used longest ago), else of one left unused for
:data:`IDLE_AFTER` seconds; a session whose game is in use is never dropped for a newcomer, who is
refused (:class:`SessionsFull`) until a place frees. So no number of requests from elsewhere can
wipe a player's game. Every table of a session is built from the server's :class:`Settings` alone
(the agent specs, seed, rules and record folder of the command line): nothing a request sends names
an agent or a file to open. Their agents come from the server's :class:`.pool.AgentPool`, which
loads each network once for all the sessions.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from briscola_env.cards import NUM_SEATS
from briscola_env.rules import RulesConfig

from .pool import AgentPool
from .replay import Replay
from .tables import Table

MAX_SESSIONS = 64  # browser sessions kept at most
IDLE_AFTER = 3600.0  # seconds unused after which a session's games may make room for a new session


class SessionsFull(Exception):
    """No place for a new browser session: every one kept holds a game used within :data:`IDLE_AFTER`."""


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
    ``replay``, each None until started; their agents from ``agents``. ``lock`` keeps two requests of a
    session from mixing; ``last_used`` is when a request last named it (by the store's clock)."""

    def __init__(self, settings: Settings, agents: Optional[AgentPool] = None, last_used: float = 0.0):
        self.settings = settings
        self.agents = AgentPool(settings.rules) if agents is None else agents
        self.lock = threading.Lock()
        self.last_used = last_used
        self.play: Optional[Table] = None
        self.watch: Optional[Table] = None
        self.watch_face_up = False
        self.replay: Optional[Replay] = None

    @property
    def has_game(self) -> bool:
        """Whether anything was started: a game to play or watch, or a record open."""
        return self.play is not None or self.watch is not None or self.replay is not None

    def new_play(self) -> Table:
        """A new play session (totals from zero), its first hand dealt and played up to the person. Its
        hands are recorded, if the server records, in a file of their own: ``play-<time>-<random>.jsonl``."""
        folder = self.settings.record_folder
        name = f"play-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}.jsonl"
        table = Table(self.settings.play_specs(), self.settings.seed, self.settings.rules,
                      record_file=folder / name if folder is not None else None, agents=self.agents)
        table.play_agents()
        self.play = table
        return table

    def new_watch(self) -> Table:
        self.watch = Table(list(self.settings.watchers), self.settings.seed, self.settings.rules, agents=self.agents)
        return self.watch


class SessionStore:
    """Browser sessions by token, at most ``limit``: past it, a new one takes the place of the least
    recently used session without a game, else of the least recently used one unused for ``idle_after``
    seconds, else it is refused (:class:`SessionsFull`). ``clock``: the time in seconds (monotonic).
    Every session's tables take their agents from ``agents`` (default: a pool of the store's own)."""

    def __init__(self, settings: Settings, limit: int = MAX_SESSIONS, idle_after: float = IDLE_AFTER,
                 clock: Callable[[], float] = time.monotonic, agents: Optional[AgentPool] = None):
        self.settings, self.limit, self.idle_after, self.clock = settings, limit, idle_after, clock
        self.agents = AgentPool(settings.rules) if agents is None else agents
        self._sessions: OrderedDict[str, BrowserSession] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def get(self, token: Optional[str]) -> Optional[BrowserSession]:
        """The session of ``token`` (None for none or an unknown one), marked as used now."""
        with self._lock:
            session = self._sessions.get(token) if token else None
            if session is not None:
                self._sessions.move_to_end(token)
                session.last_used = self.clock()
            return session

    def create(self) -> tuple[str, BrowserSession]:
        """A new session and its token, in the place of another if the store is full (the class
        docstring); a SessionsFull error, and nothing dropped, if every session is in use."""
        token = secrets.token_urlsafe(32)
        with self._lock:
            now = self.clock()
            while len(self._sessions) >= self.limit:
                self._sessions.pop(self._replaceable(now))
            self._sessions[token] = session = BrowserSession(self.settings, self.agents, now)
        return token, session

    def discard(self, token: str) -> None:
        """Forget the session of ``token`` (if kept): one a refused request started, so the refusal changes
        nothing."""
        with self._lock:
            self._sessions.pop(token, None)

    def _replaceable(self, now: float) -> str:
        """The token of the session a new one may replace (the class docstring); SessionsFull if none."""
        empty = next((token for token, session in self._sessions.items() if not session.has_game), None)
        if empty is not None:
            return empty
        idle = next((token for token, session in self._sessions.items()
                     if now - session.last_used >= self.idle_after), None)
        if idle is None:
            raise SessionsFull(f"this table keeps {self.limit} browser sessions, each with a game used in the "
                               f"last {self.idle_after / 60:.0f} minutes: try again later")
        return idle
