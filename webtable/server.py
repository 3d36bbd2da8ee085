"""The HTTP server of the web table: the page, its assets, and a JSON API.

Built on the standard library's :mod:`http.server` (``ThreadingHTTPServer``) rather than a web
framework: the table needs a fixed handful of files and a dozen small JSON endpoints, which the
standard library serves in a page of code, with nothing to install or keep up to date and
nothing that can fail to import offline. Like every development server it is meant for one
machine, not the internet; these are the guards for that:

- it binds to 127.0.0.1 unless told otherwise, and it answers only requests whose ``Host`` names
  this machine (:meth:`WebTableServer.answers_to`): a loopback name or address; bound to another
  address (``--host 0.0.0.0``: every address), also the address the request came in on and the
  machine's host name; and the names given with ``--allow-host``. So a page elsewhere cannot reach it
  through a rebound DNS name, on whatever address it listens;
- each browser gets a session cookie (random, ``HttpOnly``, ``SameSite=Strict``) with the answer to
  its first API call, and its own games. Only the table's own page, or a request that no page sent
  (a browser's ``Sec-Fetch-Site`` is ``same-origin`` or ``none``, or absent outside browsers), can
  start a session: loading the page starts none, and a request from another site without the
  session's cookie is refused, so other sites can neither start sessions nor, by starting many, push
  a player's out of the store (:class:`.sessions.SessionStore` never drops a game in use);
- a connection that sends nothing for :data:`CONNECTION_TIMEOUT` seconds is closed;
- a POST must be ``application/json`` (so no cross-site form can send one) of at most
  :data:`MAX_BODY` bytes;
- the page and its assets are read from the package once, at start, and served from memory by
  exact path: no request path reaches the filesystem. The one place a request names a file is
  the replay of a record, by bare name among the files of the record folder
  (:func:`.replay.record_file`);
- the page's policy (``Content-Security-Policy: default-src 'self'``) allows no script or style
  from elsewhere, and the page writes every text it is sent as text, never as HTML.

Endpoints (bodies and answers JSON; a game's answer is the view the page draws, see
:meth:`.tables.Table.view`)::

    GET  /                         the page
    GET  /api/config               the modes' agents, the rules, whether games are recorded, the legend's
                                   faces, suits and points (the page's first call: its answer brings the
                                   session cookie)
    GET  /api/play/state           POST /api/play/new {}          POST /api/play/next {}
    POST /api/play/act {"move": "bid R"} or {"action": 3}   (action text as in the records, or its id)
    GET  /api/watch/state          POST /api/watch/new {"face_up": false}    POST /api/watch/step {}
    POST /api/watch/next {}        POST /api/watch/view {"face_up": true}
    POST /api/play/join {}         POST /api/watch/join {"face_up": false}
                                   the session's game, started (face_up as in new) if it has none: the
                                   page's call on entering a mode, which a state request would answer
                                   with a 409 on the first visit, an error in the browser's console
    GET  /api/replay/files         the record folder's files, and whether a record is open (then
                                   GET /api/replay/state gives its view)
    GET  /api/replay/state
    POST /api/replay/open {"file": "NAME.jsonl", "game": 0} or {"text": "<JSON Lines>", "name": "x", "game": 0}
    POST /api/replay/seek {"position": 12}

A request that cannot be taken gets a 4xx and ``{"error": "<what was wrong and what is allowed>"}``,
and changes nothing: 400 a malformed request, 403 a foreign Host or, without a session, a request
from another site, 404 no such path or file, 405 the wrong method, 408 a body that did not come in
time, 409 not now (an illegal move, a hand not over, no game started), 413 a body too large, 415 not
JSON, 422 a record that does not replay or that the page cannot show (another table than five seats
without a monte, text that is not Unicode). A new browser when every session kept holds a game in
use gets a 503 (try again later).
"""

from __future__ import annotations

import ipaddress
import json
import socket
import sys
import traceback
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Callable, Optional, Sequence
from urllib.parse import urlsplit

