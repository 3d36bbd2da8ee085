"""The policy-value network of the PPO agents, its checkpoints, and an agent
that plays a trained checkpoint (spec ``ppo:path/to/checkpoint.pt``).

The network reads its input size from :data:`briscola_env.observation.SPEC`
(no size is typed by hand): the uint8 view is scaled to [0, 1], a shared MLP
trunk feeds a policy head (one logit per action id) and a value head. Illegal
actions get no probability: their logits are set far below any legal one, so
the sampled action, the log-probabilities and the entropy only ever involve
legal actions.

A checkpoint is data, never code: a dict of tensors and plain values, loaded
with ``torch.load(..., weights_only=True)``. It records the observation
layout and the action layout it was trained on; loading it under another
layout is refused with a message saying what differs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from briscola_env.actions import CALL_OFFSET, NUM_ACTIONS, PASS, PLAY_OFFSET, POINT_BID_OFFSET, RANK_BID_OFFSET
from briscola_env.cards import NUM_SEATS
from briscola_env.observation import SPEC

from .base import Agent

CHECKPOINT_FORMAT = 1
ILLEGAL_LOGIT = -1e9  # far below any legal logit, yet finite: no NaN in the entropy


def layout_signature() -> dict:
    """What a trained network depends on: the observation and the action layouts."""
    return {
        "observation": [[name, s.start, list(s.shape)] for name, s in SPEC.sections.items()],
        "actions": {"pass": PASS, "rank_bid": RANK_BID_OFFSET, "point_bid": POINT_BID_OFFSET,
                    "call": CALL_OFFSET, "play": PLAY_OFFSET, "num_actions": NUM_ACTIONS},
    }


def view_layers(hidden: Sequence[int], activation: type[nn.Module]) -> tuple[list[nn.Module], int]:
    """Hidden layers over one seat's view, input size from the spec: ``(layers, output width)``."""
    layers, width = [], SPEC.size
    for size in hidden:
        layers += [nn.Linear(width, size), activation()]
        width = size
    return layers, width


class PolicyValueNet(nn.Module):
    """Masked-logit policy and value over one seat's view; one network for all seats.

    With ``belief=True`` it also has an auxiliary head on the same trunk predicting the
    partner's relative seat (as :class:`agents.belief.BeliefNet` does), trained from the
    privileged view; acting never reads it."""

    def __init__(self, hidden: Sequence[int] = (256, 256), belief: bool = False):
        super().__init__()
        if not hidden or not all(isinstance(size, int) and size > 0 for size in hidden):
            raise ValueError(f"hidden layer sizes must be one or more positive integers; got {list(hidden)!r}")
        self.hidden = list(hidden)
        self.register_buffer("scale", torch.as_tensor(SPEC.scale))
        layers, width = view_layers(self.hidden, nn.Tanh)
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(width, NUM_ACTIONS)
        self.value = nn.Linear(width, 1)
        self.belief = nn.Linear(width, NUM_SEATS) if belief else None
        for layer in self.trunk:
            if isinstance(layer, nn.Linear):
                nn.init.orthogonal_(layer.weight, np.sqrt(2))
                nn.init.zeros_(layer.bias)
        nn.init.orthogonal_(self.policy.weight, 0.01)  # a near-uniform policy over legal moves to start
        nn.init.zeros_(self.policy.bias)
        nn.init.orthogonal_(self.value.weight, 1.0)
        nn.init.zeros_(self.value.bias)

    def scaled(self, obs: torch.Tensor) -> torch.Tensor:
        """uint8 views as the network's float input, in [0, 1]."""
        return obs.float() * self.scale

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(masked logits (n, 151), value (n,))`` for uint8 views and bool masks."""
        logits, value, _ = self.heads(obs, mask)
        return logits, value

    def heads(self, obs: torch.Tensor, mask: torch.Tensor):
        """``(masked logits, value, belief logits (n, 5) or None)``: every head on one trunk pass.
        ``obs``: uint8 views, or views already scaled by :meth:`scaled` (floats)."""
        features = self.trunk(obs if obs.is_floating_point() else self.scaled(obs))
        # Adding the penalty is exact (a logit plus -1e9 rounds to -1e9) and many times cheaper on CPU
        # than masked_fill, forward and backward.
        logits = self.policy(features) + (~mask).to(features.dtype) * ILLEGAL_LOGIT
        belief = self.belief(features) if self.belief is not None else None
        return logits, self.value(features).squeeze(-1), belief

    def distribution(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[Categorical, torch.Tensor]:
        logits, value = self(obs, mask)
        return Categorical(logits=logits), value


def sample_actions(log_probs: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """One action per row, drawn from the policy (Gumbel-max: an exact sample, several times
    cheaper than ``torch.multinomial`` on CPU). Illegal actions, far below any legal log-probability,
    are never drawn: the Gumbel noise is at most about 17."""
    noise = torch.rand(log_probs.shape, generator=generator).to(log_probs.device)
    return (log_probs - torch.log(-torch.log(noise))).argmax(dim=1)


def entropy(log_probs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per-row entropy of masked log-probabilities over the legal actions ``mask``. The illegal
    ones are zeroed before ``exp``: they add nothing, and exp of -1e9 takes a slow path on x86."""
    legal = log_probs * mask.to(log_probs.dtype)
    return -(legal.exp() * legal).sum(dim=1)


