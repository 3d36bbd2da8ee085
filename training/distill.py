"""Distillation of search into the policy-value network: the network learns, from the labels
of :mod:`training.labelling`, to act as the search would and to value a position as it does.

    briscola distill runs/labels --out runs/distilled.pt              # then: ppo:runs/distilled.pt
    python train.py --config configs/distill.yaml                     # PPO from the distilled network

Policy target: the softmax of the search's values of the candidate actions at ``temperature`` (in
payoff units: the lower, the closer to the search's own greedy choice), zero on the legal actions it
did not search; the loss is the cross-entropy of the network's masked policy to it. Value target: the
best candidate's value (the search acts greedily), squared error weighted by ``value_coef``. A teacher's
labels (``briscola label --teacher``) have one candidate each: the target is its action, valued at the
payoff that followed, so the network learns to play as the teacher does. The last
``holdout`` share of the labels' deals (whole deals, never split) is held out: its loss and the share of
its decisions where the network's top action is the search's (overall and by phase) are reported and kept
in the checkpoint.
Minibatches and the initial weights come from ``seed``; the same labels and seed give the same network
on CPU. The result is an exported policy (``ppo:PATH`` plays it; ``init_from`` starts PPO from it), sized
by the rules of the labels' plan (its views' layout: a network of the monte or the four-player table
plays those rules only) and recording them in its config.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional

import numpy as np
import torch
from tqdm import tqdm

from agents.ppo import PolicyValueNet, load_network, save_checkpoint
from briscola_env.engine import PHASE_NAMES
from briscola_env.rules import resolve_rules

from .labelling import load_labels, read_plan


@dataclass(frozen=True)
class DistillSettings:
    """How :func:`distill` fits the network; each field's docstring is its option's help in
    ``briscola distill --help``."""

    hidden_sizes: tuple[int, ...] = (256, 256)
    """widths of the network's hidden layers"""
    epochs: int = 10
    """passes over the labels that are not held out"""
    batch_size: int = 512
    """labelled decisions a minibatch (of Adam)"""
    learning_rate: float = 1e-3
    """Adam's step size"""
    temperature: float = 0.25
    """temperature of the softmax over the search's values that the policy learns (payoff units: the lower,
    the closer to the search's greedy choice)"""
    value_coef: float = 0.1
    """weight of the value's squared error beside the policy's cross-entropy"""
    holdout: float = 0.1
    """share of the labels' deals held out (whole deals), to measure the network on"""
    seed: int = 0
    """seeds the initial weights and the minibatches"""
    init_from: str = ""
    """a network (ppo checkpoint, exported or training) to start from instead of fresh weights; --hidden-sizes
    must be its widths (default: none, fresh weights)"""

    def __post_init__(self):
        for name in ("epochs", "batch_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number of at least 1; got {value!r}")
        for name in ("learning_rate", "temperature"):
            if not (getattr(self, name) > 0 and math.isfinite(getattr(self, name))):
                raise ValueError(f"{name} must be a finite number above 0; got {getattr(self, name)!r}")
        if not (self.value_coef >= 0 and math.isfinite(self.value_coef)):
            raise ValueError(f"value_coef must be a finite number, 0 or more; got {self.value_coef!r}")
        if not 0 <= self.holdout < 1:
            raise ValueError(f"holdout (the share of deals held out) must be in [0, 1); got {self.holdout!r}")


def targets(labels: dict[str, np.ndarray], temperature: float) -> tuple[np.ndarray, np.ndarray]:
    """``(policy targets (n, 151), value targets (n,))`` from the search's values (NaN off the candidates)."""
    values = labels["values"].astype(np.float64)
    searched = labels["candidates"]
    best = np.where(searched, values, -np.inf).max(axis=1)
    weights = np.where(searched, np.exp((np.nan_to_num(values, nan=0.0) - best[:, None]) / temperature), 0.0)
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32), best.astype(np.float32)


def held_out_rows(deal_seeds: np.ndarray, share: float) -> np.ndarray:
    """Rows whose deal is among the last ``share`` of the distinct deals, in the order they were labelled."""
    _, first = np.unique(deal_seeds, return_index=True)
    deals = deal_seeds[np.sort(first)]
    held = deals[len(deals) - int(round(share * len(deals))):] if share else deals[:0]
    return np.isin(deal_seeds, held)


