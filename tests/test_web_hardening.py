"""The web table against other sites, shared hosts and careless files: the Host check on every address,
sessions that other sites can neither create nor evict, a record that could not be written said and then
cleared, networks loaded once per server, and a 4xx (never a 500 or a dropped connection) for records the
page cannot show, bad file names, deep JSON and idle connections."""

from __future__ import annotations

import json
import os
import socket
import threading
import time

import numpy as np
import pytest

from agents import make_agent
from agents.ppo import PolicyValueNet, probe_views, save_checkpoint
from briscola_env import records
from briscola_env.actions import text_to_action
from briscola_env.reference import ReferenceGame
from briscola_env.rules import preset
from evaluation.terminal import play_in_terminal
from briscola_cli.serve import make_server, run as run_serve
from webtable.sessions import MAX_SESSIONS, SessionStore, Settings
from webtable.tables import Table

from test_web_api import SEED, Browser, first_move, ok, parse, play_out, refused, serve, settings, write_games

__all__ = ["serve"]  # the fixture, used by name


def start(server):
    """Serve ``server`` in a thread; returns it."""
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    return server


def stop(server) -> None:
    server.shutdown()
    server.server_close()


def with_host(browser: Browser, host: str):
    return browser.call("GET", "/api/config", headers={"Host": host})


# --- 1. the Host check on every address -------------------------------------------------------

@pytest.mark.parametrize("host", ["0.0.0.0", ""])
def test_host_all_addresses_warns_at_start_and_still_refuses_foreign_host_names(host, capsys):
    args = parse(["--host", host, "--port", "0"])
    server = make_server(args)
    serving = threading.Thread(target=run_serve, args=(args, server), daemon=True)
    serving.start()
    try:
        port = server.server_address[1]
        browser = Browser(server)
        for foreign in ("attacker.example", f"attacker.example:{port}", "127.0.0.1.nip.io", "192.0.2.1"):
            refused(with_host(browser, foreign), 403, "is refused")
        for own in (f"127.0.0.1:{port}", f"localhost:{port}", "LOCALHOST.", f"{socket.gethostname()}:{port}"):
            assert ok(with_host(browser, own))["rules"] == "standard", own
    finally:
        server.shutdown()
        serving.join(timeout=30)
    out, err = capsys.readouterr()
    assert "warning" in err.lower() and "every address" in err and "--allow-host" in err
    assert f"http://127.0.0.1:{port}/" in out  # an address a browser can open, not 0.0.0.0


def test_host_on_a_loopback_address_prints_no_warning(capsys):
    args = parse(["--port", "0"])
    server = make_server(args)
    serving = threading.Thread(target=run_serve, args=(args, server), daemon=True)
    serving.start()
    server.shutdown()
    serving.join(timeout=30)
    assert capsys.readouterr().err == ""


def test_host_names_of_this_machine_s_addresses_are_answered_and_others_refused():
    server = make_server(parse(["--host", "0.0.0.0", "--port", "0"]))
    try:
        assert server.answers_to("192.0.2.7:8000", "192.0.2.7")  # the address the request came in on
        assert server.answers_to("[::ffff:192.0.2.7]", "::ffff:192.0.2.7")
        assert server.answers_to("127.0.0.2", "192.0.2.7") and server.answers_to("[::1]:80", "192.0.2.7")
        assert not server.answers_to("192.0.2.8", "192.0.2.7")  # another machine's address
        assert not server.answers_to("attacker.example", "192.0.2.7") and not server.answers_to("", "192.0.2.7")
    finally:
        server.server_close()


def test_allow_host_adds_the_names_the_table_answers_to():
    server = start(make_server(parse(["--port", "0", "--allow-host", "table.lan", "Other.Example."])))
    try:
        browser = Browser(server)
        assert ok(with_host(browser, f"table.lan:{server.server_address[1]}"))["rules"] == "standard"
        assert ok(with_host(browser, "other.example"))["rules"] == "standard"
        refused(with_host(browser, "attacker.example"), 403, "--allow-host")
    finally:
        stop(server)
    for bad in ("http://table.lan", "table.lan:80", "", "a b", "table.lan/x"):
        with pytest.raises(ValueError, match="--allow-host"):
            make_server(parse(["--port", "0", "--allow-host", bad]))


# --- 2. sessions other sites can neither create nor evict -------------------------------------------