from briscola_env import __version__
from briscola_env.actions import NUM_ACTIONS, text_to_action
from briscola_env.cards import FACE_ORDER, FACE_POINTS, FACE_SYMBOLS
from briscola_env.render import printable
from evaluation.terminal import face_letters_text

from .pool import AgentPool
from .replay import Replay, record_file, record_files, record_in_file, record_in_text
from .sessions import BrowserSession, SessionsFull, SessionStore, Settings
from .tables import NotNow
from .view import suit_names_text

COOKIE = "briscola_session"
MAX_BODY = 8 * 1024 * 1024  # bytes of a POST: room for a large record file opened from the browser
CONNECTION_TIMEOUT = 30.0  # seconds a connection may wait for a request (or the rest of one) before it is closed
SESSION_STARTERS = ("same-origin", "none")  # the Sec-Fetch-Site values that may start a session
ASSETS = {  # request path -> (file of the package's static folder, content type)
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/table.css": ("table.css", "text/css; charset=utf-8"),
    "/static/table.js": ("table.js", "text/javascript; charset=utf-8"),
    "/static/favicon.svg": ("favicon.svg", "image/svg+xml"),
}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
LOOPBACK_NAMES = ("localhost",)


class ApiError(Exception):
    """A refused request: its HTTP status and the message the page shows."""

    def __init__(self, status: HTTPStatus, message: str):
        super().__init__(message)
        self.status = status


# --- reading request bodies ----------------------------------------------------------------

def only_fields(body: dict, allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(body) - set(allowed), key=repr)
    if unknown:
        takes = ", ".join(allowed) if allowed else "no fields (send {})"
        raise ApiError(HTTPStatus.BAD_REQUEST, f"unknown field(s) {', '.join(map(repr, unknown))}; "
                                               f"this endpoint takes {takes}")


def int_field(body: dict, name: str, least: int, most: Optional[int] = None, default: Optional[int] = None) -> int:
    value = body.get(name, default)
    if value is None:
        raise ApiError(HTTPStatus.BAD_REQUEST, f"{name}: required, a whole number")
    if isinstance(value, bool) or not isinstance(value, int) or value < least or (most is not None and value > most):
        allowed = f"{least}..{most}" if most is not None else f"{least} or more"
        raise ApiError(HTTPStatus.BAD_REQUEST, f"{name}: expected a whole number {allowed}; got {value!r}")
    return value


def bool_field(body: dict, name: str, default: Optional[bool] = None) -> bool:
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise ApiError(HTTPStatus.BAD_REQUEST, f"{name}: expected true or false; got {value!r}")
    return value


def action_in(body: dict, ten_card: str) -> int:
    """The action id a play request names: ``{"action": id}`` or ``{"move": "play A♥"}``, exactly one."""
    only_fields(body, ("action", "move"))
    if ("action" in body) == ("move" in body):
        raise ApiError(HTTPStatus.BAD_REQUEST, 'give exactly one of "action" (an action id 0..150) and "move" '
                                               '(its text: "pass", "bid R", "bid 75", "call A♥", "play 3♠")')
    if "action" in body:
        return int_field(body, "action", 0, NUM_ACTIONS - 1)
    move = body["move"]
    if not isinstance(move, str):
        raise ApiError(HTTPStatus.BAD_REQUEST, f"move: expected text such as \"play A♥\"; got {move!r}")
    try:
        return text_to_action(move.strip(), ten_card)
    except ValueError as error:
        raise ApiError(HTTPStatus.BAD_REQUEST, f"move: {error}") from None


# --- the endpoints -------------------------------------------------------------------------
# Each takes (settings, the browser's session, the request body) and returns the answer; it checks
# everything before it changes anything.

def _started(table, what: str, start: str):
    if table is None:
        raise ApiError(HTTPStatus.CONFLICT, f"no {what} in this session yet: start one with POST {start}")
    return table


