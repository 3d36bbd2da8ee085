"""The web table's memory as play sessions accumulate: the resident set size (RSS) of a ``briscola serve``
process after its first play session and after more, each session a browser of its own starting a game.

    python -m benchmarks.webtable_memory --opponents ppo:checkpoints/strong.pt --sessions 1 20

The server runs as a child process (``python -m briscola_cli serve --port 0``) so that its RSS, read from
``/proc/<pid>/status`` (Linux), is the server's alone. Each session is a client that takes its own session
cookie (from the first API call, or the page on servers that give it there) and starts a game with
``POST /api/play/new``: a table of the opponents, dealt and played up to the person's first move. Printed:
the RSS at start and after each count of ``--sessions``, and how long each ``play/new`` took.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def rss_mb(pid: int) -> float:
    """The resident set size of process ``pid``, in MB (10**6 bytes), from ``/proc``."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024 / 1e6
    raise RuntimeError(f"no VmRSS for process {pid}")


class Client:
    """One browser session: its cookie, sent with every request."""

    def __init__(self, port: int):
        self.port, self.cookie = port, None

    def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        headers = {"Host": f"127.0.0.1:{self.port}", "Sec-Fetch-Site": "same-origin"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        if method == "POST":
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        given = response.getheader("Set-Cookie")
        if given:
            self.cookie = given.split(";")[0]
        connection.close()
        return response.status, data

    def start_game(self) -> float:
        """Load the page, take a session, start a game; the seconds ``POST /api/play/new`` took."""
        self.request("GET", "/")
        status, data = self.request("GET", "/api/config")
        if status != 200:
            raise RuntimeError(f"GET /api/config answered {status}: {data[:200]!r}")
        started = time.perf_counter()
        status, data = self.request("POST", "/api/play/new", b"{}")
        if status != 200:
            raise RuntimeError(f"POST /api/play/new answered {status}: {data[:200]!r}")
        return time.perf_counter() - started


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opponents", nargs="+", default=["ppo:checkpoints/strong.pt"], metavar="SPEC")
    parser.add_argument("--sessions", nargs="+", type=int, default=[1, 20], metavar="N",
                        help="the session counts to report the RSS at, ascending")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    command = [sys.executable, "-m", "briscola_cli", "serve", "--port", "0", "--seed", str(args.seed),
               "--opponents", *args.opponents]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        line = server.stdout.readline()
        if "http://" not in line:
            raise RuntimeError(f"the server did not start: {line}{server.stderr.read()}")
        port = int(line.split("http://")[1].split("/")[0].rsplit(":", 1)[1])
        report = {"opponents": args.opponents, "rss_mb": {0: round(rss_mb(server.pid), 1)}, "play_new_s": []}
        print(f"server {server.pid}: {line.strip()}\n{'sessions':>8} {'RSS MB':>8}\n{0:>8} {rss_mb(server.pid):8.1f}",
              flush=True)
        done = 0
        for count in sorted(args.sessions):
            while done < count:
                report["play_new_s"].append(round(Client(port).start_game(), 3))
                done += 1
            report["rss_mb"][count] = round(rss_mb(server.pid), 1)
            print(f"{count:>8} {report['rss_mb'][count]:8.1f}", flush=True)
        times = report["play_new_s"]
        print(f"POST /api/play/new: first {times[0]:.2f} s, median of the others "
              f"{statistics.median(times[1:] or times):.2f} s")
        print(json.dumps(report))
    finally:
        server.terminate()
        server.communicate(timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
