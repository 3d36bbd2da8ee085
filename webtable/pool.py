"""The agents of one server's tables: each spec built once, its networks shared by every table.

A table seats agents from the specs of the command line; building each from its spec would load a
network checkpoint per seat, per table, per browser session (a ``ppo:`` agent holds megabytes of
weights, and loading one takes a fraction of a second to seconds). :class:`AgentPool` builds each
spec once (its *prototype*, which never acts) and gives every seat a copy of it: a deep copy that
shares the prototype's torch modules and tensors, which acting only reads, and owns everything else,
its generators above all. The copy is then seeded as :func:`agents.make_agent` seeds a new agent
(:meth:`agents.Agent.reset`, which by the agents' contract reseeds it and forgets anything it
remembered), unless the spec sets its own ``seed=``, which the copy keeps as built. So a seat's agent
acts exactly as ``make_agent(spec, seed=seed, rules=rules)`` would, with the weights in memory once.

An agent class whose objects cannot be deep-copied (one holding a lock or an open file, say) is built
from its spec for each seat instead: correct, only not shared.
"""

from __future__ import annotations

import copy
import sys
import threading
import types
from typing import Optional

from agents import AGENTS, Agent, make_agent
from agents.spec import split_options
from briscola_env.rules import RulesConfig


def seed_in_spec(spec: str) -> bool:
    """Whether the spec sets its agent's seed itself (``random:seed=3``, ``ppo:x.pt,seed=3``): then the
    seed :func:`agents.make_agent` is given does not apply. ``spec`` is one that builds."""
    name, _, rest = spec.partition(":")
    if name == "ppo":
        items = split_options(rest)[1:]  # the path first
    elif name in AGENTS:
        items = split_options(rest)
    else:  # package.module:Class[:options]
        items = split_options(rest.partition(":")[2])
    return any(item.partition("=")[0].strip() == "seed" for item in items)


def shared_parts(agent: Agent) -> dict[int, object]:
    """``{id: object}`` of the torch modules and tensors reachable from ``agent`` (through attributes,
    lists, tuples, sets and dict values, not into classes or modules): what its copies share. Empty
    when torch is not loaded, as then no agent holds any."""
    torch = sys.modules.get("torch")
    if torch is None:
        return {}
    shared, seen, pending = {}, set(), [agent]
    while pending:
        item = pending.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, (torch.nn.Module, torch.Tensor)):
            shared[id(item)] = item
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            pending.extend(item)
        elif hasattr(item, "__dict__") and not isinstance(item, (type, types.ModuleType)):
            pending.extend(vars(item).values())
    return shared


class AgentPool:
    """The agents of the tables of one server, all under ``rules``: :meth:`agent` gives a seat its own
    agent, each spec's networks loaded once (at the first seat of that spec) and shared."""

    def __init__(self, rules: RulesConfig):
        self.rules = rules
        self._prototypes: dict[str, tuple[Agent, dict[int, object], bool]] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """How many specs have been built."""
        return len(self._prototypes)

    def prototype(self, spec: str) -> Agent:
        """The agent built from ``spec`` once for this pool (a ValueError if the spec does not build).
        It never acts: seats get copies (:meth:`agent`)."""
        return self._entry(spec)[0]

    def _entry(self, spec: str) -> tuple[Agent, dict[int, object], bool]:
        with self._lock:  # two sessions starting at once build a spec once
            if spec not in self._prototypes:
                built = make_agent(spec, seed=None, rules=self.rules)
                self._prototypes[spec] = (built, shared_parts(built), seed_in_spec(spec))
            return self._prototypes[spec]

    def agent(self, spec: str, seed: Optional[int]) -> Agent:
        """A seat's own agent for ``spec``, acting as ``make_agent(spec, seed=seed, rules)`` would (``seed``
        None: fresh entropy), its networks those of the pool's prototype."""
        prototype, shared, seeded_by_spec = self._entry(spec)
        try:
            agent = copy.deepcopy(prototype, dict(shared))
        except Exception:  # noqa: BLE001 - an agent that does not copy is built for the seat, unshared
            return make_agent(spec, seed=seed, rules=self.rules)
        if not seeded_by_spec:
            agent.reset(seed)
        return agent
