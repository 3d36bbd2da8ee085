"""The ``briscola`` command (:mod:`briscola_cli.main`, a dispatcher) and ``python train.py``
(:mod:`briscola_cli.train`): the top of the project, above the evaluation (evaluate, tournament,
field, session, play, replay, concealment), the training (train, sweep, exploit, belief, label,
distill, export) and the web table (serve). Each subcommand is a module here holding its parser and
a ``run`` function that calls those packages; :mod:`.options` holds what they share."""

from .main import main

__all__ = ["main"]
