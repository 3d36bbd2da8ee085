"""The privileged critic (config ``privileged_critic: true``): perfect-training, imperfect-execution,
as in PerfectDou. During training the value of a decision is estimated from the acting player's own
view *and* the privileged view (:meth:`briscola_env.BatchedEnv.privileged`: every hand and the
partner), which the value can use, since it only shapes the advantages, while the policy must act
from what its player sees.

The critic is a network of its own beside the policy-value network, held by the trainer alone: the
policy's trunk never reads the privileged view, so the policy cannot come to depend on it, and the
exported network (``briscola export``) is the same kind of network as without it (its own value
head is then left as it was: untrained from a fresh start, or the ``init_from`` network's).

Its first layer reads the two views side by side (the own view through :func:`agents.ppo.sparse_linear`
on CPU, as the policy's does), then hidden layers of the run's ``hidden_sizes`` and a value output."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
import torch
from torch import nn

from agents.ppo import sparse_linear, view_layers
from briscola_env.observation import observation_spec, privileged_spec
from briscola_env.rules import RulesConfig


class PrivilegedCritic(nn.Module):
    """The value of a decision from the player's view ``obs`` and the privileged view ``privileged``
    (uint8 rows of :func:`observation_spec` and :func:`privileged_spec` of ``rules``; ``obs`` may also
    come already scaled to floats, as the trainer passes it on a GPU)."""

    def __init__(self, hidden: Sequence[int], rules: Optional[RulesConfig] = None):
        super().__init__()
        spec = observation_spec(rules)
        layers, width = view_layers(hidden, nn.Tanh, spec)  # checks the sizes; layers[0] reads the own view
        self.register_buffer("scale", torch.as_tensor(spec.scale))
        self.own = layers[0]
        self.privileged = nn.Linear(privileged_spec(rules).size, hidden[0], bias=False)
        self.body = nn.Sequential(*layers[1:])
        self.value = nn.Linear(width, 1)
        for layer in (self.own, self.privileged, *self.body):
            if isinstance(layer, nn.Linear):
                nn.init.orthogonal_(layer.weight, np.sqrt(2))
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)
        nn.init.orthogonal_(self.value.weight, 1.0)
        nn.init.zeros_(self.value.bias)

    def forward(self, obs: torch.Tensor, privileged: torch.Tensor) -> torch.Tensor:
        """``(n,)`` values."""
        if obs.is_floating_point():
            own = self.own(obs)
        elif obs.device.type != "cpu" or not len(obs):
            own = self.own(obs.float() * self.scale)
        else:
            own = sparse_linear(self.own, obs, self.scale)
        return self.value(self.body(own + self.privileged(privileged.float()))).squeeze(-1)