def config(settings: Settings, session: BrowserSession, body: dict) -> dict:
    ten = settings.rules.ten_card
    points = ", ".join(f"{FACE_SYMBOLS[face - 1]} {FACE_POINTS[ten][face]}" for face in FACE_ORDER[ten]
                       if face in FACE_POINTS[ten])
    return {"version": __version__, "rules": settings.rules_name, "seat": settings.seat, "card_points": points,
            "faces": face_letters_text(), "suits": suit_names_text(),
            "opponents": list(settings.opponents), "watchers": list(settings.watchers),
            "seeded": settings.seed is not None, "recording": settings.record_folder is not None}


def play_view(session: BrowserSession) -> dict:
    return session.play.view(viewer=session.settings.seat)


def play_state(settings, session, body) -> dict:
    _started(session.play, "game", "/api/play/new")
    return play_view(session)


def play_new(settings, session, body) -> dict:
    only_fields(body, ())
    session.new_play()
    return play_view(session)


def play_join(settings, session, body) -> dict:
    only_fields(body, ())
    if session.play is None:
        session.new_play()
    return play_view(session)


def play_act(settings, session, body) -> dict:
    table = _started(session.play, "game", "/api/play/new")
    table.act(action_in(body, settings.rules.ten_card))
    return play_view(session)


def play_next(settings, session, body) -> dict:
    only_fields(body, ())
    table = _started(session.play, "game", "/api/play/new")
    table.next_hand()
    table.play_agents()
    return play_view(session)


def watch_view(session: BrowserSession) -> dict:
    return {**session.watch.view(viewer=None, face_up=session.watch_face_up), "face_up": session.watch_face_up}


def watch_state(settings, session, body) -> dict:
    _started(session.watch, "table to watch", "/api/watch/new")
    return watch_view(session)


def watch_new(settings, session, body) -> dict:
    only_fields(body, ("face_up",))
    face_up = bool_field(body, "face_up", default=session.watch_face_up)
    session.new_watch()
    session.watch_face_up = face_up
    return watch_view(session)


def watch_join(settings, session, body) -> dict:
    only_fields(body, ("face_up",))
    face_up = bool_field(body, "face_up", default=session.watch_face_up)
    if session.watch is None:
        session.new_watch()
        session.watch_face_up = face_up
    return watch_view(session)


def watch_step(settings, session, body) -> dict:
    only_fields(body, ())
    _started(session.watch, "table to watch", "/api/watch/new").step()
    return watch_view(session)


def watch_next(settings, session, body) -> dict:
    only_fields(body, ())
    _started(session.watch, "table to watch", "/api/watch/new").next_hand()
    return watch_view(session)


def watch_face(settings, session, body) -> dict:
    only_fields(body, ("face_up",))
    face_up = bool_field(body, "face_up")
    _started(session.watch, "table to watch", "/api/watch/new")
    session.watch_face_up = face_up
    return watch_view(session)


def replay_files(settings, session, body) -> dict:
    return {"recording": settings.record_folder is not None, "files": record_files(settings.record_folder),
            "open": session.replay is not None}


def replay_state(settings, session, body) -> dict:
    return _started(session.replay, "record open", "/api/replay/open").view()


def _record_named(settings: Settings, body: dict, game: int) -> tuple[dict, str]:
    """The record ``game`` of the record folder's file ``body["file"]``, and the file's name."""
    if "name" in body:
        raise ApiError(HTTPStatus.BAD_REQUEST, '"name" labels an opened "text"; a "file" is its own name')
    try:
        path = record_file(settings.record_folder, body["file"])
    except ValueError as error:
        raise ApiError(HTTPStatus.BAD_REQUEST, str(error)) from None
    except LookupError as error:
        raise ApiError(HTTPStatus.NOT_FOUND, str(error)) from None
    try:
        return record_in_file(path, game), path.name
    except OSError as error:
        raise ApiError(HTTPStatus.NOT_FOUND, f"cannot read {path.name!r}: {error.strerror or error}") from None
    except ValueError as error:
        raise ApiError(HTTPStatus.UNPROCESSABLE_ENTITY, str(error)) from None


