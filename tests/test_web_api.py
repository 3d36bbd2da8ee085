"""The web table's JSON API (webtable.server), through a real server on a free port: every endpoint
refuses malformed, illegal and out-of-turn requests with a 4xx and a message, and the game is the
same afterwards; the hands played through it are the engine's and the terminal's; requests reach
no file but those of the record folder; each browser session has its own games."""

from __future__ import annotations

import ast
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from briscola_env import __version__, raw_env, records
from briscola_env.actions import text_to_action
from briscola_env.rules import preset
from evaluation.terminal import play_in_terminal
from briscola_cli.main import command_parser
from briscola_cli.serve import make_server, settings_from
from webtable import WebTableServer
from webtable.sessions import SessionStore, Settings
from webtable.tables import Table, deal_of

ROOT = Path(__file__).resolve().parents[1]
SEED = 5


def settings(record_folder=None, rules_name="standard", seed=SEED) -> Settings:
    return Settings(opponents=("heuristic",) * 4, seat=0, watchers=("heuristic",) * 5, seed=seed,
                    rules_name=rules_name, rules=preset(rules_name), record_folder=record_folder)


@pytest.fixture
def serve():
    """``serve(settings) -> WebTableServer``, running in a thread until the test ends."""
    started = []

    def start(chosen: Settings) -> WebTableServer:
        server = WebTableServer(chosen, "127.0.0.1", 0, quiet=True)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.shutdown()
        server.server_close()


