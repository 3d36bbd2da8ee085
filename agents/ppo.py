"""The policy-value network of the PPO agents, its checkpoints, and an agent
that plays a trained checkpoint (spec ``ppo:path/to/checkpoint.pt``).

The network reads its input size from the observation spec of the rules it plays
(:func:`briscola_env.observation.observation_spec`: :data:`~briscola_env.observation.SPEC` for
the standard ones; no size is typed by hand): the uint8 view is scaled to [0, 1], a shared MLP
trunk feeds a policy head (one logit per action id) and a value head. Illegal
actions get no probability: their logits are set far below any legal one, so
the sampled action, the log-probabilities and the entropy only ever involve
legal actions.

A checkpoint is data, never code: a dict of tensors and plain values, loaded
with ``torch.load(..., weights_only=True)``. It records the observation
layout and the action layout it was trained on; loading it under another
layout is refused with a message saying what differs. The observation layout is that of the
rules' table (seats, tricks, the monte: :func:`layout_signature`), so a network trained under
``monte`` or ``four_players`` is refused for the standard game and the other way round; rules of
the same table (``al_buio``, ``seven``, ...) share the standard layout, and a network plays them. A file is one of the
:data:`CHECKPOINT_KINDS` (:func:`checkpoint_kind`): a training checkpoint
(``train.py``'s, with the trainer's state) and an exported network both play
as ``ppo:``; only the first resumes. Loading names what a file is when it is
not what was asked for, and refuses weights that do not fit the hidden sizes
the file declares, or are not finite.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np
import torch
from torch import nn

from briscola_env import engine
from briscola_env.actions import CALL_OFFSET, NUM_ACTIONS, PASS, PLAY_OFFSET, POINT_BID_OFFSET, RANK_BID_OFFSET
from briscola_env.batched_env import BatchedEnv
from briscola_env.files import replace_atomically
from briscola_env.observation import ObservationSpec, observation_spec
from briscola_env.rules import PRESETS, RulesConfig, preset, resolve_rules

from .base import Agent
from .shipped import network_file

CHECKPOINT_FORMAT = 1
ILLEGAL_LOGIT = -1e9  # far below any legal logit, yet finite: no NaN in the entropy


def layout_signature(rules: Optional[RulesConfig] = None) -> dict:
    """What a trained network depends on: the observation layout of ``rules``' table (default: the
    standard rules') and the action layout."""
    spec = observation_spec(rules)
    return {
        "observation": [[name, s.start, list(s.shape)] for name, s in spec.sections.items()],
        "actions": {"pass": PASS, "rank_bid": RANK_BID_OFFSET, "point_bid": POINT_BID_OFFSET,
                    "call": CALL_OFFSET, "play": PLAY_OFFSET, "num_actions": NUM_ACTIONS},
    }


def _table_presets() -> dict[str, RulesConfig]:
    """The first preset of each table the presets set (standard, monte, four_players), by name."""
    tables: dict = {}
    for name in PRESETS:
        rules = preset(name)
        tables.setdefault(rules.table_shape, (name, rules))
    return dict(tables.values())


_TABLE_PRESETS = _table_presets()


def layout_table(payload: Mapping) -> Optional[str]:
    """The preset of the table whose observation layout a checkpoint's contents record (standard,
    monte, four_players), or None if none has it (a layout of another version)."""
    layout = payload.get("layout")
    observation = layout.get("observation") if isinstance(layout, Mapping) else None
    return next((name for name, rules in _TABLE_PRESETS.items()
                 if observation == layout_signature(rules)["observation"]), None)


def view_layers(hidden: Sequence[int], activation: type[nn.Module],
                spec: Optional[ObservationSpec] = None) -> tuple[list[nn.Module], int]:
    """Hidden layers over one seat's view, input size from ``spec`` (default: the standard rules'):
    ``(layers, output width)``."""
    if isinstance(hidden, (str, bytes)) or not hidden or not all(
            isinstance(size, int) and not isinstance(size, bool) and size > 0 for size in hidden):
        raise ValueError(f"hidden layer sizes must be one or more positive integers; got {hidden!r}")
    layers, width = [], (spec or observation_spec()).size
    for size in hidden:
        layers += [nn.Linear(width, size), activation()]
        width = size
    return layers, width


