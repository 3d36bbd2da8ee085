"""A single deal gives no interval: the field's and the tournament's tables say so instead of printing the point
as a zero-width 95% CI."""

from agents import make_agent
from evaluation import field
from evaluation.field import field_markdown, measure_field
from evaluation.report import NO_INTERVAL
from evaluation.tournament import play_tournament, results_markdown


def test_the_field_over_one_deal_says_it_gives_no_interval(monkeypatch):
    monkeypatch.setattr(field, "FIELD", (field.Member("random", "random"),))
    text = field_markdown("heuristic", measure_field("heuristic", deals=1, search_deals=0, seed=3))
    assert text.count(NO_INTERVAL) == 3  # the table edge, the lone member's gain, the minimum


def test_a_tournament_over_one_deal_says_it_gives_no_interval():
    names = ["heuristic", "random", "heuristic:noise=0.5"]
    text = results_markdown(play_tournament([make_agent(name) for name in names], names, deals=1, seed=3))
    assert text.count(NO_INTERVAL) == 2 + 3  # two ratings (one is pinned at 0), three differences