class Browser:
    """One browser session: the cookie the server gave it, sent with every request. ``load``: load the page
    and make the page's first API call, as a browser does, taking the cookie its answer sets."""

    def __init__(self, server: WebTableServer, load: bool = True):
        self.port = server.server_address[1]
        self.cookie = None
        if load:
            for path in ("/", "/api/config"):
                status, headers, _ = self.raw("GET", path, headers={"Sec-Fetch-Site": "same-origin"})
                assert status == 200
                self.cookie = headers["Set-Cookie"].split(";")[0] if "Set-Cookie" in headers else self.cookie
            assert self.cookie

    def raw(self, method, path, body: bytes = b"", headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        sent = {"Host": f"127.0.0.1:{self.port}", **({"Cookie": self.cookie} if self.cookie else {}), **(headers or {})}
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response.status, dict(response.getheaders()), data

    def call(self, method, path, body=None, raw: bytes = None, content_type="application/json", headers=None):
        """``(status, answer)``: a POST sends ``body`` as JSON (or the bytes ``raw``)."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else b"")
        status, _, answer = self.raw(method, path, data, {"Content-Type": content_type, **(headers or {})}
                                     if method == "POST" else headers)
        return status, json.loads(answer)

    def post(self, path, body=None, **kw):
        return self.call("POST", path, {} if body is None and "raw" not in kw else body, **kw)

    def get(self, path):
        return self.call("GET", path)


def ok(answer):
    status, data = answer
    assert status == 200, data
    return data


def refused(answer, status, fragment):
    got, data = answer
    assert got == status, data
    assert fragment in data["error"], data["error"]


def first_move(view) -> str:
    """The first legal move the page offers: a rank bid, else pass, a point bid, a call, a card."""
    moves = view["moves"]
    legal_ranks = [rank["move"] for rank in moves["ranks"] if rank["legal"]]
    options = legal_ranks + (["pass"] if moves["pass"] else [])
    options += [f"bid {moves['points']['lowest']}"] if moves["points"] else []
    options += [card["move"] for card in moves["calls"] + moves["plays"]]
    return options[0]


def play_out(browser, pass_after_one_bid=True) -> tuple[dict, list[str]]:
    """Play the hand in progress to its end through the API; the final view and the moves sent."""
    view, sent = ok(browser.get("/api/play/state")), []
    while view["phase"] != "done":
        move = first_move(view)
        if pass_after_one_bid and view["phase"] == "auction" and any(m.startswith("bid") for m in sent):
            move = "pass" if view["moves"]["pass"] else move
        sent.append(move)
        view = ok(browser.post("/api/play/act", {"move": move}))
    return view, sent


# --- the page ------------------------------------------------------------------------------

def test_the_page_its_assets_and_the_session_cookie(serve):
    server = serve(settings())
    browser = Browser(server, load=False)
    status, headers, page = browser.raw("GET", "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html") and "Set-Cookie" not in headers
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    linked = re.findall(rb'(?:src|href)="([^"]*)"', page)
    assert linked and all(link.startswith(b"/static/") for link in linked)  # offline: nothing from elsewhere
    for asset in ("/static/table.js", "/static/table.css", "/static/favicon.svg"):
        status, _, data = browser.raw("GET", asset)
        assert status == 200 and data
        assert b"http" not in data.replace(b'xmlns="http://www.w3.org/2000/svg"', b"") and b"href" not in data
    status, headers, _ = browser.raw("GET", "/api/config", headers={"Sec-Fetch-Site": "same-origin"})
    cookie = headers["Set-Cookie"]  # the page's first API call starts its session
    assert cookie.startswith("briscola_session=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    browser.cookie = cookie.split(";")[0]
    for path in ("/", "/api/config"):
        status, headers, _ = browser.raw("GET", path)
        assert status == 200 and "Set-Cookie" not in headers  # a known session keeps its cookie


def test_no_request_path_reaches_the_filesystem(serve):
    browser = Browser(serve(settings()))
    for path in ("/static/../../pyproject.toml", "/static/..%2f..%2fpyproject.toml", "/../README.md",
                 "/static/index.html/../../README.md", "/webtable/server.py", "//etc/passwd", "/static/"):
        status, _, data = browser.raw("GET", path)
        assert status == 404, path
        assert b"[project]" not in data and b"root:" not in data


def test_a_refused_request_s_body_is_not_read_as_the_next_request(serve):
    browser = Browser(serve(settings()))
    connection = http.client.HTTPConnection("127.0.0.1", browser.port, timeout=30)
    headers = {"Host": f"127.0.0.1:{browser.port}", "Cookie": browser.cookie, "Content-Type": "application/json"}
    for path in ("/api/nothing", "/api/config"):  # refused before the body is read: 404, 405
        connection.request("POST", path, body=b'GET /api/config HTTP/1.1\r\n\r\n', headers=headers)
        assert connection.getresponse().read() and connection.sock is None  # the server closed the connection
    connection.request("GET", "/api/config", headers=headers)  # a new connection, a clean answer
    assert json.loads(connection.getresponse().read())["rules"] == "standard"
    connection.close()


def test_api_requests_use_only_sessions_the_server_gave(serve):
    """A token the server did not give names no session: from another site the request is refused,
    from the table's page it starts a session of the server's own making."""
    server = serve(settings())
    stranger = Browser(server, load=False)
    for cookie in (None, "briscola_session=made-up-token", 'briscola_session="unterminated'):
        stranger.cookie = cookie
        refused(stranger.call("GET", "/api/config", headers={"Sec-Fetch-Site": "cross-site"}), 403, "no session")
        refused(stranger.call("POST", "/api/play/new", {}, headers={"Sec-Fetch-Site": "cross-site"}), 403,
                "another site")
        status, headers, _ = stranger.raw("GET", "/api/config", headers={"Sec-Fetch-Site": "same-origin"})
        assert status == 200 and headers["Set-Cookie"].startswith("briscola_session=")
        assert "made-up-token" not in headers["Set-Cookie"]
    assert len(server.store) == 3


def test_a_foreign_host_name_is_refused(serve):
    """DNS rebinding: a page of another site reaching 127.0.0.1 through its own name is refused."""
    server = serve(settings())
    browser = Browser(server)
    refused(browser.call("GET", "/api/config", headers={"Host": "attacker.example:80"}), 403, "only on this machine")
    status, _, _ = browser.raw("GET", "/", headers={"Host": "evil.example"})
    assert status == 403
    assert ok(browser.call("GET", "/api/config", headers={"Host": f"localhost:{browser.port}"}))["rules"] == "standard"


def test_the_config_names_the_agents_and_the_rules(serve, tmp_path):
    assert ok(Browser(serve(settings(record_folder=tmp_path))).get("/api/config")) == {
        "version": __version__, "rules": "standard", "seat": 0, "card_points": "A 11, 3 10, R 4, C 3, F 2",
        "faces": "A ace, F jack, C knight, R king: the initials of the Italian asso, fante, cavallo, re",
        "suits": "♥ hearts, ♦ diamonds, ♣ clubs, ♠ spades: in Italian coppe, denari, bastoni, spade",
        "opponents": ["heuristic"] * 4, "watchers": ["heuristic"] * 5, "seeded": True, "recording": True}
    assert ok(Browser(serve(settings(rules_name="seven"))).get("/api/config"))["card_points"] == \
        "A 11, 7 10, R 4, C 3, F 2"


def test_unknown_paths_and_wrong_methods(serve):
    browser = Browser(serve(settings()))
    refused(browser.get("/api/nothing"), 404, "no such path")
    refused(browser.get("/api/play/act"), 405, "takes POST")
    refused(browser.post("/api/config"), 405, "takes GET")
    refused(browser.call("PUT", "/api/play/act"), 405, "not used here")
    refused(browser.call("DELETE", "/"), 405, "not used here")


# --- play ----------------------------------------------------------------------------------

def test_a_hand_played_through_the_api_is_the_engine_s_and_the_terminal_s(serve, tmp_path):
    browser = Browser(serve(settings(record_folder=tmp_path)))
    refused(browser.get("/api/play/state"), 409, "POST /api/play/new")
    first = ok(browser.post("/api/play/new"))
    env = raw_env()
    env.reset(seed=SEED)  # the deal of briscola play --seed 5
    assert first["dealer"] == env.game.dealer
    assert sorted(c["id"] for c in first["seats"][0]["hand"]) == sorted(env.game.hands[0])
    view, sent = play_out(browser)
    [written] = list(tmp_path.glob("play-*.jsonl"))
    [record] = list(records.read(written))
    records.validate([record])
    assert record["deal"] == deal_of(env.game) and record["agents"] == ["human"] + ["heuristic"] * 4
    engine_payoffs = records.replay([record]).rewards[0]
    assert np.allclose(view["outcome"]["payoffs"], engine_payoffs)
    next_dealer = (env.game.dealer + 1) % 5
    assert view["session"] == {"hands": 1, "totals": view["outcome"]["payoffs"], "next_dealer": next_dealer}
    assert view["your_result"].startswith("You ") or view["your_result"].startswith("Void")
    # The terminal, given the same moves on the same seed, plays the same hand.
    typed = iter(move.split(" ", 1)[-1] for move in sent)
    [terminal_payoffs] = play_in_terminal(["heuristic"], seat=0, seed=SEED, hands=1, input_fn=lambda _: next(typed),
                                          print_fn=lambda _: None)
    assert np.allclose(terminal_payoffs, engine_payoffs)
    # The next hand: the deal passes, the totals run on, and it is recorded in the same file.
    second = ok(browser.post("/api/play/next"))
    assert second["dealer"] == next_dealer and second["session"]["hands"] == 1
    view, _ = play_out(browser)
    assert np.allclose(view["session"]["totals"], np.add(engine_payoffs, view["outcome"]["payoffs"]))
    assert len(list(records.read(written))) == 2


def test_the_person_sees_only_what_a_player_may_see(serve):
    browser = Browser(serve(settings()))
    view = ok(browser.post("/api/play/new"))
    while view["phase"] != "done":
        others = [seat["hand"] for seat in view["seats"][1:]]
        assert others == [None] * 4, "another seat's hand was sent to the page"
        call = view["call"]
        if call and call["partner"] is not None:
            revealed = any(t["card"]["id"] == call["card"]["id"] for trick in view["tricks"] for t in trick["cards"]) \
                or (view["trick"] and any(t["card"]["id"] == call["card"]["id"] for t in view["trick"]["cards"]))
            assert revealed or call["partner"] == 0, "the secret partner was sent before he was known"
        view = ok(browser.post("/api/play/act", {"move": first_move(view)}))
    assert all(hand is not None for hand in view["outcome"]["hands"])  # the end: every hand as dealt


BAD_ACT = [  # (body or raw bytes, content type, status, message fragment)
    (b"{", "application/json", 400, "not JSON"),
    (b"[1, 2]", "application/json", 400, "JSON object"),
    (b"\xff\xfe", "application/json", 400, "not UTF-8"),
    (b'{"move": "pass"}', "text/plain", 415, "application/json"),
    (b'{"move": "pass"}', "application/x-www-form-urlencoded", 415, "application/json"),
    ({}, "application/json", 400, "exactly one"),
    ({"action": 0, "move": "pass"}, "application/json", 400, "exactly one"),
    ({"action": "0"}, "application/json", 400, "whole number"),
    ({"action": True}, "application/json", 400, "whole number"),
    ({"action": 1.0}, "application/json", 400, "whole number"),
    ({"action": 151}, "application/json", 400, "0..150"),
    ({"action": -1}, "application/json", 400, "0..150"),
    ({"move": 3}, "application/json", 400, "expected text"),
    ({"move": "dance"}, "application/json", 400, "cannot parse"),
    ({"move": "bid 130"}, "application/json", 400, "61..120"),
    ({"move": "play 11♥"}, "application/json", 400, "cannot parse"),
    ({"move": "pass", "seat": 3}, "application/json", 400, "unknown field"),
]


def test_malformed_play_requests_are_refused_and_change_nothing(serve):
    browser = Browser(serve(settings()))
    before = ok(browser.post("/api/play/new"))
    assert before["phase"] == "auction" and before["moves"] is not None
    for body, content_type, status, fragment in BAD_ACT:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        refused(browser.post("/api/play/act", raw=raw, content_type=content_type), status, fragment)
        assert ok(browser.get("/api/play/state")) == before, body
    refused(browser.post("/api/play/new", {"seed": 3}), 400, "unknown field")
    refused(browser.post("/api/play/next"), 409, "still being played")
    refused(browser.post("/api/play/act", raw=b"{}", headers={"Content-Length": "x"}), 400, "Content-Length")
    refused(browser.post("/api/play/act", raw=b"", headers={"Content-Length": str(64 * 1024 * 1024)}), 413, "at most")
    assert ok(browser.get("/api/play/state")) == before


def test_illegal_and_late_moves_are_refused_and_change_nothing(serve):
    browser = Browser(serve(settings()))
    before = ok(browser.post("/api/play/new"))
    card = before["seats"][0]["hand"][0]["text"]
    refused(browser.post("/api/play/act", {"move": f"play {card}"}), 409, "the auction is on")
    refused(browser.post("/api/play/act", {"move": "call A♥"}), 409, "not allowed now")
    refused(browser.post("/api/play/act", {"action": text_to_action(f"play {card}")}), 409, "Your legal moves: pass")
    illegal_rank = [rank["move"] for rank in before["moves"]["ranks"] if not rank["legal"]]
    for move in illegal_rank[:2]:
        refused(browser.post("/api/play/act", {"move": move}), 409, "not allowed now")
    if before["moves"]["points"] is None:
        refused(browser.post("/api/play/act", {"move": "bid 80"}), 409, "not allowed now")
    assert ok(browser.get("/api/play/state")) == before
    done, _ = play_out(browser)
    refused(browser.post("/api/play/act", {"move": "pass"}), 409, "the hand is over")
    assert ok(browser.get("/api/play/state")) == done


def test_point_bids_once_the_auction_is_in_points(serve):
    browser = Browser(serve(settings(rules_name="points_only")))
    view = ok(browser.post("/api/play/new"))
    points = view["moves"]["points"]
    assert view["moves"]["ranks"] == [] and points["highest"] == 120
    refused(browser.post("/api/play/act", {"move": "bid 2"}), 409, "not allowed now")  # no rank bids here
    refused(browser.post("/api/play/act", {"move": "bid 60"}), 400, "bid <61..120>")
    after = ok(browser.post("/api/play/act", {"move": f"bid {points['lowest']}"}))
    assert after["auction"][len(view["auction"])] == {"seat": 0, "bid": f"bid {points['lowest']}"}


def test_each_browser_session_has_its_own_game(serve):
    server = serve(settings(seed=None))
    one, two = Browser(server), Browser(server)
    first = ok(one.post("/api/play/new"))
    refused(two.get("/api/play/state"), 409, "no game")
    other = ok(two.post("/api/play/new"))
    ok(two.post("/api/play/act", {"move": first_move(other)}))
    assert ok(one.get("/api/play/state")) == first


def test_joining_starts_a_game_only_when_the_session_has_none(serve):
    """The page enters a mode by joining it: the session's game if there is one, else a new one, so a first
    visit is refused nothing (a refusal is an error in the browser's console and the server's log)."""
    server = serve(settings())
    browser = Browser(server)
    joined = ok(browser.post("/api/play/join"))
    assert joined == ok(browser.get("/api/play/state"))
    assert joined == ok(Browser(server).post("/api/play/new"))  # a new game: the seed's first hand
    moved = ok(browser.post("/api/play/act", {"move": first_move(joined)}))
    assert ok(browser.post("/api/play/join")) == moved  # the game in progress, unchanged
    refused(browser.post("/api/play/join", {"seat": 1}), 400, "unknown field")
    watched = ok(browser.post("/api/watch/join", {"face_up": True}))
    assert watched["face_up"] and watched["log"] == []
    stepped = ok(browser.post("/api/watch/step"))
    assert ok(browser.post("/api/watch/join", {"face_up": False})) == stepped  # face_up is for a new table only
    refused(browser.post("/api/watch/join", {"face_up": "yes"}), 400, "true or false")
    assert ok(browser.post("/api/play/join")) == moved


def test_the_session_store_forgets_the_least_recently_used():
    store = SessionStore(settings(), limit=2)
    a, _ = store.create()
    b, _ = store.create()
    store.get(a)  # a is used again: b is now the oldest
    c, _ = store.create()
    assert store.get(b) is None and store.get(a) is not None and store.get(c) is not None


def test_a_record_that_cannot_be_written_is_said_and_the_hand_stands(tmp_path):
    table = Table([None] + ["heuristic"] * 4, SEED, preset("standard"), record_file=tmp_path / "missing" / "x.jsonl")
    table.play_agents()
    while not table.over:
        moves = table.view(viewer=0)["moves"]
        table.act(text_to_action(first_move({"moves": moves})))
    assert table.hands_played == 1 and "was not recorded" in table.view(viewer=0)["record_error"]


# --- watch ---------------------------------------------------------------------------------

def test_watch_steps_a_hand_of_five_agents_to_the_end(serve):
    browser = Browser(serve(settings()))
    refused(browser.post("/api/watch/step"), 409, "POST /api/watch/new")
    refused(browser.post("/api/watch/new", {"face_up": "yes"}), 400, "true or false")
    view = ok(browser.post("/api/watch/new"))
    assert view["face_up"] is False and all(seat["hand"] is None for seat in view["seats"])
    refused(browser.post("/api/watch/step", {"steps": 3}), 400, "unknown field")
    refused(browser.post("/api/watch/view", {}), 400, "face_up: expected true or false")
    refused(browser.post("/api/watch/next"), 409, "still being played")
    refused(browser.post("/api/play/act", {"move": "pass"}), 409, "no game")  # watch is not play
    assert ok(browser.get("/api/watch/state")) == view
    face_up = ok(browser.post("/api/watch/view", {"face_up": True}))
    assert all(len(seat["hand"]) == 8 for seat in face_up["seats"])
    while view["phase"] != "done":
        view = ok(browser.post("/api/watch/step"))
    refused(browser.post("/api/watch/step"), 409, "the hand is over")
    assert ok(browser.get("/api/watch/state")) == view
    env = raw_env()
    env.reset(seed=SEED)
    actions = [text_to_action(move["text"]) for move in view["log"]]
    record = records.record(preset("standard"), deal_of(env.game), env.game.dealer, actions, ["heuristic"] * 5)
    assert np.allclose(view["outcome"]["payoffs"], records.replay([record]).rewards[0])
    following = ok(browser.post("/api/watch/next"))
    assert following["dealer"] == (view["dealer"] + 1) % 5 and following["session"]["hands"] == 1


# --- replay --------------------------------------------------------------------------------

def write_games(folder: Path, name="games.jsonl", count=2) -> list[dict]:
    """``count`` records of heuristic hands (the watch table's first hands) written to ``folder/name``."""
    table = Table(["heuristic"] * 5, SEED, preset("standard"), record_file=folder / name)
    for hand in range(count):
        if hand:
            table.next_hand()
        while not table.over:
            table.step()
    return list(records.read(folder / name))


def test_replay_steps_forward_and_back_through_a_record(serve, tmp_path):
    games = write_games(tmp_path)
    browser = Browser(serve(settings(record_folder=tmp_path)))
    assert ok(browser.get("/api/replay/files")) == {"recording": True, "files": [{"name": "games.jsonl", "records": 2}],
                                                    "open": False}
    refused(browser.get("/api/replay/state"), 409, "POST /api/replay/open")
    refused(browser.post("/api/replay/seek", {"position": 1}), 409, "no record open")
    start = ok(browser.post("/api/replay/open", {"file": "games.jsonl", "game": 1}))
    assert ok(browser.get("/api/replay/files"))["open"]  # the page asks for the state of an open record only
    record = games[1]
    assert start["replay"]["position"] == 0 and start["replay"]["length"] == len(record["actions"])
    assert [sorted(c["id"] for c in seat["hand"]) for seat in start["seats"]] == \
        [sorted(c for c in range(40) if record["deal"][c] == s) for s in range(5)]
    end = ok(browser.post("/api/replay/seek", {"position": len(record["actions"])}))
    shown = [[trick_card["seat"], trick_card["card"]["text"]] for t in end["tricks"] for trick_card in t["cards"]]
    assert shown == record["plays"] and end["outcome"]["payoffs"] == record["outcome"]["payoffs"]
    assert [[m["seat"], m["text"]] for m in end["log"][:len(record["auction"])]] == record["auction"]
    back = ok(browser.post("/api/replay/seek", {"position": len(record["actions"]) - 1}))
    assert back["outcome"] is None and len(back["trick"]["cards"]) == 4
    for body, status, fragment in [({"position": len(record["actions"]) + 1}, 400, "expected 0.."),
                                   ({"position": -1}, 400, "0 or more"), ({"position": "3"}, 400, "whole number"),
                                   ({}, 400, "required"), ({"position": 1, "by": 1}, 400, "unknown field")]:
        refused(browser.post("/api/replay/seek", body), status, fragment)
        assert ok(browser.get("/api/replay/state")) == back


@pytest.mark.parametrize("name, status, fragment", [
    ("../games.jsonl", 400, "bare"), ("/etc/passwd", 400, "bare"), ("sub/games.jsonl", 400, "bare"),
    ("..\\games.jsonl", 400, "bare"), (".hidden.jsonl", 400, "hidden"), ("games.txt", 400, "bare .jsonl"),
    ("", 400, "expected the name"), (5, 400, "expected the name"), (None, 400, "expected the name"),
    ("missing.jsonl", 404, "holds no file"), ("link.jsonl", 404, "holds no file"), ("inner.jsonl", 404, "holds no"),
])
def test_replay_opens_only_files_right_in_the_record_folder(serve, tmp_path, name, status, fragment):
    folder = tmp_path / "records"
    folder.mkdir()
    write_games(folder, count=1)
    outside = tmp_path / "outside.jsonl"
    outside.write_text((folder / "games.jsonl").read_text())
    (folder / "link.jsonl").symlink_to(outside)  # a link out of the folder is not offered
    (folder / "sub").mkdir()
    (folder / "sub" / "inner.jsonl").write_text((folder / "games.jsonl").read_text())
    browser = Browser(serve(settings(record_folder=folder)))
    assert [f["name"] for f in ok(browser.get("/api/replay/files"))["files"]] == ["games.jsonl"]
    opened = ok(browser.post("/api/replay/open", {"file": "games.jsonl"}))
    refused(browser.post("/api/replay/open", {"file": name}), status, fragment)
    assert ok(browser.get("/api/replay/state")) == opened


def test_replay_refuses_bad_records_and_requests(serve, tmp_path):
    [game] = write_games(tmp_path, count=1)
    (tmp_path / "broken.jsonl").write_text('{"version": 1, "deal": [0]}\n' + "not json\n")
    browser = Browser(serve(settings(record_folder=tmp_path)))
    opened = ok(browser.post("/api/replay/open", {"text": json.dumps(game) + "\n", "name": "mine.jsonl"}))
    assert opened["replay"]["source"] == "mine.jsonl"
    tampered = {**game, "plays": game["plays"][::-1]}
    for body, status, fragment in [
            ({"file": "games.jsonl", "game": 1}, 422, "holds 1 records"),
            ({"file": "broken.jsonl"}, 422, "missing field"), ({"file": "broken.jsonl", "game": 1}, 422, "not a JSON"),
            ({"file": "games.jsonl", "game": -1}, 400, "0 or more"),
            ({"file": "games.jsonl", "name": "x"}, 400, "name"),
            ({"text": "\n\n"}, 422, "holds no records"), ({"text": json.dumps(tampered)}, 422, "plays"),
            ({"text": ["a"]}, 400, "are text"), ({"file": "games.jsonl", "text": "{}"}, 400, "exactly one"),
            ({}, 400, "exactly one"), ({"file": "games.jsonl", "path": "/"}, 400, "unknown field")]:
        refused(browser.post("/api/replay/open", body), status, fragment)
        assert ok(browser.get("/api/replay/state")) == opened, body


def test_without_a_record_folder_replay_opens_only_what_the_browser_sends(serve, tmp_path):
    [game] = write_games(tmp_path, count=1)
    browser = Browser(serve(settings()))
    assert ok(browser.get("/api/replay/files")) == {"recording": False, "files": [], "open": False}
    refused(browser.post("/api/replay/open", {"file": "games.jsonl"}), 404, "no record folder")
    assert ok(browser.post("/api/replay/open", {"text": json.dumps(game)}))["replay"]["length"] == len(game["actions"])


# --- the package's place ---------------------------------------------------------------------

def imported_modules(path: Path) -> list[tuple[str, list[str]]]:
    """``(module, names taken)`` of every import in a file, at any depth (a relative one's module starts with '.')."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append(("." * node.level + (node.module or ""), [alias.name for alias in node.names]))
    return found


def importers_of_webtable(root: Path) -> list[str]:
    """The files of the lower packages under ``root`` that import webtable."""
    lower = [path for package in ("briscola_env", "agents", "evaluation", "training")
             for path in sorted((root / package).rglob("*.py"))]
    return [str(path.relative_to(root)) for path in lower
            if any(module.split(".")[0] == "webtable" for module, _ in imported_modules(path))]


def test_the_importer_finder_finds_an_import_inside_a_function(tmp_path):
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "x.py").write_text("def f():\n    from webtable.view import card_view\n")
    assert importers_of_webtable(tmp_path) == ["agents/x.py"]


def test_webtable_sits_above_the_other_packages():
    """The lower packages never import it (even inside a function); it takes no private name from them."""
    assert (ROOT / "briscola_env" / "reference.py").exists() and importers_of_webtable(ROOT) == []
    private = [(path.name, module, name) for path in sorted((ROOT / "webtable").glob("*.py"))
               for module, names in imported_modules(path) for name in names
               if name.startswith("_") and not name.startswith("__") and not module.startswith(".")]
    assert private == []


# --- the command ---------------------------------------------------------------------------

def parse(words):
    from briscola_cli import serve

    return command_parser(serve, "briscola serve").parse_args(words)


def test_serve_options_are_checked_before_the_server_starts(tmp_path):
    with pytest.raises(ValueError, match="one agent spec .* or four"):
        settings_from(parse(["--opponents", "heuristic", "random"]))
    with pytest.raises(ValueError, match="--watch: give one agent spec"):
        settings_from(parse(["--watch", "heuristic", "random"]))
    with pytest.raises(ValueError, match="unknown agent spec 'nobody'"):
        settings_from(parse(["--opponents", "nobody"]))
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="is a file"):
        settings_from(parse(["--record", str(tmp_path / "file")]))
    with pytest.raises(SystemExit):
        parse(["--port", "70000"])
    chosen = settings_from(parse(["--opponents", "random", "heuristic", "random", "heuristic", "--seat", "2"]))
    assert chosen.play_specs() == ["random", "heuristic", None, "random", "heuristic"]
    assert chosen.watchers == ("random",) * 5
    busy = make_server(parse(["--port", "0"]))
    try:
        with pytest.raises(ValueError, match="cannot listen on 127.0.0.1"):
            make_server(parse(["--port", str(busy.server_address[1])]))
    finally:
        busy.server_close()


def test_briscola_serve_runs_until_ctrl_c(tmp_path):
    code = "import sys; from briscola_cli.main import main; sys.exit(main())"
    process = subprocess.Popen([sys.executable, "-c", code, "serve", "--port", "0", "--record", str(tmp_path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                   p for p in (os.environ.get("PYTHONPATH"), str(ROOT)) if p)})
    try:
        line = process.stdout.readline()
        assert line.startswith("Briscola table at http://127.0.0.1:") and str(tmp_path) in line, line
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        browser = Browser(SimpleNamespace(server_address=("127.0.0.1", port)))
        assert ok(browser.post("/api/play/new"))["phase"] in ("auction", "call", "play", "done")
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)  # a loaded machine stops it slowly
    assert process.returncode == 0, err
    assert "server stopped" in out


def test_a_hand_with_the_first_trick_blind_plays_to_its_end(serve):
    """al_buio: the first trick before the call, without trump; the page offers what the engine allows."""
    browser = Browser(serve(settings(rules_name="al_buio")))
    ok(browser.post("/api/play/new"))
    view, sent = play_out(browser)
    assert view["phase"] == "done" and len(sent) > 8


@pytest.mark.parametrize("rules_name", ["monte", "four_players"])
def test_tables_the_page_does_not_draw_are_refused_before_the_server_starts(rules_name):
    with pytest.raises(ValueError, match="the web table seats five players without a monte"):
        settings_from(parse(["--rules", rules_name]))