def sparse_linear(layer: nn.Linear, obs: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """``layer`` applied to uint8 views scaled by ``scale``, from their non-zero entries alone.

    A view is about 3% non-zero (55 of 1635 entries), so summing the weight rows of those entries
    (``embedding_bag``, scaled by the entries' values) does the dense product's work, forward and
    backward, 4 to 5 times faster on CPU; the sums are the same up to float rounding."""
    rows, columns = obs.nonzero(as_tuple=True)
    weights = obs[rows, columns].to(layer.weight.dtype) * scale[columns]
    offsets = torch.searchsorted(rows, torch.arange(len(obs), device=obs.device))
    # The rows of the transposed weight, made contiguous: 0.6 ms, where gathering from the strided
    # transpose takes ten times the dense product.
    return nn.functional.embedding_bag(columns, layer.weight.t().contiguous(), offsets, mode="sum",
                                       per_sample_weights=weights) + layer.bias


class PolicyValueNet(nn.Module):
    """Masked-logit policy and value over one seat's view; one network for all seats.

    With ``belief=True`` it also has an auxiliary head on the same trunk predicting the
    partner's relative seat (as :class:`agents.belief.BeliefNet` does), trained from the
    privileged view; acting never reads it.

    ``rules`` (default: the standard ones) size it: the input is their view
    (:func:`~briscola_env.observation.observation_spec`), the belief head has a logit per seat of
    their table; :attr:`rules` keeps them, and its checkpoint records their layout."""

    def __init__(self, hidden: Sequence[int] = (256, 256), belief: bool = False,
                 rules: Optional[RulesConfig] = None):
        super().__init__()
        self.rules = resolve_rules(rules)
        spec = observation_spec(self.rules)
        layers, width = view_layers(hidden, nn.Tanh, spec)
        self.hidden = list(hidden)
        self.register_buffer("scale", torch.as_tensor(spec.scale))
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(width, NUM_ACTIONS)
        self.value = nn.Linear(width, 1)
        self.belief = nn.Linear(width, self.rules.table_shape.seats) if belief else None
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

    def sparse_first_layer(self, obs: torch.Tensor) -> torch.Tensor:
        """The first layer's pre-activations for uint8 views, from their non-zero entries alone
        (:func:`sparse_linear`)."""
        return sparse_linear(self.trunk[0], obs, self.scale)

    def heads(self, obs: torch.Tensor, mask: torch.Tensor):
        """``(masked logits, value, belief logits (n, seats) or None)``: every head on one trunk pass.
        ``obs``: uint8 views, or views already scaled by :meth:`scaled` (floats)."""
        if obs.is_floating_point():
            features = self.trunk(obs)
        elif obs.device.type != "cpu" or not len(obs):  # on a GPU the dense product is the fast one
            features = self.trunk(self.scaled(obs))
        else:
            features = self.trunk[1:](self.sparse_first_layer(obs))
        # Adding the penalty is exact (a logit plus -1e9 rounds to -1e9) and many times cheaper on CPU
        # than masked_fill, forward and backward.
        logits = self.policy(features) + (~mask).to(features.dtype) * ILLEGAL_LOGIT
        belief = self.belief(features) if self.belief is not None else None
        return logits, self.value(features).squeeze(-1), belief


def sample_actions(log_probs: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """One action per row, drawn from the policy (Gumbel-max: an exact sample, several times
    cheaper than ``torch.multinomial`` on CPU). Illegal actions, far below any legal log-probability,
    are never drawn: the Gumbel noise is at most about 17. ``torch.rand`` can return exactly 0 (once in
    2 ** 24 draws), whose noise is -inf: it would sink a lone legal action below the illegal ones, so a
    draw of 0 is raised to the smallest positive float (noise about -4.5)."""
    noise = torch.rand(log_probs.shape, generator=generator).clamp_(min=torch.finfo(torch.float32).tiny)
    noise = noise.to(log_probs.device)
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
    payload = {"format": CHECKPOINT_FORMAT, "layout": layout_signature(net.rules), "hidden": net.hidden,
               "belief_head": net.belief is not None, "model": net.state_dict(), **extra}
    replace_atomically(path, lambda temporary: torch.save(payload, temporary))


CHECKPOINT_KINDS = {
    "training": "a training checkpoint (a network with its trainer's state)",
    "policy": "an exported policy network",
    "belief": "a belief model (agents.belief)",
}
"""What a checkpoint file can hold, as :func:`checkpoint_kind` names it, and how messages say it."""


def read_checkpoint(path, what: str = "checkpoint") -> dict:
    """The dict a checkpoint file holds, read as data only; a missing or foreign file is a ValueError
    saying that it is no ``what``."""
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise ValueError(f"no {what} at {path}") from None
    except Exception as error:  # noqa: BLE001 - a corrupt or foreign file: say so plainly
        reason = (str(error).splitlines() or [""])[0].split(". ")[0][:160]  # torch's first sentence says it
        raise ValueError(f"{path} is not a readable {what}: torch.load(weights_only=True) cannot read it "
                         f"({type(error).__name__}: {reason})") from None
    if not isinstance(payload, dict):
        raise ValueError(f"{path} is not a {what}: it holds a {type(payload).__name__}, not a dict")
    return payload


def checkpoint_kind(payload: Mapping) -> Optional[str]:
    """Which of :data:`CHECKPOINT_KINDS` a checkpoint's contents are, or None for none of them."""
    if payload.get("kind") == "belief":
        return "belief"
    if "model" in payload and "hidden" in payload:
        return "training" if "trainer" in payload else "policy"
    return None


def load_weights(net: nn.Module, state, path) -> None:
    """Load the state dict ``state`` read from ``path`` into ``net``, refusing, as a ValueError naming
    the file, weights that are not finite or do not fit the network the file declares."""
    if not isinstance(state, Mapping) or not all(isinstance(value, torch.Tensor) for value in state.values()):
        raise ValueError(f"{path}: its weights ('model') are not a dict of tensors")
    broken = [name for name, value in state.items() if value.is_floating_point() and not value.isfinite().all()]
    if broken:
        raise ValueError(f"{path} has weights that are not finite (NaN or inf) in {', '.join(broken)}: "
                         "the file is damaged; use another checkpoint")
    try:
        net.load_state_dict(state)
    except RuntimeError as error:
        details = " ".join(str(error).split(":", 1)[-1].split())
        raise ValueError(f"{path}: its weights do not fit the network it declares "
                         f"(hidden sizes {net.hidden}): {details}") from None


PROBE_GAMES = 4  # hands whose every view a loaded network must answer with finite outputs


@functools.lru_cache(maxsize=4)
def probe_views(rules: Optional[RulesConfig] = None) -> tuple[torch.Tensor, torch.Tensor]:
    """``(views, masks)`` of every decision of a few seeded hands played at random (auction, call
    and card play) under ``rules`` (default: the standard ones): the real inputs
    :func:`refuse_non_finite_outputs` tries a network on."""
    env, rng = BatchedEnv(PROBE_GAMES, rules, seed=0, auto_reset=False), np.random.default_rng(0)
    out, views, masks = env.reset(), [], []
    while not env.state.terminated.all():
        playing = ~env.state.terminated
        views.append(out.obs[playing])
        masks.append(out.mask[playing])
        out = env.step(engine.random_actions(env.state, rng))  # a finished game's action is ignored
    return torch.from_numpy(np.concatenate(views)), torch.from_numpy(np.concatenate(masks))


def refuse_non_finite_outputs(path, outputs: Mapping[str, Optional[torch.Tensor]]) -> None:
    """A ValueError naming ``path`` if any of a network's ``outputs`` on :func:`probe_views` is not
    finite: finite weights can still overflow float32 (3e38 times an input of 1 is inf), and the
    error would otherwise come from deep inside torch when the first action is sampled."""
    broken = [name for name, tensor in outputs.items() if tensor is not None and not tensor.isfinite().all()]
    if broken:
        raise ValueError(f"{path}: its network's outputs ({', '.join(broken)}) are not finite (inf or NaN) on the "
                         "views of a real hand, though its weights are finite: they overflow float32; the file "
                         "is damaged; use another checkpoint")


def _table_of(rules: RulesConfig) -> str:
    """The table of ``rules`` as messages name it."""
    shape = rules.table_shape
    monte = f", a monte of {shape.monte_size}" if shape.monte_size else ""
    return f"{shape.seats} seats, {shape.tricks} tricks{monte}"


def open_checkpoint(path, training: bool = False,
                    rules: Optional[RulesConfig] = None) -> tuple[dict, PolicyValueNet]:
    """``(contents, network)`` of a policy checkpoint, after checking it fits this version's layouts
    under ``rules`` (default: the standard ones; their table decides the observation layout) and holds
    the network it declares; with ``training``, only a training checkpoint (one that resumes). ``path``
    may name a shipped network (``best``: :func:`agents.shipped.network_file`)."""
    rules = resolve_rules(rules)
    path = network_file(path)
    payload = read_checkpoint(path)
    kind = checkpoint_kind(payload)
    expected = CHECKPOINT_KINDS["training"] + ("" if training else f" or {CHECKPOINT_KINDS['policy']}")
    if kind == "belief" or (training and kind == "policy"):
        raise ValueError(f"{path} is {CHECKPOINT_KINDS[kind]}; {expected} was expected here")
    if payload.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path}: checkpoint format {payload.get('format')!r}; "
                         f"this version reads format {CHECKPOINT_FORMAT}")
    if kind is None:
        raise ValueError(f"{path} holds no network (no 'model' and 'hidden'); {expected} was expected here")
    theirs, ours = payload.get("layout", {}), layout_signature(rules)
    table = layout_table(payload)
    if table is not None and theirs.get("observation") != ours["observation"]:
        raise ValueError(f"{path} was trained at another table than these rules' ({_table_of(rules)}): its "
                         f"observation layout is that of the {table} rules ({_table_of(_TABLE_PRESETS[table])}), "
                         f"so it cannot play these rules: play it under rules of its table (--rules {table}), "
                         "or train a network for these")
    for part in ("observation", "actions"):
        if not isinstance(theirs, Mapping) or theirs.get(part) != ours[part]:
            raise ValueError(f"{path} was trained on another {part} layout than this version's "
                             f"({'observation.SPEC' if part == 'observation' else 'briscola_env.actions'}); "
                             "it cannot be used here: retrain, or use the version it was made with")
    try:
        net = PolicyValueNet(payload["hidden"], belief=payload.get("belief_head") is True, rules=rules)
    except ValueError as error:
        raise ValueError(f"{path} declares a network this version cannot build: {error}") from None
    load_weights(net, payload["model"], path)
    with torch.no_grad():
        logits, value, belief = net.eval().heads(*probe_views(rules))
    refuse_non_finite_outputs(path, {"logits": logits, "value": value, "belief logits": belief})
    return payload, net