def _record_sent(body: dict, game: int) -> tuple[dict, str]:
    """The record ``game`` of the JSON Lines ``body["text"]``, and the name it goes by."""
    text, name = body["text"], body.get("name", "uploaded file")
    if not isinstance(text, str) or not isinstance(name, str):
        raise ApiError(HTTPStatus.BAD_REQUEST, '"text" and "name" are text (the file\'s lines, its name)')
    source = printable(name)[:100]
    try:
        return record_in_text(text, game, source), source
    except ValueError as error:
        raise ApiError(HTTPStatus.UNPROCESSABLE_ENTITY, str(error)) from None


def replay_open(settings, session, body) -> dict:
    only_fields(body, ("file", "text", "name", "game"))
    if ("file" in body) == ("text" in body):
        raise ApiError(HTTPStatus.BAD_REQUEST, 'give exactly one of "file" (a file of GET /api/replay/files) and '
                                               '"text" (the JSON Lines of a record file read by the browser)')
    game = int_field(body, "game", 0, default=0)
    record, source = _record_named(settings, body, game) if "file" in body else _record_sent(body, game)
    replay = Replay(record, source, game)
    view = replay.view()  # drawn before the session's replay changes: a record that fails here changes nothing
    session.replay = replay
    return view


def replay_seek(settings, session, body) -> dict:
    only_fields(body, ("position",))
    replay = _started(session.replay, "record open", "/api/replay/open")
    position = int_field(body, "position", 0)
    try:
        replay.seek(position)
    except ValueError as error:
        raise ApiError(HTTPStatus.BAD_REQUEST, str(error)) from None
    return replay.view()


Endpoint = Callable[[Settings, BrowserSession, dict], dict]
ROUTES: dict[str, dict[str, Endpoint]] = {  # path -> method -> endpoint
    "/api/config": {"GET": config},
    "/api/play/state": {"GET": play_state},
    "/api/play/new": {"POST": play_new},
    "/api/play/join": {"POST": play_join},
    "/api/play/act": {"POST": play_act},
    "/api/play/next": {"POST": play_next},
    "/api/watch/state": {"GET": watch_state},
    "/api/watch/new": {"POST": watch_new},
    "/api/watch/join": {"POST": watch_join},
    "/api/watch/step": {"POST": watch_step},
    "/api/watch/next": {"POST": watch_next},
    "/api/watch/view": {"POST": watch_face},
    "/api/replay/files": {"GET": replay_files},
    "/api/replay/state": {"GET": replay_state},
    "/api/replay/open": {"POST": replay_open},
    "/api/replay/seek": {"POST": replay_seek},
}


# --- HTTP ----------------------------------------------------------------------------------

def ip_address(text: str):
    """``text`` as an IP address (IPv6 in brackets or not; an IPv4-mapped IPv6 address as its IPv4 one),
    or None if it is not one."""
    try:
        address = ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None
    return getattr(address, "ipv4_mapped", None) or address


def is_loopback(host: str) -> bool:
    address = ip_address(host)
    return address.is_loopback if address is not None else host.lower() in LOOPBACK_NAMES


def host_name(text: str) -> str:
    """The host of a ``Host`` header (``name``, ``name:port``, ``[v6]:port``): lowercase, without the port,
    the brackets or a final dot; empty if there is none."""
    try:
        return (urlsplit("//" + text).hostname or "").rstrip(".")
    except ValueError:  # an unbalanced bracket, say
        return ""


