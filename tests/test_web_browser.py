"""The web table in a real headless browser: Debian's Chromium (/usr/bin/chromium) driven by Playwright.

A person's whole hand played by clicking (one illegal click refused with a message, the game
unchanged), its score the engine's payoffs for that deal; watch mode run to the end of a hand;
a record stepped through in replay mode, showing the record's cards; point bids typed in; the trick
the person completes held on the felt with its seats named, every card's face in sight; suits named
in the page's one language; a page load that logs no error. The
same tests take the screenshots of each mode: into a temporary folder, or, to renew the pictures of docs/play.md,
into docs/ with ``BRISCOLA_SCREENSHOTS=docs python -m pytest tests/test_web_browser.py``.

Without Playwright (the test extra) or the browser (``apt-get install chromium``, as .ci/run does) the
tests fail, saying which is missing: they are never skipped.
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
from pathlib import Path

import numpy as np
import pytest

from briscola_env import raw_env, records
from briscola_env.actions import action_to_text, text_to_action
from briscola_env.cards import card_str
from briscola_env.rules import preset
from webtable import WebTableServer
from webtable.sessions import Settings
from webtable.tables import deal_of

from test_web_api import write_games

pytestmark = pytest.mark.slow  # drives Chromium

CHROMIUM = Path("/usr/bin/chromium")
# Headless, and nothing that reaches for the network: the table must work offline.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS = Path(os.environ.get("BRISCOLA_SCREENSHOTS") or tempfile.mkdtemp(prefix="briscola-screenshots-"))
SEED = 5
VIEWPORT = {"width": 1280, "height": 760}


def _unavailable(reason: str):
    pytest.fail(f"the browser tests need Playwright and Debian's Chromium: {reason}")


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("Playwright is not installed (pip install playwright)")
    if not CHROMIUM.exists():
        _unavailable(f"no browser at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def start_server(rules_name: str, record_folder: Path, quiet: bool = True) -> WebTableServer:
    chosen = Settings(opponents=("heuristic",) * 4, seat=0, watchers=("heuristic",) * 5, seed=SEED,
                      rules_name=rules_name, rules=preset(rules_name), record_folder=record_folder)
    server = WebTableServer(chosen, "127.0.0.1", 0, quiet=quiet)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("records")
    write_games(folder)  # games.jsonl, for replay mode
    started = start_server("standard", folder)
    yield started
    started.shutdown()
    started.server_close()


@pytest.fixture
def open_page(browser):
    """``open_page(server)``: a new browser session (its own cookie) on the server's page, loaded. The page
    keeps its script errors (``page.errors``), the errors its console logged (``page.console_errors``) and
    the answers of 400 or more it was given (``page.refusals``)."""
    contexts = []

    def load(on: WebTableServer):
        context = browser.new_context(viewport=VIEWPORT)
        contexts.append(context)
        page = context.new_page()
        page.errors, page.console_errors, page.refusals = [], [], []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        page.on("console", lambda message: page.console_errors.append(message.text) if message.type == "error"
                else None)
        page.on("response", lambda response: page.refusals.append(f"{response.status} {response.url}")
                if response.status >= 400 else None)
        page.goto(on.url)
        wait_until_drawn(page)
        return page

    yield load
    for context in contexts:
        context.close()


def wait_until_drawn(page) -> None:
    page.wait_for_function('() => document.body.dataset.busy === "0" && document.body.dataset.phase')


def click(page, selector: str) -> None:
    """Click, then wait until the page has drawn the server's answer."""
    answers = int(page.get_attribute("body", "data-answers") or 0)
    page.click(selector)
    # Predicates as functions: the page's Content-Security-Policy forbids evaluating strings.
    page.wait_for_function('(n) => document.body.dataset.busy === "0" && Number(document.body.dataset.answers) > n',
                           arg=answers)


def phase(page) -> str:
    return page.get_attribute("body", "data-phase")


def cards(page, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector, "nodes => nodes.map(n => n.dataset.card)")


