"""Concealment: how well a population's partners stay hidden, by trick.

For games played by one population (the same agent at every seat), a belief
model (:mod:`agents.belief`) names the partner from the view of each player
who does not know him, the caller and the defenders, at each of their
decisions in card play. Per trick (1-8; 1-7 with a monte, 1-10 at four seats) and viewer role:

- **accuracy**: on the views before the called card is played, the belief's
  best guess is the partner (a tie among k seats counts 1/k, so a uniform
  guess among the four other seats scores exactly 0.25);
- **log-loss**: minus the log-probability it gives the partner, on those views;
- **identified**: the share of all views in which the partner is known: the
  called card has been played, or the best guess is right.

With the distribution of the trick in which the called card is played, and
how often the population's contracts are made (a partner hiding well keeps
the accuracy near chance while still winning contracts).

The hands are dealt from the ``"concealment"`` stream of deal seeds
(:mod:`briscola_env.seeds`), apart from those a belief model is trained on, and
a belief model whose record of its training deals shares any of them, or that
has no such record, is refused: measured on its own training deals, a model
shows what it remembers rather than what the partners give away.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Optional, Union

import numpy as np

from agents import Agent, make_agent
from agents.belief import BeliefModel, Views, collect_views
from briscola_env.cards import NUM_TRICKS
from briscola_env.engine import Role
from briscola_env.files import write_atomically
from briscola_env.rules import RulesConfig, resolve_rules
from briscola_env.seeds import deal_seeds, refuse_training_deals

from .report import claim_folder

VIEWERS = {"caller": Role.CALLER, "defender": Role.DEFENDER}
# A uniform guess: the caller's partner is one of the four others; a defender's, one of the
# three other non-callers (the rare solo aside).
CHANCE = {"caller": 1 / 4, "defender": 1 / 3}


@dataclass
class ConcealmentResult:
    population: str
    games: int
    accuracy: dict  # viewer -> a value by trick (8 tricks; None: no view), before the reveal
    log_loss: dict  # viewer -> a value by trick, before the reveal
    identified: dict  # viewer -> a value by trick, all views
    views: dict  # viewer -> counts of views by trick, before the reveal
    called_trick: list  # share of hands with a partner (not solo) whose called card was played in each trick
    contracts_made: float  # share of the hands whose contract was made (a void hand counts as not made)

    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def tricks(self) -> int:
        """The tricks of a hand of the games measured (8; 7 with a monte, 10 at four seats)."""
        return len(self.called_trick)


def measure(views: Views, probabilities: np.ndarray, population: str, games: int,
            contracts_made: float, tricks: int = NUM_TRICKS) -> ConcealmentResult:
    """The metric's arithmetic, from logged views and the belief's ``(n, seats)`` probabilities on them,
    by trick of hands of ``tricks`` (those of the rules played: ``rules.table_shape.tricks``)."""
    rows = np.arange(len(views))
    p_true = probabilities[rows, views.partner]
    best = probabilities.max(axis=1, keepdims=True)
    ties = (probabilities == best).sum(axis=1)
    hit = np.where(p_true == best[:, 0], 1.0 / ties, 0.0)
    log_loss = -np.log(np.maximum(p_true, 1e-12))
    out = {"accuracy": {}, "log_loss": {}, "identified": {}, "views": {}}
    for name, role in VIEWERS.items():
        mine = views.role == role
        hidden = mine & ~views.revealed
        by_trick = [[], [], [], []]
        for trick in range(tricks):
            now, all_now = hidden & (views.trick == trick), mine & (views.trick == trick)
            by_trick[0].append(float(hit[now].mean()) if now.any() else None)
            by_trick[1].append(float(log_loss[now].mean()) if now.any() else None)
            known = np.where(views.revealed, 1.0, hit)
            by_trick[2].append(float(known[all_now].mean()) if all_now.any() else None)
            by_trick[3].append(int(now.sum()))
        for key, values in zip(out, by_trick):
            out[key][name] = values
    shown = views.called_trick[views.with_partner]
    called = np.bincount(shown, minlength=tricks) / max(len(shown), 1)
    return ConcealmentResult(population, games, **out, called_trick=called.tolist(), contracts_made=contracts_made)


Belief = Union[BeliefModel, Callable[[np.ndarray], np.ndarray]]


def concealment_deals(games: int, seed: int) -> np.ndarray:
    """The deal seeds :func:`concealment` plays for ``seed``: the first ``games`` of the
    ``"concealment"`` stream."""
    if games < 1:
        raise ValueError(f"games must be at least 1; got {games}")
    return deal_seeds("concealment", seed, games)


def belief_unseen_on(belief: Belief, deals: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """The probabilities of ``belief``, once sure that it was not trained on any of ``deals``.

    A :class:`~agents.belief.BeliefModel`, or its bound ``probabilities``, is checked against
    its record of its training deals, and refused if it has none (a file written before models
    kept one: it may have been trained on any deals); any other callable from views to
    ``(n, 5)`` probabilities is taken as fitted on no deals, as a hand-made belief is."""
    model = getattr(belief, "__self__", belief)
    if not isinstance(model, BeliefModel):
        return belief
    if model.trained_on is None:
        raise ValueError(f"{model.name} does not record the deals it was trained on (it was written before "
                         "belief models kept that record), so it could be measured on its own training deals: "
                         "train it again with: briscola belief ...")
    refuse_training_deals(deals, model.trained_on, model.name)
    return model.probabilities


def concealment(belief: Belief, agent: Agent, name: str, games: int, seed: int = 0,
                rules: RulesConfig | None = None) -> ConcealmentResult:
    """Play ``games`` hands with ``agent`` at every seat and measure how well its partners hide
    from ``belief``: a :class:`~agents.belief.BeliefModel` (or its ``probabilities``), never
    measured on deals it was trained on (see :func:`belief_unseen_on`), or a callable from views
    to ``(n, 5)`` probabilities."""
    deals = concealment_deals(games, seed)
    probabilities = belief_unseen_on(belief, deals)
    agent.reset(int(np.random.default_rng(seed).integers(2**32)))
    shape = resolve_rules(rules).table_shape
    views = collect_views([agent], np.zeros((games, shape.seats), dtype=np.int64), deals, rules)
    return measure(views, np.asarray(probabilities(views.obs)), name, games, float(views.contract_made.mean()),
                   shape.tricks)


def concealment_table(results: list[ConcealmentResult]) -> str:
    """Accuracy (log-loss) of the belief by trick, per population and viewer (the results of one rules' hands)."""
    tricks = max(r.tricks for r in results)
    head = "| population | viewer | " + " | ".join(f"trick {t + 1}" for t in range(tricks)) + \
        " | contracts made |"
    rows = [head, "|---|---|" + "---:|" * (tricks + 1)]
    for r in results:
        for viewer in VIEWERS:
            cells = ["-" if a is None else f"{a:.2f} ({ll:.2f})"
                     for a, ll in zip(r.accuracy[viewer], r.log_loss[viewer])]
            rows.append(f"| {r.population} | {viewer} | " + " | ".join(cells) + f" | {r.contracts_made:.1%} |")
    called = ["| population | " + " | ".join(f"trick {t + 1}" for t in range(tricks)) + " |",
              "|---|" + "---:|" * tricks]
    for r in results:
        called.append(f"| {r.population} | " + " | ".join(f"{share:.1%}" for share in r.called_trick) + " |")
    return ("Partner named by the belief model before the called card is played: accuracy (log-loss); "
            f"chance {CHANCE['caller']:.2f} for the caller, {CHANCE['defender']:.2f} for a defender\n\n"
            + "\n".join(rows)
            + "\n\nTrick in which the called card is played (hands with a partner)\n\n" + "\n".join(called))


def plot_concealment(results: list[ConcealmentResult], path) -> None:
    """PNG: the belief's accuracy by trick for each population, caller's and defenders' views."""
    from matplotlib.figure import Figure  # not pyplot: the caller's backend (a notebook's) is left alone

    fig = Figure(figsize=(10, 4))
    axes = fig.subplots(1, 2, sharey=True)
    for ax, viewer in zip(axes, VIEWERS):
        for r in results:
            values = np.array([np.nan if a is None else a for a in r.accuracy[viewer]])
            ax.plot(np.arange(1, r.tricks + 1), values, marker="o", label=r.population)
        ax.axhline(CHANCE[viewer], color="grey", linestyle=":", label="chance")
        ax.set_title(f"{viewer}'s view")
        ax.set_xlabel("trick")
    axes[0].set_ylabel("partner named correctly (before the reveal)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def write(results: list[ConcealmentResult], folder) -> None:
    """The tables, the PNG, then ``concealment.json``, last and atomically: there only once the rest is."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "concealment.md").write_text(concealment_table(results) + "\n")
    plot_concealment(results, folder / "concealment.png")
    write_atomically(folder / "concealment.json", json.dumps([r.as_dict() for r in results], indent=1))


def concealment_report(specs: list[str], belief_path: Path, games: int, seed: int, rules: Union[RulesConfig, str],
                       out: Optional[Path]) -> str:
    """One population per spec (that agent at every seat, seeded ``seed`` + its index), measured against
    the belief model saved at ``belief_path``: :func:`concealment_table`'s tables, also written with a PNG
    into the run folder ``out`` (new or empty; None: nothing written): ``briscola concealment``. A model
    trained on any of the deals played, or without a record of its training deals, is refused before
    anything is played or written."""
    belief = BeliefModel.load(belief_path)
    belief_unseen_on(belief, concealment_deals(games, seed))
    rules = resolve_rules(rules)
    agents = [make_agent(spec, seed=seed + i, rules=rules) for i, spec in enumerate(specs)]
    if out is not None:
        claim_folder(out)
    results = [concealment(belief, agent, spec, games, seed, rules) for agent, spec in zip(agents, specs)]
    if out is not None:
        write(results, out)
    return concealment_table(results)