class Handler(BaseHTTPRequestHandler):
    server: "WebTableServer"
    new_session: Optional[str] = None  # the token of a session this request started, for its answer's cookie
    server_version = "briscola-webtable"
    sys_version = ""  # the Server header names no Python version
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:
        if not self.server.quiet:
            sys.stderr.write(printable(f"{self.address_string()} {format % args}") + "\n")

    def setup(self) -> None:
        self.timeout = self.server.connection_timeout  # a connection idle this long is closed
        super().setup()

    def _send(self, status: HTTPStatus, payload: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        if self.new_session:  # started by this request: the browser keeps it from now on
            self.send_header("Set-Cookie", f"{COOKIE}={self.new_session}; Path=/; HttpOnly; SameSite=Strict")
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def _send_json(self, status: HTTPStatus, answer: dict) -> None:
        try:
            payload = json.dumps(answer, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:  # text that is not Unicode (a lone surrogate) goes as JSON's \u escapes
            payload = json.dumps(answer).encode("ascii")
        self._send(status, payload, "application/json; charset=utf-8")

    def _token(self) -> Optional[str]:
        try:
            morsel = SimpleCookie(self.headers.get("Cookie", "")).get(COOKIE)
        except CookieError:
            return None
        return morsel.value if morsel else None

    def _check_host(self) -> None:
        host = self.headers.get("Host", "")
        if not self.server.answers_to(host, self.connection.getsockname()[0]):
            raise ApiError(HTTPStatus.FORBIDDEN, f"this table answers only on this machine, at {self.server.url} "
                                                 "(another name of it: start it with --allow-host NAME); "
                                                 f"the Host {printable(host)[:200]!r} is refused")

    def _session(self) -> BrowserSession:
        """The session of the request's cookie, or a new one if the request may start it (the table's own
        page, or no page); its cookie then goes with the answer."""
        session = self.server.store.get(self._token())
        if session is not None:
            return session
        site = self.headers.get("Sec-Fetch-Site")
        if site is not None and site.strip().lower() not in SESSION_STARTERS:
            raise ApiError(HTTPStatus.FORBIDDEN, f"no session, and a request from another site ({printable(site)[:40]}"
                                                 f") cannot start one: open the table at {self.server.url}")
        try:
            self.new_session, session = self.server.store.create()
        except SessionsFull as error:
            raise ApiError(HTTPStatus.SERVICE_UNAVAILABLE, str(error)) from None
        return session

    def _body(self) -> dict:
        length = self.headers.get("Content-Length", "0")
        if not length.isdigit():
            raise ApiError(HTTPStatus.BAD_REQUEST, f"Content-Length: expected a number of bytes; got {length!r}")
        if int(length) > MAX_BODY:
            raise ApiError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"the body is {int(length):,} bytes; "
                                                                f"at most {MAX_BODY:,} are taken")
        try:
            data = self.rfile.read(int(length))
        except TimeoutError:
            raise ApiError(HTTPStatus.REQUEST_TIMEOUT, f"the body of {int(length):,} bytes did not come within "
                                                       f"{self.server.connection_timeout:g} s") from None
        if len(data) < int(length):
            raise ApiError(HTTPStatus.BAD_REQUEST, f"the body ended after {len(data):,} of its {int(length):,} bytes")
        self.body_read = True
        kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise ApiError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                           f"send the body as JSON with Content-Type: application/json; got {kind or 'none'!r}")
        if not data.strip():
            return {}
        try:
            body = json.loads(data.decode("utf-8"))
        except UnicodeDecodeError:
            raise ApiError(HTTPStatus.BAD_REQUEST, "the body is not UTF-8 text") from None
        except json.JSONDecodeError as error:
            raise ApiError(HTTPStatus.BAD_REQUEST, f"the body is not JSON: {error.msg} at character {error.pos}") \
                from None
        except RecursionError:
            raise ApiError(HTTPStatus.BAD_REQUEST, "the body is JSON nested too deeply to read; the API's bodies "
                                                   "nest no more than an object of plain values") from None
        if not isinstance(body, dict):
            raise ApiError(HTTPStatus.BAD_REQUEST, f"the body must be a JSON object; got a {type(body).__name__}")
        return body

    def _handle(self) -> None:
        self.body_read, self.new_session = False, None
        try:
            self._check_host()
            path = urlsplit(self.path).path
            if self.command in ("GET", "HEAD") and path in self.server.assets:
                return self._page(path)
            methods = ROUTES.get(path)
            if methods is None:
                raise ApiError(HTTPStatus.NOT_FOUND, f"no such path {printable(path)[:200]!r}; the page is at /")
            if self.command not in methods:
                raise ApiError(HTTPStatus.METHOD_NOT_ALLOWED, f"{path} takes {', '.join(methods)}, "
                                                              f"not {self.command}")
            body = self._body() if self.command == "POST" else {}
            session = self._session()
            with session.lock:
                answer = methods[self.command](self.server.settings, session, body)
            self._send_json(HTTPStatus.OK, answer)
        except ApiError as error:
            if self.command == "POST" and not self.body_read:
                self.close_connection = True  # its unread body would be taken for the next request
            self._refused(error.status, str(error))
        except NotNow as error:
            self._refused(HTTPStatus.CONFLICT, str(error))
        except Exception as error:  # a fault of the server's own: said to the page, the traceback to the log
            traceback.print_exc()
            self._send_json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"the server failed: {error!r}"})

    def _refused(self, status: HTTPStatus, message: str) -> None:
        """Answer a refusal; a session the request started goes with it, so that nothing has changed."""
        if self.new_session:
            self.server.store.discard(self.new_session)
            self.new_session = None
        self._send_json(status, {"error": message})

    def _page(self, path: str) -> None:
        """The page or an asset, the same for everyone: loading it starts no session."""
        self._send(HTTPStatus.OK, self.server.assets[path], ASSETS[path][1])

    do_GET = do_POST = do_HEAD = _handle

    def _not_allowed(self) -> None:
        self.new_session = None
        self._send_json(HTTPStatus.METHOD_NOT_ALLOWED, {"error": f"{self.command} is not used here; GET and POST are"})

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_allowed


