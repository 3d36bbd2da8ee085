"""Partner belief: who is the partner, as one player at the table sees it.

:class:`BeliefNet` reads a player's view (:data:`briscola_env.observation.SPEC`,
nothing else: no privileged input) and gives a probability for each relative
seat being the partner; the caller's own seat stands for "the caller plays
solo". Its target is the privileged view's partner section, which is how
the same facts are encoded for critics and probes.

It is trained on views logged from games of any mix of agents
(:func:`collect_views`, :func:`train_belief`), saved as data-only
checkpoints, and queried at any decision (:meth:`BeliefModel.probabilities`).
A model keeps the deal seeds of the games it was fitted on (``trained_on``,
saved with it), so that it is never measured on them
(:func:`briscola_env.seeds.refuse_training_deals`).
The same network shape serves as the auxiliary belief head of the PPO
network in ``train.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np
import torch
from torch import nn

from briscola_env import BatchedEnv, RulesConfig
from briscola_env.batched_env import called_trick
from briscola_env.cards import NUM_SEATS
from briscola_env.engine import WITHOUT_SOLO, Phase, seat_roles
from briscola_env.files import replace_atomically
from briscola_env.observation import PRIVILEGED_SPEC, SPEC, observation_spec

from .base import Agent
from .play import play_games
from .ppo import (CHECKPOINT_KINDS, checkpoint_kind, layout_signature, load_weights, probe_views, read_checkpoint,
                  refuse_non_finite_outputs, view_layers)

BELIEF_FORMAT = 1


class BeliefNet(nn.Module):
    """MLP from one player's view to logits over the 5 relative seats: the partner's seat."""

    def __init__(self, hidden: Sequence[int] = (256, 128)):
        super().__init__()
        layers, width = view_layers(hidden, nn.ReLU)
        self.hidden = list(hidden)
        self.register_buffer("scale", torch.as_tensor(SPEC.scale))
        self.body = nn.Sequential(*layers, nn.Linear(width, NUM_SEATS))
        # Deal seeds of the games fitted on: none yet; None once read from a file that does not say.
        self.trained_on: Optional[np.ndarray] = np.zeros(0, dtype=np.int64)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.body(obs.float() * self.scale)


@dataclass
class Views:
    """Views of players in card play, after the call, with what the questions need to know."""

    obs: np.ndarray  # (n, SPEC.size) uint8, the view
    partner: np.ndarray  # (n,) int64, the partner's relative seat (the caller's when solo): the target
    trick: np.ndarray  # (n,) int64, trick 0..7 of the decision
    role: np.ndarray  # (n,) int64, the viewer's Role, WITHOUT_SOLO: CALLER (solo or not), PARTNER or DEFENDER
    revealed: np.ndarray  # (n,) bool, the called card had been played (the partner is public)
    game: np.ndarray  # (n,) int64, game index
    deal_seeds: np.ndarray  # (games,) int64, the deal seed of each game
    called_trick: np.ndarray  # (games,) int64, trick the called card was played in (-1: not played)
    with_partner: np.ndarray  # (games,) bool, the hand was played by a caller and a partner (not void, not solo)
    contract_made: np.ndarray  # (games,) bool

    def __len__(self) -> int:
        return len(self.obs)

    def select(self, rows: np.ndarray) -> "Views":
        """The views ``rows`` (an index array or mask); the per-game facts are kept whole."""
        per_view = ("obs", "partner", "trick", "role", "revealed", "game")
        return Views(**{key: value[rows] if key in per_view else value for key, value in vars(self).items()})


def collect_views(agents: Sequence[Agent], seat_agents: np.ndarray, deal_seeds: np.ndarray,
                  rules: Optional[RulesConfig] = None) -> Views:
    """Play the games (``agents[seat_agents[g, s]]`` at seat ``s``) and keep the view of every
    decision in card play: each player's once per trick."""
    if rules is not None and observation_spec(rules).size != SPEC.size:
        raise ValueError("the partner-belief model reads the standard table's view (five seats, 8 cards, no monte); "
                         "it cannot learn under monte or four players yet")
    kept = []

    def observe(env: BatchedEnv, out) -> None:
        state = env.state
        g = np.flatnonzero((state.phase == Phase.PLAY) & ~state.terminated)
        if not g.size:
            return
        seat = state.current_player[g].astype(np.int64)
        partner = PRIVILEGED_SPEC.view(env.privileged()[g], "partner").argmax(axis=1)
        role = WITHOUT_SOLO[seat_roles(state.caller[g], state.hidden.partner[g])[np.arange(g.size), seat]]
        revealed = SPEC.view(out.obs[g], "partner_revealed")[:, 0] == 1
        kept.append((out.obs[g], partner, state.trick_index[g].astype(np.int64), role, revealed, g))

    deal_seeds = np.asarray(deal_seeds, dtype=np.int64)
    state, _ = play_games(agents, seat_agents, deal_seeds, rules, observe=observe)
    obs, partner, trick, role, revealed, game = (np.concatenate(parts) for parts in zip(*kept))
    with_partner = (state.caller >= 0) & (state.hidden.partner != state.caller)
    return Views(obs, partner, trick, role, revealed, game, deal_seeds.copy(),
                 called_trick(state, np.arange(state.batch_size)).astype(np.int64), with_partner,
                 state.contract_made.copy())