def test_cross_site_page_loads_create_no_session_and_evict_no_player(serve):
    server = serve(settings())
    player = Browser(server)
    view = ok(player.post("/api/play/new"))
    for _ in range(MAX_SESSIONS + 6):
        stranger = Browser(server, load=False)
        for method in ("GET", "HEAD"):
            for site in ("cross-site", "same-site", None):
                status, headers, _ = stranger.raw(method, "/", headers={"Sec-Fetch-Site": site} if site else {})
                assert status == 200 and "Set-Cookie" not in headers
        refused(stranger.call("GET", "/api/config", headers={"Sec-Fetch-Site": "cross-site"}), 403, "another site")
    assert ok(player.get("/api/play/state")) == view
    assert len(server.store) == 1


def test_sessions_are_created_on_the_first_api_call_of_the_table_s_own_page(serve):
    server = serve(settings())
    stranger = Browser(server, load=False)
    status, headers, _ = stranger.raw("GET", "/")
    assert status == 200 and "Set-Cookie" not in headers and len(server.store) == 0
    for site in ("cross-site", "same-site"):
        status, headers, answer = stranger.raw("GET", "/api/config", headers={"Sec-Fetch-Site": site})
        assert status == 403 and "Set-Cookie" not in headers and "another site" in json.loads(answer)["error"]
    assert len(server.store) == 0
    for path, body in (("/api/play/act", b'{"move": "pass"}'), ("/api/replay/seek", b'{"position": 1}')):
        status, headers, _ = stranger.raw("POST", path, body, {"Content-Type": "application/json"})
        assert status == 409 and "Set-Cookie" not in headers  # refused: the session it started is forgotten
    assert len(server.store) == 0
    for site in ("same-origin", "none"):
        status, headers, _ = stranger.raw("GET", "/api/config", headers={"Sec-Fetch-Site": site})
        cookie = headers["Set-Cookie"]
        assert status == 200 and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    stranger.cookie = cookie.split(";")[0]
    status, headers, _ = stranger.raw("GET", "/api/config")
    assert status == 200 and "Set-Cookie" not in headers and len(server.store) == 2


def test_the_session_store_evicts_sessions_without_games_before_live_ones():
    store = SessionStore(settings(), limit=3)
    live, session = store.create()
    session.new_watch()
    other_live, session = store.create()
    session.new_watch()
    empty, _ = store.create()
    store.get(live)  # used again: the least recently used is now other_live, which holds a game
    newest, _ = store.create()
    assert store.get(empty) is None
    assert all(store.get(token) is not None for token in (live, other_live, newest))


def test_the_session_store_evicts_idle_sessions_and_refuses_a_new_one_when_all_are_live():
    from webtable.sessions import SessionsFull

    now = [0.0]
    store = SessionStore(settings(), limit=2, idle_after=3600, clock=lambda: now[0])
    first, session = store.create()
    session.new_watch()
    second, session = store.create()
    session.new_watch()
    now[0] = 3000.0
    with pytest.raises(SessionsFull, match="2 browser sessions"):
        store.create()
    store.get(second)
    now[0] = 3601.0  # first unused for over an hour, second for 601 s
    third, _ = store.create()
    assert store.get(first) is None and store.get(second) is not None and store.get(third) is not None


def test_a_full_table_answers_503_and_keeps_every_live_game(serve):
    server = serve(settings())
    server.store.limit = 2
    players = [Browser(server) for _ in range(2)]
    views = [ok(player.post("/api/play/new")) for player in players]
    status, headers, answer = Browser(server, load=False).raw("GET", "/api/config")
    assert status == 503 and "Set-Cookie" not in headers and "try again" in json.loads(answer)["error"]
    assert [ok(player.get("/api/play/state")) for player in players] == views


# --- 3. a record that could not be written ---------------------------------------------------------

def play_hand(table: Table) -> None:
    table.play_agents()
    while not table.over:
        table.act(text_to_action(first_move({"moves": table.view(viewer=0)["moves"]})))


def test_a_record_error_is_cleared_once_a_later_record_is_written(tmp_path):
    folder = tmp_path / "not-yet"
    table = Table([None] + ["heuristic"] * 4, SEED, preset("standard"), record_file=folder / "x.jsonl")
    play_hand(table)
    error = table.view(viewer=0)["record_error"]
    assert "hand 1 was not recorded" in error and "x.jsonl" in error
    folder.mkdir()
    table.next_hand()
    play_hand(table)
    assert table.view(viewer=0)["record_error"] is None
    assert len(list(records.read(folder / "x.jsonl"))) == 1


# --- 4. networks loaded once per server ----------------------------------------------------------