def load_checkpoint(path, training: bool = False, rules: Optional[RulesConfig] = None) -> dict:
    """A policy checkpoint's contents, checked as :func:`open_checkpoint` does."""
    return open_checkpoint(path, training, rules)[0]


def load_network(path, rules: Optional[RulesConfig] = None) -> PolicyValueNet:
    """The network of a training checkpoint or an exported one, ready to act under ``rules`` (default:
    the standard ones; a network of another table's layout is refused)."""
    return open_checkpoint(path, rules=rules)[1]


def export_policy(source, target) -> int:
    """Write the network of a training checkpoint alone (no optimizer, environment or storage),
    for shipping and playing; returns the new file's size in bytes. A network of any table: it is
    read under a preset of the table its layout is of (:func:`layout_table`)."""
    source = network_file(source)
    table = layout_table(read_checkpoint(source))
    payload, net = open_checkpoint(source, rules=_TABLE_PRESETS.get(table))
    save_checkpoint(target, net, config=payload.get("config", {}))
    return Path(target).stat().st_size


def _greedy(greedy) -> bool:
    # Any truthy value would do for bool(), so the string "false" would mean greedy: refuse it.
    if not isinstance(greedy, (bool, np.bool_)):
        raise ValueError(f"ppo: greedy must be True or False; got {greedy!r}")
    return bool(greedy)