def save_checkpoint(path, net: PolicyValueNet, **extra) -> None:
    """Write the network (and any extra tensors or plain values) atomically:
    to a temporary file first, then renamed over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"format": CHECKPOINT_FORMAT, "layout": layout_signature(), "hidden": net.hidden,
               "belief_head": net.belief is not None, "model": net.state_dict(), **extra}
    temporary = path.with_name(path.name + ".tmp")
    torch.save(payload, temporary)
    os.replace(temporary, path)


def load_checkpoint(path) -> dict:
    """A checkpoint's contents, after checking it fits this version's layouts."""
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise ValueError(f"no checkpoint at {path}") from None
    except Exception as error:  # noqa: BLE001 - a corrupt or foreign file: say so plainly
        raise ValueError(f"{path} is not a readable checkpoint: {error}") from None
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise ValueError(f"{path}: checkpoint format {found!r}; this version reads format {CHECKPOINT_FORMAT}")
    theirs, ours = payload.get("layout", {}), layout_signature()
    for part in ("observation", "actions"):
        if theirs.get(part) != ours[part]:
            raise ValueError(f"{path} was trained on another {part} layout than this version's "
                             f"({'observation.SPEC' if part == 'observation' else 'briscola_env.actions'}); "
                             "it cannot be used here: retrain, or use the version it was made with")
    return payload


def export_policy(source, target) -> int:
    """Write the network of a training checkpoint alone (no optimizer, environment or storage),
    for shipping and playing; returns the new file's size in bytes."""
    payload = load_checkpoint(source)
    net = PolicyValueNet(payload["hidden"], belief=payload.get("belief_head", False))
    net.load_state_dict(payload["model"])
    save_checkpoint(target, net, config=payload.get("config", {}))
    return Path(target).stat().st_size


def load_network(path) -> PolicyValueNet:
    payload = load_checkpoint(path)
    net = PolicyValueNet(payload["hidden"], belief=payload.get("belief_head", False))
    net.load_state_dict(payload["model"])
    return net.eval()


class PPOAgent(Agent):
    """Plays a trained checkpoint: samples from its policy, or its best action if ``greedy``."""

    name = "ppo"

    def __init__(self, path, seed: Optional[int] = None, greedy: bool = False):
        self.net = load_network(path)
        self.greedy = bool(greedy)
        super().__init__(seed)

    @classmethod
    def from_network(cls, net: PolicyValueNet, seed: Optional[int] = None, greedy: bool = False) -> "PPOAgent":
        """An agent playing ``net`` as it is now (for evaluations during training)."""
        agent = cls.__new__(cls)
        agent.net, agent.greedy = net.eval(), bool(greedy)
        Agent.__init__(agent, seed)
        return agent

    def reset(self, seed: Optional[int] = None) -> None:
        super().reset(seed)
        self.generator = torch.Generator().manual_seed(int(self.rng.integers(2**63)))

    @torch.no_grad()
    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits, _ = self.net(torch.from_numpy(np.ascontiguousarray(obs)), torch.from_numpy(mask))
        if self.greedy:
            return logits.argmax(dim=1).numpy()
        probs = torch.softmax(logits, dim=1)
        return torch.multinomial(probs, 1, generator=self.generator).squeeze(1).numpy()
