"""Agent spec strings, parsed and built: a name, then options as ``key=value`` pairs after a colon,
separated by commas. The names are those of a table of agent classes (:data:`agents.registry.AGENTS`).

- ``random``, ``random:seed=3``; ``heuristic:take_from=5``;
- ``pimc:worlds=32,rollout=heuristic``: search, the rollout any spec but pimc;
- ``hybrid:auction=heuristic,play=ppo:runs/x/checkpoint.pt``: one agent's bids and call, another's
  card play and discards;
- ``ppo:runs/x/checkpoint.pt``: a training checkpoint or an exported network, options after a
  comma: ``ppo:runs/x/checkpoint.pt,greedy=true``;
- ``package.module:Class`` or ``package.module:Class:key=value,...``: any importable
  :class:`~agents.base.Agent` subclass.

Each option is converted to the type the agent's ``__init__`` declares for it (its annotation, else
its default's type): ``true``/``false`` (also ``yes``/``no``, ``1``/``0``, any case) for a bool, an
integer, a finite number, text, or ``none`` for an optional one. An unknown key, or a value not of
its type, is a ValueError naming the option and listing the agent's options.

**Nested specs.** A spec given as an option's value (pimc's ``rollout``) takes its own options in
brackets: ``pimc:worlds=32,rollout=[ppo:runs/x/checkpoint.pt,greedy=true]``. Commas inside brackets
belong to the nested spec, and brackets nest. A nested spec without options needs none
(``rollout=heuristic``, ``rollout=ppo:runs/x/checkpoint.pt``). Brackets are stripped only from the
value of an option that takes an agent spec: ``take_from=[5]`` is no integer. An agent whose
``__init__`` takes ``agents`` (a hybrid) is given the table its spec was built from, to build its
nested specs from the same names."""

from __future__ import annotations

import importlib
import inspect
import math
import types
import typing
from typing import Optional, Union

from briscola_env.rules import BOOL_WORDS, RulesConfig

from .base import Agent

NESTED_SPEC_EXAMPLE = "rollout=[ppo:runs/x/checkpoint.pt,greedy=true]"

_DEPTH = {"[": 1, "]": -1}  # how each character changes the bracket depth


def _to_bool(text: str) -> bool:
    if text.lower() not in BOOL_WORDS:
        raise ValueError(text)
    return BOOL_WORDS[text.lower()]


def _to_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


# The types a spec can write, each with how messages name it and how text becomes one.
_CONVERTERS = {bool: ("true or false", _to_bool), int: ("an integer", int),
               float: ("a finite number", _to_float), str: ("text", str)}


def split_options(text: str) -> list[str]:
    """``text`` split at its commas outside brackets (a bracketed nested spec keeps its commas)."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += _DEPTH.get(char, 0)
        if depth < 0:
            raise ValueError(f"{text!r}: a ']' without its '['")
        if char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    if depth:
        raise ValueError(f"{text!r}: a '[' without its ']'")
    return items + [text[start:]]


def _unbracketed(value: str) -> str:
    """A value written ``[...]`` (one bracket pair around it all) without its brackets."""
    if not (value.startswith("[") and value.endswith("]")):
        return value
    depth = 0
    for char in value[:-1]:
        depth += _DEPTH.get(char, 0)
        if depth == 0:
            return value  # the first bracket closes before the end, as in "[a]x[b]"
    return value[1:-1]


class _Option:
    """One keyword of an agent class's ``__init__``, with the type a spec value converts to."""

    def __init__(self, parameter: inspect.Parameter, hints: dict):
        self.name = parameter.name
        if parameter.name in hints:
            self.declared = hints[parameter.name]
        elif parameter.default is not inspect.Parameter.empty and parameter.default is not None:
            self.declared = type(parameter.default)
        else:
            self.declared = str  # neither annotated nor defaulted: the text as it is
        union = typing.get_origin(self.declared) in (Union, types.UnionType)
        members = typing.get_args(self.declared) if union else (self.declared,)
        self.types = [member for member in members if member in _CONVERTERS]  # those a spec can write, in order
        self.optional = type(None) in members
        self.takes_an_agent = any(isinstance(member, type) and issubclass(member, Agent) for member in members)

    def describe(self) -> str:
        if self.takes_an_agent:
            return "an agent spec, in brackets when it has options"
        names = " or ".join(_CONVERTERS[kind][0] for kind in self.types)
        return names + (", or none" if self.optional else "")

    def convert(self, text: str, owner: str):
        if not self.types:
            declared = self.declared.__name__ if isinstance(self.declared, type) else str(self.declared)
            raise ValueError(f"option {self.name!r} of {owner} takes {declared.replace('typing.', '')}, "
                             "which a spec cannot write")
        if self.optional and text.lower() == "none":
            return None
        for kind in self.types:
            try:
                return _CONVERTERS[kind][1](text)
            except ValueError:
                continue
        bracketed = " (brackets hold a nested agent spec only)" if text.startswith("[") else ""
        raise ValueError(f"option {self.name}={text!r} of {owner}: expected {self.describe()}{bracketed}")


def _options_of(cls: type) -> tuple[dict[str, _Option], bool]:
    """``(cls``'s keyword options by name, whether its ``__init__`` takes any other keyword too``)``."""
    try:
        hints = typing.get_type_hints(cls.__init__)
    except (NameError, TypeError):  # annotations naming what their module cannot resolve: use the defaults
        hints = {}
    parameters = inspect.signature(cls).parameters.values()
    named = {p.name: _Option(p, hints) for p in parameters
             if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)}
    return named, any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def describe_options(cls: type) -> list[str]:
    """The options a spec can give ``cls``, as ``name=default (what it takes)`` (``name (...)`` without a
    default), read from its ``__init__`` as :func:`parse_options` reads them: for help texts."""
    options, _ = _options_of(cls)
    defaults = {p.name: p.default for p in inspect.signature(cls).parameters.values()}
    return [f"{option.name}{_as_written(defaults[option.name])} ({option.describe()})"
            for option in options.values()
            if option.types or option.takes_an_agent]  # not the rules, say: the caller passes them