def train_belief(views: Views, hidden: Sequence[int] = (256, 128), epochs: int = 4, batch_size: int = 512,
                 learning_rate: float = 1e-3, seed: int = 0,
                 progress: Optional[Callable[[int, float], None]] = None) -> BeliefNet:
    """Fit a :class:`BeliefNet` to ``views`` by cross-entropy; ``progress(epoch, loss)`` after each epoch.
    The net's ``trained_on`` is the deal seeds of the games whose views it was fitted on."""
    if len(views) == 0:
        raise ValueError("no views to train on: play more games")
    torch.manual_seed(seed)
    net = BeliefNet(hidden)
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate)
    obs, target = torch.from_numpy(views.obs), torch.from_numpy(views.partner)
    generator = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        order, total = torch.randperm(len(obs), generator=generator), 0.0
        for start in range(0, len(obs), batch_size):
            batch = order[start:start + batch_size]
            loss = nn.functional.cross_entropy(net(obs[batch]), target[batch])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        if progress:
            progress(epoch + 1, total / len(obs))
    net.trained_on = np.unique(views.deal_seeds[views.game])
    return net.eval()


def save_belief(path, net: BeliefNet, **extra) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {} if net.trained_on is None else {"trained_on": torch.from_numpy(net.trained_on)}  # None stays unknown
    payload = {"format": BELIEF_FORMAT, "kind": "belief", "layout": layout_signature(), "hidden": net.hidden,
               "model": net.state_dict(), **record, **extra}
    replace_atomically(path, lambda temporary: torch.save(payload, temporary))


class BeliefModel:
    """A trained belief network, queried on views: ``probabilities(obs)`` is ``(n, 5)``;
    ``name`` says which model it is in messages."""

    def __init__(self, net: BeliefNet, name: str = "the belief model"):
        self.net = net.eval()
        self.name = name

    @property
    def trained_on(self) -> Optional[np.ndarray]:
        """The deal seeds of the games it was fitted on; None for a file written before models
        recorded them (it may have been fitted on any deals)."""
        return self.net.trained_on

    @classmethod
    def load(cls, path) -> "BeliefModel":
        payload = read_checkpoint(path, "belief model")
        kind = checkpoint_kind(payload)
        if kind != "belief":
            what = CHECKPOINT_KINDS[kind] if kind else "not a model this project writes"
            raise ValueError(f"{path} is {what}; a belief model was expected here "
                             "(train one with: briscola belief ...)")
        if payload.get("format") != BELIEF_FORMAT:
            raise ValueError(f"{path}: belief model format {payload.get('format')!r}; "
                             f"this version reads format {BELIEF_FORMAT}")
        layout = payload.get("layout")
        if not isinstance(layout, dict) or layout.get("observation") != layout_signature()["observation"]:
            raise ValueError(f"{path} was trained on another observation layout than this version's")
        try:
            net = BeliefNet(payload.get("hidden"))
        except ValueError as error:
            raise ValueError(f"{path} declares a network this version cannot build: {error}") from None
        load_weights(net, payload.get("model"), path)
        with torch.no_grad():
            refuse_non_finite_outputs(path, {"logits": net.eval()(probe_views()[0])})
        net.trained_on = _trained_on_record(payload, path)
        return cls(net, f"the belief model {path}")

    @torch.no_grad()
    def probabilities(self, obs: np.ndarray) -> np.ndarray:
        out = []
        for start in range(0, len(obs), 65_536):
            out.append(torch.softmax(self.net(torch.from_numpy(np.ascontiguousarray(obs[start:start + 65_536]))),
                                     dim=1).numpy())
        return np.concatenate(out) if out else np.zeros((0, NUM_SEATS), np.float32)


def _trained_on_record(payload: dict, path) -> Optional[np.ndarray]:
    """A belief file's record of its training deals; None where the file has none (written before
    the record existed)."""
    trained_on = payload.get("trained_on")
    if trained_on is None:
        return None
    if not isinstance(trained_on, torch.Tensor) or trained_on.dtype != torch.int64 or trained_on.dim() != 1:
        raise ValueError(f"{path}: its record of the deals it was trained on ('trained_on') is not a 1-D int64 "
                         "tensor of deal seeds")
    return trained_on.numpy().copy()