class PPOAgent(Agent):
    """Plays a trained checkpoint: samples from its policy, or its best action if ``greedy``; under
    ``rules`` (default: the standard ones), which must be of the table it was trained at (the
    checkpoint's observation layout: :func:`open_checkpoint` refuses another)."""

    name = "ppo"

    def __init__(self, path: Union[str, os.PathLike], seed: Optional[int] = None, greedy: bool = False,
                 rules: Optional[RulesConfig] = None):
        self.greedy = _greedy(greedy)
        self.net = load_network(path, rules)
        self.source = str(path)  # names the network in errors
        super().__init__(seed)

    @classmethod
    def from_network(cls, net: PolicyValueNet, seed: Optional[int] = None, greedy: bool = False) -> "PPOAgent":
        """An agent playing ``net`` as it is now (for evaluations during training)."""
        agent = cls.__new__(cls)
        agent.greedy, agent.net = _greedy(greedy), net.eval()
        agent.source = "the network given to PPOAgent.from_network"
        Agent.__init__(agent, seed)
        return agent

    def reset(self, seed: Optional[int] = None) -> None:
        super().reset(seed)
        self.generator = torch.Generator().manual_seed(int(self.rng.integers(2**63)))

    @torch.no_grad()
    def log_probabilities(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """``(n, 151)`` the policy's log-probabilities of each action (about -1e9 for the illegal ones):
        a model of how players act, for search's policy-based inference (``pimc:weights=policy``)."""
        return torch.log_softmax(self._logits(obs, mask), dim=1).numpy()

    @torch.no_grad()
    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = self._logits(obs, mask)
        if self.greedy:
            return logits.argmax(dim=1).numpy()
        return sample_actions(torch.log_softmax(logits, dim=1), self.generator).numpy()

    def _logits(self, obs: np.ndarray, mask: np.ndarray) -> torch.Tensor:
        logits, _ = self.net(torch.from_numpy(np.ascontiguousarray(obs)), torch.from_numpy(mask))
        broken = (~logits.isfinite().all(dim=1)).sum().item()
        if broken:  # loading tried the network on a real hand, but these views reach weights it did not
            raise ValueError(f"{self.source}: the policy's logits are not finite (inf or NaN) on {broken} of "
                             f"{len(logits)} views: its weights overflow float32; use another checkpoint")
        return logits