@pytest.fixture
def network(tmp_path):
    """A small network's checkpoint (untrained: it plays at random, but by its own generator)."""
    path = tmp_path / "small.pt"
    save_checkpoint(path, PolicyValueNet(hidden=(16,)))
    return path


def test_networks_are_loaded_once_per_server_and_shared_by_its_sessions(serve, network, monkeypatch):
    import agents.ppo as ppo

    loads, load = [], ppo.load_network
    monkeypatch.setattr(ppo, "load_network", lambda path, rules=None: loads.append(path) or load(path, rules))
    spec = f"ppo:{network}"
    server = serve(Settings(opponents=(spec,) * 4, seat=0, watchers=(spec,) * 5, seed=None, rules_name="standard",
                            rules=preset("standard")))
    browsers = [Browser(server) for _ in range(3)]
    for browser in browsers:
        ok(browser.post("/api/play/new"))
        ok(browser.post("/api/watch/new"))
    ok(browsers[0].post("/api/play/new"))  # a new game
    assert len(loads) == 1
    sessions = [server.store.get(browser.cookie.split("=", 1)[1]) for browser in browsers]
    agents = [policy.agent for session in sessions for table in (session.play, session.watch)
              for policy in table.policies.values()]
    assert len(agents) == 3 * 9 and len({id(agent.net) for agent in agents}) == 1
    assert len({id(agent) for agent in agents}) == len({id(agent.generator) for agent in agents}) == 3 * 9


def views(count: int = 6, size: int = 5):
    """``count`` batches of ``size`` real views and masks."""
    obs, mask = (tensor.numpy() for tensor in probe_views(preset("standard")))
    return [(obs[i * size:(i + 1) * size], mask[i * size:(i + 1) * size]) for i in range(count)]


def test_agents_of_the_pool_act_as_agents_built_from_their_specs(network):
    from webtable.pool import AgentPool

    rules = preset("standard")
    pool = AgentPool(rules)
    for spec in ("random", "heuristic:noise=0.3", "random:seed=3", f"ppo:{network}", f"ppo:{network},seed=4",
                 f"hybrid:auction=random,play=ppo:{network}", "pimc:worlds=2,rollout=random"):
        for seed in (7, 8):
            built = make_agent(spec, seed=seed, rules=rules)
            pooled, again = pool.agent(spec, seed), pool.agent(spec, seed)
            for obs, mask in views():
                expected = built.act(obs, mask)
                assert np.array_equal(pooled.act(obs, mask), expected), (spec, seed)
                assert np.array_equal(again.act(obs, mask), expected), (spec, seed)
    assert len(pool) == 7


def test_sessions_sharing_a_network_each_play_the_terminal_s_hand(serve, network):
    spec = f"ppo:{network}"
    server = serve(Settings(opponents=(spec,) * 4, seat=0, watchers=(spec,) * 5, seed=SEED, rules_name="standard",
                            rules=preset("standard")))
    one, two = Browser(server), Browser(server)
    views_seen = [ok(one.post("/api/play/new")), ok(two.post("/api/play/new"))]
    sent = []
    while views_seen[0]["phase"] != "done":  # the two sessions' moves interleaved: the same moves, the same hands
        move = first_move(views_seen[0])
        sent.append(move)
        views_seen = [ok(browser.post("/api/play/act", {"move": move})) for browser in (one, two)]
    assert views_seen[0] == views_seen[1]
    typed = iter(move.split(" ", 1)[-1] for move in sent)
    [payoffs] = play_in_terminal([spec], seat=0, seed=SEED, hands=1, input_fn=lambda _: next(typed),
                                 print_fn=lambda _: None)
    assert np.allclose(views_seen[0]["outcome"]["payoffs"], payoffs)


# --- 5. a 4xx, never a 500 or a dropped connection ---------------------------------------------------

def random_record(rules_name: str, seed: int = 0) -> dict:
    """The record of a hand of random legal moves at the table of ``rules_name``."""
    rules = preset(rules_name)
    shape, rng = rules.table_shape, np.random.default_rng(seed)
    deal = [s for s in range(shape.seats) for _ in range(shape.hand_size)] + [shape.monte_holder] * shape.monte_size
    deal = [int(s) for s in rng.permutation(deal)]
    game, actions = ReferenceGame(rules, deal, 0), []
    while not game.terminated:
        actions.append(int(rng.choice(game.legal_actions())))
        game.step(actions[-1])
    return records.record(rules, deal, 0, actions, [f"agent_{s}" for s in range(shape.seats)])


