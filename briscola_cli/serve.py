"""A local web page with the table, in three modes:
  play    you at one seat, agents at the four others, hand after hand (the deal passing on),
          with the session's running total; click to bid, call and play
  watch   five agents, one action a step or running at the speed you choose, hands face up or not
  replay  a game record (JSON Lines, as --record and briscola evaluate --record write them), stepped
          forward and back: a file of the --record folder, or one you open from your computer
Open the address it prints in a browser; Ctrl-C stops the server. Every browser has its own games."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Optional

from briscola_env.rules import STANDARD_TABLE, rules_text
from briscola_env.cards import NUM_SEATS
from evaluation.report import writable_folder
from webtable.pool import AgentPool
from webtable.server import WebTableServer, ip_address
from webtable.sessions import Settings

from .options import add_rules_option

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
HOST_NAME = re.compile(r"[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?", re.IGNORECASE)


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 (any free port) to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number 0..65535; got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0..65535 (0: any free port); got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--opponents", nargs="+", default=["heuristic"], metavar="SPEC",
                        help="play mode's agents: one spec for the four other seats, or four in seat order "
                             "(the specs of briscola evaluate --help)")
    parser.add_argument("--seat", type=int, default=0, choices=range(NUM_SEATS), help="your seat in play mode")
    parser.add_argument("--watch", nargs="+", default=None, metavar="SPEC",
                        help="watch mode's agents: one spec for all five seats, or five in seat order "
                             "(default: the first --opponents spec at every seat)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seeds the deals and the agents: every new session deals the same hands, those of "
                             "briscola play --seed (default: new hands each time)")
    add_rules_option(parser)
    parser.add_argument("--record", type=Path, default=None, metavar="DIR",
                        help="write your games into this folder as game records (one play-<time>-<id>.jsonl per "
                             "play session), and offer its .jsonl files in replay mode (default: nothing written, "
                             "and replay mode opens files from your computer only)")
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help="the address to listen on (0.0.0.0: every address of this machine); another than "
                             "127.0.0.1 lets other machines play at your table and replay your records: a trusted "
                             "network only. Requests must name this machine by an address of it or its host name")
    parser.add_argument("--allow-host", nargs="+", default=None, metavar="NAME",
                        help="more names (or addresses) of this machine that requests may name it by, such as the "
                             "name other machines reach it by on your network (default: none but its addresses, "
                             "localhost and its host name)")
    parser.add_argument("--port", type=port_number, default=DEFAULT_PORT, help="the port (0: any free port)")
    parser.add_argument("--log-requests", action="store_true", help="print every request on stderr")


def allowed_hosts(names) -> list[str]:
    """``--allow-host``'s names, checked: each a bare host name or IP address (no scheme, port or path)."""
    for name in names:
        if not (HOST_NAME.fullmatch(name) or ip_address(name) is not None):
            raise ValueError(f"--allow-host: {name!r} is not a host name or an IP address; give the bare name, "
                             "as in --allow-host table.lan 192.168.1.20 (no http://, port or path)")
    return list(names)


def settings_from(args: argparse.Namespace, agents: Optional[AgentPool] = None) -> Settings:
    """The server's settings from the parsed arguments, every agent spec built once to check it: by
    ``agents``, which then holds them for the server's tables (default: a pool used for the check only)."""
    opponents, watchers = list(args.opponents), list(args.watch or args.opponents[:1])
    if len(opponents) not in (1, NUM_SEATS - 1):
        raise ValueError(f"--opponents: give one agent spec (for the four other seats) or four, in seat order; "
                         f"got {len(opponents)}")
    if len(watchers) not in (1, NUM_SEATS):
        raise ValueError(f"--watch: give one agent spec (for all five seats) or five, in seat order; "
                         f"got {len(watchers)}")
    rules = args.rules
    if rules.table_shape != STANDARD_TABLE:  # the page draws five seats of 8 cards, no discards
        raise ValueError(f"--rules {rules_text(rules)}: the web table seats five players without a monte; "
                         "evaluate agents at that table with briscola evaluate --rules NAME")
    agents = AgentPool(rules) if agents is None else agents
    if agents.rules != rules:
        raise ValueError(f"the agent pool given plays other rules than --rules {rules_text(rules)}")
    for spec in dict.fromkeys(opponents + watchers):  # each spec once, so a bad one fails here, not in a page
        agents.prototype(spec)
    record = writable_folder(args.record) if args.record is not None else None
    return Settings(opponents=tuple(opponents * (NUM_SEATS - 1) if len(opponents) == 1 else opponents),
                    seat=args.seat, watchers=tuple(watchers * NUM_SEATS if len(watchers) == 1 else watchers),
                    seed=args.seed, rules_name=rules_text(rules), rules=rules, record_folder=record)


def make_server(args: argparse.Namespace) -> WebTableServer:
    """The server ``args`` describe, listening (not yet serving); a ValueError if it cannot be. Each
    network is loaded once, to check its spec, and then shared by the server's tables."""
    hosts = allowed_hosts(args.allow_host or [])
    agents = AgentPool(args.rules)
    settings = settings_from(args, agents)
    try:
        return WebTableServer(settings, args.host, args.port, quiet=not args.log_requests, allow_hosts=hosts,
                              agents=agents)
    except OSError as error:
        raise ValueError(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}"
                         + ("; choose another --port" if args.port else "")) from None


def exposure_warning(server: WebTableServer) -> Optional[str]:
    """What to tell the person who starts a server that listens beyond this machine (None if it does not):
    who can reach it, what they can do, and which names it answers to."""
    if server.loopback:
        return None
    host, port = server.server_address[:2]
    where = f"every address of this machine ({host})" if server.every_address else host
    records = server.settings.record_folder
    names = ", ".join(["its addresses", "localhost", server.machine_name, *sorted(server.allow_hosts)])
    return (f"warning: listening on {where}, port {port}: anyone who can reach this machine can play at this table"
            + (f" and replay every record in {records}" if records else "")
            + f"; run it on a trusted network only. It answers requests that name this machine ({names}); "
            "--allow-host NAME adds a name.")


def run(args: argparse.Namespace, server: Optional[WebTableServer] = None) -> int:
    """Serve until Ctrl-C (``server``: one :func:`make_server` made, else made here from ``args``); the
    exit status, 0. A server that listens beyond this machine is said on stderr first (:func:`exposure_warning`)."""
    server = server or make_server(args)
    settings = server.settings
    warning = exposure_warning(server)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    print(f"Briscola table at {server.url} (rules {settings.rules_name}): play against "
          f"{', '.join(dict.fromkeys(settings.opponents))}, watch {', '.join(dict.fromkeys(settings.watchers))}"
          + (f"; your games are recorded in {settings.record_folder}" if settings.record_folder else "")
          + ". Ctrl-C stops it.", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nserver stopped", flush=True)
    finally:
        server.server_close()
    return 0