def losses(net: PolicyValueNet, views, masks, policy, value, value_coef: float):
    logits, predicted = net(views, masks)
    cross_entropy = -(policy * torch.log_softmax(logits, dim=1)).sum(dim=1).mean()
    value_error = ((predicted - value) ** 2).mean()
    return cross_entropy + value_coef * value_error, cross_entropy, value_error, logits


def starting_network(settings: DistillSettings, rules) -> PolicyValueNet:
    """Fresh weights of ``settings.hidden_sizes``, or ``settings.init_from``'s network (its policy and value, to
    fine-tune on the labels: a teacher that differs from it in one role needs fewer labels than one learned anew)."""
    if not settings.init_from:
        return PolicyValueNet(list(settings.hidden_sizes), rules=rules)
    try:
        net = load_network(settings.init_from, rules=rules)
    except ValueError as error:
        raise ValueError(f"init_from (the network to start from): {error}") from None
    if tuple(net.hidden) != tuple(settings.hidden_sizes):
        raise ValueError(f"init_from {settings.init_from} has hidden layers {','.join(map(str, net.hidden))}, "
                         f"hidden_sizes is {','.join(map(str, settings.hidden_sizes))}: give its widths")
    return net.train()


def distill(folder: Path, out: Path, settings: Optional[DistillSettings] = None) -> dict:
    """Train a network (fresh, or ``settings.init_from``'s) on the labels in ``folder`` (see the module
    docstring), save it to ``out`` and return the held-out figures."""
    settings = settings or DistillSettings()
    labels, plan = load_labels(folder), read_plan(folder)
    policy, value = targets(labels, settings.temperature)
    if not len(value):
        raise ValueError(f"{folder} holds no labelled decision: label more deals, or a larger --share")
    held = held_out_rows(labels["deal_seeds"], settings.holdout)
    if held.all():
        raise ValueError(f"{folder}: too few labelled deals to hold {settings.holdout:.0%} of them out")
    tensors = [torch.from_numpy(array) for array in (labels["views"], labels["masks"], policy, value)]
    train = [tensor[torch.from_numpy(~held)] for tensor in tensors]
    test = [tensor[torch.from_numpy(held)] for tensor in tensors]
    torch.manual_seed(settings.seed)
    generator = torch.Generator().manual_seed(settings.seed)
    net = starting_network(settings, resolve_rules(plan.rules))
    optimizer = torch.optim.Adam(net.parameters(), lr=settings.learning_rate)
    rows = len(train[0])
    for epoch in tqdm(range(settings.epochs), desc="distill", unit="epoch"):
        order = torch.randperm(rows, generator=generator)
        for start in range(0, rows, settings.batch_size):
            batch = order[start:start + settings.batch_size]
            loss = losses(net, *(tensor[batch] for tensor in train), settings.value_coef)[0]
            if not torch.isfinite(loss):  # nothing is written: a network no loader accepts is no result
                raise ValueError(f"distillation diverged in epoch {epoch + 1} (loss {float(loss.detach())}): "
                                 f"nothing written to {out}; try a lower --learning-rate (now "
                                 f"{settings.learning_rate}) or --value-coef (now {settings.value_coef})")
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    if not all(torch.isfinite(parameter).all() for parameter in net.parameters()):
        raise ValueError(f"distillation diverged (weights that are not finite numbers): nothing written to {out}; "
                         f"try a lower --learning-rate (now {settings.learning_rate})")
    report = {"labels": str(folder), "train_decisions": rows, "held_out_decisions": int(held.sum()),
              "settings": asdict(settings)}
    if held.any():
        with torch.no_grad():
            _, cross_entropy, value_error, logits = losses(net.eval(), *test, settings.value_coef)
        searched_best = test[2].argmax(dim=1)  # the policy target's mode: the search's own choice
        agree = (logits.argmax(dim=1) == searched_best).numpy()
        phases = labels["phases"][held]
        report.update(held_out_cross_entropy=float(cross_entropy), held_out_value_mse=float(value_error),
                      held_out_agreement=float(agree.mean()),
                      held_out_agreement_by_phase={PHASE_NAMES[phase]: float(agree[phases == phase].mean())
                                                   for phase in np.unique(phases)})
    try:
        save_checkpoint(out, net, config={"hidden_sizes": list(settings.hidden_sizes),
                                          "rules": resolve_rules(plan.rules).to_dict()},
                        distillation=report)
    except (OSError, RuntimeError) as error:  # a full disk: torch's writer says so as a RuntimeError
        raise ValueError(f"cannot write {out}: {error}") from None
    return report
