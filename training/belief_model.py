"""A partner-belief model (:mod:`agents.belief`) fitted on games of agents: the model that
``briscola concealment`` measures partners against, made by ``briscola belief``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Union

import numpy as np
from tqdm import tqdm

from agents import make_agent
from agents.belief import BeliefModel, collect_views, save_belief, train_belief
from briscola_env.rules import RulesConfig, resolve_rules
from briscola_env.seeds import deal_seeds, refuse_training_deals
from evaluation.report import writable_folder


def train_belief_model(specs: list[str], games: int, seed: int, rules: Union[RulesConfig, str], out: Path,
                       epochs: int) -> str:
    """Log games of the agents (each seat of each game drawn from ``specs``), fit a belief model for
    ``epochs`` passes, save it to the file ``out``; returns a line on its held-out accuracy. The games are
    dealt from the ``"belief-train"`` stream of ``seed``, a tenth more held out from ``"belief-heldout"``
    (:mod:`briscola_env.seeds`); the model records the deals it was fitted on. Progress goes to stderr."""
    rules = resolve_rules(rules)
    agents = [make_agent(spec, seed=seed + i, rules=rules) for i, spec in enumerate(specs)]
    held_out = max(1, games // 10)
    fit_deals, check_deals = deal_seeds("belief-train", seed, games), deal_seeds("belief-heldout", seed, held_out)
    refuse_training_deals(check_deals, fit_deals, "the belief model")
    if out.is_dir():
        raise ValueError(f"{out} is a folder: --out names the model file to write, such as runs/belief.pt")
    writable_folder(out.parent)
    layout = np.random.default_rng(seed).integers(0, len(agents), (games + held_out, rules.table_shape.seats))
    views = collect_views(agents, layout, np.concatenate([fit_deals, check_deals]), rules)
    fit, check = views.select(views.game < games), views.select(views.game >= games)
    with tqdm(total=epochs, desc="belief", unit="epoch", file=sys.stderr) as bar:
        net = train_belief(fit, epochs=epochs, seed=seed,
                           progress=lambda epoch, loss: (bar.set_postfix_str(f"loss {loss:.3f}"), bar.update(1)))
    save_belief(out, net, specs=specs, games=games, rules=rules.to_dict(), seed=seed)
    probabilities = BeliefModel(net).probabilities(check.obs)
    hidden = ~check.revealed
    accuracy = float((probabilities.argmax(axis=1) == check.partner)[hidden].mean())
    return (f"belief model in {out}: {len(fit)} views of {games} games; held-out accuracy before the reveal "
            f"{accuracy:.3f} on {int(hidden.sum())} views of {held_out} games")
