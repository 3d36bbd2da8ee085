"""Agents by spec string: ``random``, ``random:seed=3``, ``heuristic:take_from=5``,
``pimc:worlds=32,rollout=heuristic`` (search; the rollout is any spec but pimc),
``ppo:runs/x/checkpoint.pt`` (a trained checkpoint, options after a comma:
``ppo:path,greedy=True``), or ``package.module:Class`` (any importable
:class:`~agents.base.Agent` subclass), with options as ``key=value`` pairs
after a colon, separated by commas."""

from __future__ import annotations

import ast
import importlib
import inspect
from typing import Optional

from briscola_env.rules import RulesConfig

from .base import Agent
from .heuristic import HeuristicAgent
from .pimc import PIMCAgent
from .random_agent import RandomAgent

AGENTS: dict[str, type[Agent]] = {"random": RandomAgent, "heuristic": HeuristicAgent, "pimc": PIMCAgent}


def _options(text: str) -> dict:
    options = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ValueError(f"agent option {item!r} is not key=value")
        try:
            options[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            options[key.strip()] = value.strip()  # a bare word is a string
    return options


def make_agent(spec: str, seed: Optional[int] = None, rules: Optional[RulesConfig] = None) -> Agent:
    """Build an agent from a spec string; ``seed`` seeds it unless the spec sets ``seed=``, and
    agents that take the rules (heuristic, pimc) play by ``rules`` (default: the standard ones)."""
    name, _, rest = spec.partition(":")
    if name == "ppo":
        if not rest:
            raise ValueError("a ppo spec needs a checkpoint path: ppo:runs/x/checkpoint.pt")
        from .ppo import PPOAgent  # torch is needed only for trained agents

        path, _, option_text = rest.partition(",")
        cls, options = PPOAgent, {"path": path, **_options(option_text)}
    elif name in AGENTS:
        cls, options = AGENTS[name], _options(rest)
    elif "." in name and rest:
        class_name, _, option_text = rest.partition(":")
        try:
            cls = getattr(importlib.import_module(name), class_name)
        except (ImportError, AttributeError) as error:
            raise ValueError(f"cannot import agent class {class_name!r} from {name!r}: {error}") from None
        if not (isinstance(cls, type) and issubclass(cls, Agent)):
            raise ValueError(f"{name}:{class_name} is not a subclass of agents.Agent")
        options = _options(option_text)
    else:
        raise ValueError(f"unknown agent spec {spec!r}: use one of {', '.join(AGENTS)} "
                         "(options as name:key=value,...), ppo:<checkpoint path>, or package.module:Class")
    options.setdefault("seed", seed)
    if rules is not None and "rules" in inspect.signature(cls).parameters:
        options.setdefault("rules", rules)
    try:
        return cls(**options)
    except TypeError as error:
        raise ValueError(f"agent spec {spec!r}: {error}") from None
