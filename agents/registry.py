"""The agents a spec string may name (the syntax: :mod:`agents.spec`): random, heuristic, hybrid and
pimc, besides ``ppo:<checkpoint>`` and any ``package.module:Class``."""

from __future__ import annotations

from typing import Optional

from briscola_env.rules import RulesConfig

from .base import Agent
from .pimc import ROLLOUT_AGENTS, PIMCAgent
from .spec import build_agent, parse_spec

AGENTS: dict[str, type[Agent]] = {**ROLLOUT_AGENTS, "pimc": PIMCAgent}


def make_agent(spec: str, seed: Optional[int] = None, rules: Optional[RulesConfig] = None) -> Agent:
    """Build an agent from a spec string (:mod:`agents.spec`) naming one of :data:`AGENTS`, ``ppo`` or
    ``package.module:Class``; ``seed`` seeds it unless the spec sets ``seed=``, and agents that take the
    rules (heuristic, hybrid, pimc) play by ``rules`` (default: the standard ones)."""
    return build_agent(spec, AGENTS, seed, rules)


def check_spec(spec: str) -> None:
    """A ValueError naming ``spec`` if it cannot name an agent of :data:`AGENTS`, ``ppo`` or ``package.module:Class``
    with options of their types (:func:`agents.spec.parse_spec`): checked by parsing, without building it."""
    parse_spec(spec, AGENTS)