def _as_written(default) -> str:
    """A default as a spec writes it, after its ``=`` (nothing for a parameter without one)."""
    if default is inspect.Parameter.empty:
        return ""
    if default is None or isinstance(default, bool):
        return f"={str(default).lower()}"
    return f"={default}"


def parse_options(cls: type, items: list[str]) -> dict:
    """The ``key=value`` items of a spec as keyword arguments of ``cls``, each of its declared type."""
    options, extra_keywords = _options_of(cls)
    owner = cls.__name__
    parsed = {}
    for item in filter(None, (item.strip() for item in items)):
        key, sep, text = (part.strip() for part in item.partition("="))
        if not sep or not key.isidentifier():
            raise ValueError(f"agent option {item!r} is not key=value")
        if key in parsed:
            raise ValueError(f"option {key!r} of {owner} is given twice")
        if key in options:
            # Brackets belong to the syntax of a nested spec only; any other value keeps them
            # (and take_from=[5] is then no integer).
            option = options[key]
            parsed[key] = option.convert(_unbracketed(text) if option.takes_an_agent else text, owner)
        elif extra_keywords:
            parsed[key] = text  # taken by **kwargs: no declared type to convert to
        else:
            listed = ", ".join(f"{o.name} ({o.describe()})" for o in options.values() if o.types)
            nested = any(option.takes_an_agent for option in options.values())
            raise ValueError(f"{owner} has no option {key!r}; its options: {listed or 'none'}"
                             + (f" (a nested spec takes its options in brackets: {NESTED_SPEC_EXAMPLE})"
                                if nested else ""))
    return parsed


def _check_required(cls: type, options: dict) -> None:
    """A ValueError naming the options ``cls`` cannot do without (no default) that a spec left out."""
    described, _ = _options_of(cls)
    missing = [name for name, option in described.items() if name not in options
               and inspect.signature(cls).parameters[name].default is inspect.Parameter.empty]
    if missing:
        needed = ", ".join(f"{name}= ({described[name].describe()})" for name in missing)
        raise ValueError(f"{cls.__name__} needs {'options' if len(missing) > 1 else 'option'} {needed}; "
                         f"given: {', '.join(sorted(set(options) - {'seed', 'rules'})) or 'none'}")


def parse_spec(spec: str, agents: dict[str, type[Agent]], seed: Optional[int] = None,
               rules: Optional[RulesConfig] = None) -> tuple[type[Agent], dict]:
    """The agent class a spec string names and the keyword arguments it gives it (what :func:`build_agent`
    builds it from), checked without building it: the name, each option's key and type, the options the
    class cannot do without. What only building finds is not checked: a ``ppo`` checkpoint's file, the values
    an agent's own ``__init__`` refuses, nested specs. A ValueError names the spec."""
    name, _, rest = spec.partition(":")
    if not (name in agents or name == "ppo" or ("." in name and rest)):
        raise ValueError(f"unknown agent spec {spec!r}: use one of {', '.join(agents)} "
                         "(options as name:key=value,...), ppo:<checkpoint path>, or package.module:Class; "
                         f"a nested spec takes its options in brackets: {NESTED_SPEC_EXAMPLE}")
    try:
        if name == "ppo":
            if not rest:
                raise ValueError("a ppo spec needs a checkpoint path: ppo:runs/x/checkpoint.pt")
            from .ppo import PPOAgent  # torch is needed only for trained agents

            path, *items = split_options(rest)
            # The path as an option like the others: it is then given once, and as text.
            cls, options = PPOAgent, parse_options(PPOAgent, [f"path={path}", *items])
        elif name in agents:
            cls, options = agents[name], parse_options(agents[name], split_options(rest))
        else:
            class_name, _, option_text = rest.partition(":")
            try:
                cls = getattr(importlib.import_module(name), class_name)
            except (ImportError, AttributeError) as error:
                raise ValueError(f"cannot import agent class {class_name!r} from {name!r}: {error}") from None
            if not (isinstance(cls, type) and issubclass(cls, Agent)):
                raise ValueError(f"{name}:{class_name} is not a subclass of agents.Agent")
            options = parse_options(cls, split_options(option_text))
        options.setdefault("seed", seed)
        if rules is not None and "rules" in inspect.signature(cls).parameters:
            options.setdefault("rules", rules)
        if "agents" in inspect.signature(cls).parameters:  # it builds nested specs: from the same table
            options.setdefault("agents", agents)
        _check_required(cls, options)
        return cls, options
    except (TypeError, ValueError) as error:
        raise ValueError(f"agent spec {spec!r}: {error}") from None


def build_agent(spec: str, agents: dict[str, type[Agent]], seed: Optional[int] = None,
                rules: Optional[RulesConfig] = None) -> Agent:
    """Build an agent from a spec string (the module docstring) whose name is one of ``agents`` (by
    name), ``ppo`` or ``package.module:Class``; ``seed`` seeds it unless the spec sets ``seed=``,
    agents that take the rules play by ``rules`` (default: the standard ones), and agents that take
    ``agents`` (a hybrid) build their nested specs from the same table."""
    cls, options = parse_spec(spec, agents, seed, rules)
    try:
        return cls(**options)
    except (TypeError, ValueError) as error:  # the agent's own checks included: say which spec
        raise ValueError(f"agent spec {spec!r}: {error}") from None
