"""A single deal gives no interval: the field's and the tournament's tables say so instead of printing the point
as a zero-width 95% CI."""

from agents import make_agent
from evaluation import field
from evaluation.field import field_markdown, measure_field
from evaluation.report import NO_INTERVAL
from evaluation.sweep import aggregate, seeds_table
from evaluation.tournament import play_tournament, results_markdown


def test_the_field_over_one_deal_says_it_gives_no_interval(monkeypatch):
    monkeypatch.setattr(field, "FIELD", (field.Member("random", "random"),))
    text = field_markdown("heuristic", measure_field("heuristic", deals=1, search_deals=0, seed=3))
    assert text.count(NO_INTERVAL) == 3  # the table edge, the lone member's gain, the minimum


def test_a_tournament_over_one_deal_says_it_gives_no_interval():
    names = ["heuristic", "random", "heuristic:noise=0.5"]
    text = results_markdown(play_tournament([make_agent(name) for name in names], names, deals=1, seed=3))
    assert text.count(NO_INTERVAL) == 2 + 3  # two ratings (one is pinned at 0), three differences


def test_a_sweeps_table_over_one_deal_says_it_gives_no_interval():
    scores = {"vs heuristic": [(0.25, (0.25, 0.25)), (0.5, (0.5, 0.5))]}  # each seed measured on one deal
    aggregates = {"vs heuristic": aggregate([0.25, 0.5])}
    table = seeds_table([3, 9], ["runs/x-3", "runs/x-9"], scores, aggregates)
    assert "(+0.250, +0.250)" not in table and table.count("no CI: one deal or seed") == 2