@pytest.fixture
def replaying(serve, tmp_path):
    """``(browser, folder, opened)``: a browser with a record of the folder open."""
    write_games(tmp_path, count=1)
    browser = Browser(serve(settings(record_folder=tmp_path)))
    return browser, tmp_path, ok(browser.post("/api/replay/open", {"file": "games.jsonl"}))


def refused_and_kept(browser: Browser, body: dict, status: int, fragment: str, opened: dict) -> None:
    refused(browser.post("/api/replay/open", body), status, fragment)
    assert ok(browser.get("/api/replay/state")) == opened


@pytest.mark.parametrize("rules_name, table", [("four_players", "4 seats"), ("monte", "a monte")])
def test_a_four_player_or_monte_record_is_refused_with_a_4xx(replaying, rules_name, table):
    browser, folder, opened = replaying
    record = random_record(rules_name)
    records.validate([record])
    records.write(folder / f"{rules_name}.jsonl", [record])
    for body in ({"file": f"{rules_name}.jsonl"}, {"text": json.dumps(record), "name": "x.jsonl"}):
        refused_and_kept(browser, body, 422, table, opened)
        refused_and_kept(browser, body, 422, "briscola replay", opened)


def test_a_record_with_a_lone_surrogate_is_refused_with_a_4xx_and_the_replay_kept(replaying):
    browser, folder, opened = replaying
    [game] = records.read(folder / "games.jsonl")
    text = json.dumps({**game, "agents": ["\ud800"] + game["agents"][1:]})  # JSON's own escape: valid JSON
    (folder / "surrogate.jsonl").write_text(text + "\n")
    for body in ({"file": "surrogate.jsonl"}, {"text": text}):
        refused_and_kept(browser, body, 422, "agents", opened)
        refused_and_kept(browser, body, 422, "surrogate", opened)
    refused_and_kept(browser, {"text": json.dumps(game), "name": "\udcff.jsonl", "game": 3}, 422, "holds 1", opened)


def test_a_non_utf8_file_name_in_the_record_folder_is_not_listed_and_404s_are_answered(replaying):
    browser, folder, opened = replaying
    (folder / os.fsdecode(b"bad\xff.jsonl")).write_bytes((folder / "games.jsonl").read_bytes())
    assert ok(browser.get("/api/replay/files"))["files"] == [{"name": "games.jsonl", "records": 1}]
    refused_and_kept(browser, {"file": "missing.jsonl"}, 404, "its files: games.jsonl", opened)
    refused_and_kept(browser, {"file": "bad\udcff.jsonl"}, 404, "holds no file", opened)


def test_deeply_nested_json_is_a_4xx(replaying):
    browser, folder, opened = replaying
    deep = "[" * 100_000 + "]" * 100_000
    refused(browser.post("/api/play/act", raw=('{"move": ' + deep + "}").encode()), 400, "nested")
    (folder / "deep.jsonl").write_text(deep + "\n")
    refused_and_kept(browser, {"file": "deep.jsonl"}, 422, "nested", opened)
    refused_and_kept(browser, {"text": deep}, 422, "nested", opened)
    refused_and_kept(browser, {"text": '{"version": 1, "agents": ' + deep + "}"}, 422, "nested", opened)


def test_hidden_record_files_are_not_listed(replaying):
    browser, folder, opened = replaying
    (folder / ".hidden.jsonl").write_bytes((folder / "games.jsonl").read_bytes())
    assert [f["name"] for f in ok(browser.get("/api/replay/files"))["files"]] == ["games.jsonl"]
    refused_and_kept(browser, {"file": ".hidden.jsonl"}, 400, "hidden", opened)


def test_idle_connections_are_closed_after_a_timeout(serve):
    server = serve(settings())
    server.connection_timeout = 0.5
    port = server.server_address[1]
    for sent in (b"", b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\n",  # nothing, half the headers
                 b"POST /api/play/act HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 20\r\n\r\n{}"):  # a body that never comes
        with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
            connection.sendall(sent)
            started, answer = time.monotonic(), b""
            while chunk := connection.recv(4096):
                answer += chunk
            assert time.monotonic() - started < 5, sent
            assert answer == b"" or answer.startswith(b"HTTP/1.1 408"), answer
    assert ok(Browser(server).get("/api/config"))["rules"] == "standard"  # the server answers on


def test_a_hand_still_plays_to_its_end_through_the_hardened_server(serve, tmp_path):
    browser = Browser(serve(settings(record_folder=tmp_path)))
    ok(browser.post("/api/play/new"))
    view, _ = play_out(browser)
    assert view["phase"] == "done" and view["record_error"] is None