class WebTableServer(ThreadingHTTPServer):
    """The server of one ``briscola serve``: its settings, its browser sessions, the page in memory.

    ``allow_hosts``: more names (or addresses) the ``Host`` of a request may give (:meth:`answers_to`);
    ``agents``: the pool the sessions' tables take their agents from (default: one of its own)."""

    daemon_threads = True  # a browser's open connection does not keep the command from ending

    def __init__(self, settings: Settings, host: str = "127.0.0.1", port: int = 8000, quiet: bool = False,
                 allow_hosts: Sequence[str] = (), agents: Optional[AgentPool] = None):
        self.settings, self.quiet = settings, quiet
        self.store = SessionStore(settings, agents=agents)
        static = resources.files("webtable") / "static"
        self.assets = {path: (static / name).read_bytes() for path, (name, _) in ASSETS.items()}
        self.loopback = is_loopback(host)
        self.allow_hosts = frozenset(host_name(name) for name in allow_hosts)
        self.machine_name = socket.gethostname().lower().rstrip(".")
        self.connection_timeout = CONNECTION_TIMEOUT
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host, port), Handler)

    @property
    def every_address(self) -> bool:
        """Whether it listens on every address of the machine (``--host 0.0.0.0``, ``::`` or ``""``)."""
        return ip_address(self.server_address[0]).is_unspecified

    @property
    def url(self) -> str:
        """The address to open in a browser on this machine (a loopback one when it listens on all)."""
        host, port = self.server_address[:2]
        if self.every_address:
            host = "::1" if self.address_family == socket.AF_INET6 else "127.0.0.1"
        return f"http://{'[' + host + ']' if ':' in host else host}:{port}/"

    def answers_to(self, host: str, local_address: str) -> bool:
        """Whether a request whose ``Host`` header is ``host``, come in on this machine's address
        ``local_address``, is answered: its host names this machine (a loopback name or address; unless
        the server listens on loopback only, also ``local_address`` and the machine's host name) or is one of
        ``allow_hosts``. A page of another site reaching the server through a DNS name rebound to this
        machine sends its own name, which is none of these."""
        name = host_name(host)
        if not name:
            return False
        if name in self.allow_hosts or is_loopback(name):
            return True
        if self.loopback:
            return False
        address = ip_address(name)
        return name == self.machine_name if address is None else address == ip_address(local_address)

    def handle_error(self, request, client_address) -> None:
        """A connection the browser dropped or that timed out ends quietly; any other fault is printed."""
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)