def screenshot(page, name: str) -> None:
    page.mouse.move(0, 0)  # no card lifted by the pointer, no control drawn focused: the same picture each run
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / name), full_page=True)
    assert (SCREENSHOTS / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def person_moves(record: dict, seat: int) -> list[str]:
    """The moves of ``seat`` in a record, as the page's buttons name them."""
    game = records.game_from_record(record, 0)
    moves = []
    for action in record["actions"]:
        if game.current_player == seat:
            moves.append(action_to_text(action, game.rules.ten_card))
        game.step(action)
    return moves


def test_a_whole_hand_played_by_clicking_scores_the_engine_s_payoffs(server, open_page):
    page = open_page(server)
    assert phase(page) == "auction" and page.is_visible("#bidbar")
    hand = cards(page, "#my-hand button.card")
    auction = page.inner_text("#auction")
    assert len(hand) == 8 and page.locator("#my-hand button.card.illegal").count() == 8  # no card in the auction
    click(page, "#my-hand button.card")  # an illegal click: the auction is on
    assert page.is_visible("#message") and "not allowed now" in page.inner_text("#message")
    assert "the auction is on" in page.inner_text("#message")
    assert cards(page, "#my-hand button.card") == hand and page.inner_text("#auction") == auction
    screenshot(page, "web_play.png")
    clicked = []
    while phase(page) != "done":
        assert len(clicked) < 30, f"the hand did not end: {clicked}"
        if page.is_visible("#bidbar"):
            rank = "#ranks button:not([disabled])"
            selector = rank if not clicked and page.locator(rank).count() else "#pass"
        elif page.is_visible("#callbar"):
            selector = "#calls button.card"
        else:
            selector = "#my-hand button.card.legal"
        clicked.append(page.get_attribute(selector, "data-move"))
        click(page, selector)
        assert not page.is_visible("#message"), page.inner_text("#message")
    [written] = list(server.settings.record_folder.glob("play-*.jsonl"))
    [record] = list(records.read(written))
    env = raw_env()
    env.reset(seed=SEED)
    assert record["deal"] == deal_of(env.game)  # the deal of the seed, as briscola play deals it
    assert person_moves(record, 0) == clicked
    engine_payoffs = records.replay([record]).rewards[0]
    shown = [float(page.get_attribute(f'#result [data-payoff-seat="{s}"]', "data-payoff")) for s in range(5)]
    assert np.allclose(shown, engine_payoffs)
    totals = [page.inner_text(f'#result [data-total-seat="{s}"]') for s in range(5)]
    assert [float(t) for t in totals] == pytest.approx(list(engine_payoffs))
    assert "After 1 hand: your total" in page.inner_text("#session-total")
    for seat in range(5):  # every hand as dealt
        assert sorted(cards(page, f'#result tr[data-result-seat="{seat}"] .card')) == dealt_cards(record, seat)
    screenshot(page, "web_play_end.png")
    click(page, "#next-hand")
    assert phase(page) != "done" and "hand 2" in page.inner_text("#status")
    assert page.errors == []


def dealt_cards(record: dict, seat: int) -> list[str]:
    """The cards dealt to ``seat`` in a record, as the page writes them, sorted."""
    return sorted(card_str(card) for card, holder in enumerate(record["deal"]) if holder == seat)


def test_watch_mode_runs_a_hand_to_the_end(server, open_page):
    page = open_page(server)
    click(page, '#modes button[data-mode="watch"]')
    assert page.locator("#felt .card.back").count() == 40  # face down: five hands of eight backs
    click(page, "#watch-face-up")
    assert page.locator("#felt .seat .card.back").count() == 0 and len(cards(page, "#felt .seat .card")) == 40
    while not (page.locator("#tricks li").count() >= 3 and page.locator("#trick .card").count() >= 3):
        click(page, "#watch-step")
    screenshot(page, "web_watch.png")
    page.select_option("#watch-speed", "40")
    page.click("#watch-run")
    page.wait_for_function('() => document.body.dataset.phase === "done" && document.body.dataset.busy === "0"',
                           timeout=30_000)
    view = page.request.get(server.url + "api/watch/state").json()  # the browser's own session
    env = raw_env()
    env.reset(seed=SEED)
    actions = [text_to_action(move["text"]) for move in view["log"]]
    record = records.record(preset("standard"), deal_of(env.game), env.game.dealer, actions, ["heuristic"] * 5)
    shown = [float(page.get_attribute(f'#result [data-payoff-seat="{s}"]', "data-payoff")) for s in range(5)]
    assert np.allclose(shown, records.replay([record]).rewards[0])
    assert page.locator("#tricks li").count() == 8 and page.is_enabled("#watch-next")
    assert page.errors == []


def test_replay_mode_steps_through_a_record_and_shows_its_cards(server, open_page):
    record = list(records.read(server.settings.record_folder / "games.jsonl"))[1]
    page = open_page(server)
    click(page, '#modes button[data-mode="replay"]')
    page.select_option("#replay-file", "games.jsonl")
    page.fill("#replay-game", "1")
    click(page, "#replay-open")
    length = len(record["actions"])
    assert page.inner_text("#replay-position") == f"action 0 of {length}"
    for seat in range(5):  # every hand face up, as dealt
        shown = cards(page, f'#felt .seat[data-seat="{seat}"] .card')
        assert sorted(shown) == dealt_cards(record, seat)
    first_play = length - len(record["plays"])  # the auction and the call come first
    for position in range(1, length + 1):
        click(page, "#replay-next")
        assert page.inner_text("#replay-position") == f"action {position} of {length}"
        if position > first_play:
            seat, card = record["plays"][position - first_play - 1]
            on_table = page.eval_on_selector_all("#trick .card", "nodes => nodes.map(n => [Number(n.dataset.seat), "
                                                                 "n.dataset.card])")
            assert on_table[-1] == [seat, card]
        if position == first_play + 17:
            screenshot(page, "web_replay.png")
    taken = [cards(page, f'#tricks li[data-trick="{t}"] .card') for t in range(1, 9)]
    assert [card for trick in taken for card in trick] == [card for _, card in record["plays"]]
    shown = [float(page.get_attribute(f'#result [data-payoff-seat="{s}"]', "data-payoff")) for s in range(5)]
    assert shown == record["outcome"]["payoffs"]
    click(page, "#replay-prev")
    assert page.inner_text("#replay-position") == f"action {length - 1} of {length}"
    assert page.is_hidden("#result") and page.locator("#trick .card").count() == 4
    click(page, "#replay-first")
    assert page.inner_text("#replay-position") == f"action 0 of {length}" and page.is_disabled("#replay-prev")
    assert page.errors == []


def test_point_bids_are_typed_and_checked(open_page, tmp_path):
    points_server = start_server("points_only", tmp_path)
    try:
        page = open_page(points_server)
        assert page.is_visible("#points") and page.locator("#ranks button").count() == 0
        lowest = page.input_value("#points-input")
        page.fill("#points-input", "130")
        click(page, "#points-bid")
        assert "61..120" in page.inner_text("#message")
        bids = page.locator("#auction li").count()
        page.fill("#points-input", lowest)
        click(page, "#points-bid")
        assert page.is_hidden("#message")
        assert f"You: bid {lowest}" in page.inner_text("#auction") and page.locator("#auction li").count() > bids
    finally:
        points_server.shutdown()
        points_server.server_close()


def test_a_record_that_cannot_be_written_is_shown_on_the_page_until_a_later_one_is(open_page, tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    recording = start_server("standard", folder)
    try:
        page = open_page(recording)
        assert page.is_hidden("#record-warning")
        folder.rmdir()  # the folder goes away: this hand cannot be written
        play_hand_through_the_api(page, recording)
        click(page, '#modes button[data-mode="play"]')  # the page draws the finished hand
        assert phase(page) == "done" and page.is_visible("#record-warning")
        warning = page.inner_text("#record-warning")
        assert "Hand 1 was not recorded" in warning and "No such file or directory" in warning
        folder.mkdir()
        click(page, "#next-hand")
        assert page.is_visible("#record-warning")  # the next hand is not written yet
        play_hand_through_the_api(page, recording)
        click(page, '#modes button[data-mode="play"]')
        assert phase(page) == "done" and page.is_hidden("#record-warning")
        assert len(list(records.read(next(folder.glob("play-*.jsonl"))))) == 1
        assert page.errors == []
    finally:
        recording.shutdown()
        recording.server_close()


def play_hand_through_the_api(page, on: WebTableServer) -> None:
    """Play the page's hand to its end through its session's API (the first legal move each turn)."""
    view = page.request.get(on.url + "api/play/state").json()
    while view["phase"] != "done":
        moves = view["moves"]
        options = [rank["move"] for rank in moves["ranks"] if rank["legal"]][:1] if not view["auction"] else []
        options += (["pass"] if moves["pass"] else []) + [card["move"] for card in moves["calls"] + moves["plays"]]
        options += [f"bid {moves['points']['lowest']}"] if moves["points"] else []
        view = page.request.post(on.url + "api/play/act", data={"move": options[0]}).json()


@pytest.fixture
def own_server(tmp_path):
    """A server of the test's own, with the browser's log written (not quiet) and its own record folder."""
    started = start_server("standard", tmp_path, quiet=False)
    yield started
    started.shutdown()
    started.server_close()


def test_loading_the_page_logs_no_error_in_the_console_or_the_server_log(own_server, open_page, capsys):
    page = open_page(own_server)  # the first visit: the session has no game yet
    for mode in ("watch", "replay", "play"):  # entering each mode for the first time, then again
        click(page, f'#modes button[data-mode="{mode}"]')
    page.reload()  # a later visit: the session's games are there
    wait_until_drawn(page)
    assert phase(page) == "auction" and page.is_hidden("#message")
    assert page.refusals == [] and page.console_errors == [] and page.errors == []
    statuses = [int(status) for status in re.findall(r'"(?:GET|POST) [^"]*" (\d{3}) ', capsys.readouterr().err)]
    assert statuses and all(status < 400 for status in statuses), statuses


def pass_until_the_cards(page) -> None:
    """Pass every bid (the agents of seed 5 bid, win and call), up to the person's first card."""
    while page.is_visible("#bidbar"):
        click(page, "#pass")
    assert phase(page) == "play" and page.locator("#my-hand button.card.legal").count(), phase(page)


def trick_on_the_felt(page) -> list[list]:
    """Each card of the trick on the felt: [its seat, the card, the seat's name written by it]."""
    return page.eval_on_selector_all("#trick .played", "spots => spots.map(spot => [Number(spot.querySelector("
                                                      "'.card').dataset.seat), spot.querySelector('.card').dataset"
                                                      ".card, spot.querySelector('.seat-tag').textContent])")


def seat_name(seat: int) -> str:
    return "You" if seat == 0 else f"player_{seat}"


def test_the_trick_you_complete_stays_on_the_felt_with_its_seats_named(own_server, open_page):
    page = open_page(own_server)
    pass_until_the_cards(page)
    for _ in range(2):
        click(page, "#my-hand button.card.legal")  # the agents finish the trick at once, and lead the next
        view = page.request.get(own_server.url + "api/play/state").json()
        completed = view["tricks"][-1]
        assert page.get_attribute("#trick", "data-held") == str(completed["number"])
        assert trick_on_the_felt(page) == [[c["seat"], c["card"]["text"], seat_name(c["seat"])]
                                           for c in completed["cards"]]
        assert page.inner_text("#trick-caption") == (f"Trick {completed['number']}: {seat_name(completed['winner'])} "
                                                     f"took {completed['points']} points")
        assert page.is_visible("#go-on")
        assert_every_face_in_sight(page)
        if completed["number"] == 1:
            page.click("#go-on")  # the person goes on
        else:  # or the pause ends it
            page.wait_for_function('() => document.querySelector("#trick").dataset.held === ""', timeout=10_000)
        now = view["trick"] or completed  # the trick the agents led, else (the person leads) the one just taken
        assert page.get_attribute("#trick", "data-held") == "" and page.is_hidden("#go-on")
        assert trick_on_the_felt(page) == [[c["seat"], c["card"]["text"], seat_name(c["seat"])] for c in now["cards"]]
    assert page.errors == []


def assert_every_face_in_sight(page) -> None:
    """No card of the trick on the felt covers another, a seat's box or the caption, or is covered: the
    point at the middle of each card's face and suit (its corner) shows that card."""
    layout = page.evaluate("""() => {
      document.querySelector("#trick").scrollIntoView({block: "center"});  // the points tested are on screen
      const box = (node) => { const b = node.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
      const cards = [...document.querySelectorAll("#trick .card")];
      return {
        cards: cards.map(box),
        tags: [...document.querySelectorAll("#trick .seat-tag")].map(box),
        others: [...document.querySelectorAll("#felt .seat:not(:empty), #contract, #trick-label")].map(box),
        corners_shown: cards.map((card) => {
          const [left, top, right, bottom] = box(card.querySelector(".corner"));
          const hit = document.elementFromPoint((left + right) / 2, (top + bottom) / 2);
          return Boolean(hit) && hit.closest(".card") === card;
        }),
      };
    }""")

    def overlap(a, b):
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    cards = layout["cards"]
    assert len(cards) == 5 and all(layout["corners_shown"]), layout
    for i, card in enumerate(cards):
        assert not [other for j, other in enumerate(cards) if j != i and overlap(card, other)], layout
        assert not [tag for j, tag in enumerate(layout["tags"]) if j != i and overlap(card, tag)], layout
        assert not [other for other in layout["others"] if overlap(card, other)], layout


@pytest.mark.parametrize("width", [VIEWPORT["width"], 1100])  # 1100: the page's min-width
def test_a_whole_trick_on_the_felt_shows_every_face(own_server, open_page, width):
    page = open_page(own_server)
    page.set_viewport_size({**VIEWPORT, "width": width})
    pass_until_the_cards(page)
    while phase(page) != "done":  # the last trick stays on the felt, the hand over
        click(page, "#my-hand button.card.legal")
    assert_every_face_in_sight(page)


SUIT_NAMES = {"it": ("coppe", "denari", "bastoni", "spade"), "en": ("hearts", "diamonds", "clubs", "spades")}


def test_suits_are_named_in_the_page_s_language_the_other_only_in_the_legend(own_server, open_page):
    page = open_page(own_server)
    pass_until_the_cards(page)  # the call is made: the trump is named
    assert page.get_attribute("html", "lang") == "en"
    legend = page.inner_text("#legend")
    named = dict(re.findall(r"([♥♦♣♠]) (\w+)", legend))
    assert [named[symbol] for symbol in "♥♦♣♠"] == list(SUIT_NAMES["en"]), legend
    trump = re.search(r"trump ([♥♦♣♠]) (\w+)", page.inner_text("#contract"))
    assert trump and trump[2].lower() == named[trump[1]]
    # Every word and tooltip of the page but the legend: no Italian suit name.
    shown = page.evaluate("""() => [document.body.innerText.replace(document.querySelector("#legend").innerText, ""),
      ...[...document.querySelectorAll("[title], [aria-label]")].map((n) => `${n.title} ${n.ariaLabel || ""}`)]""")
    italian = re.compile(rf"\b({'|'.join(SUIT_NAMES['it'])})\b", re.IGNORECASE)
    assert not [text for text in shown if italian.search(text)]
    assert any("of " in text and re.search(rf"\b({'|'.join(SUIT_NAMES['en'])})\b", text, re.I) for text in shown)
