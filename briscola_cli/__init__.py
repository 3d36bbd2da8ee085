"""The ``briscola`` command (:mod:`briscola_cli.main`): the top of the project, above the evaluation
(evaluate, tournament, session, play, replay, belief, concealment, export) and the training (sweep,
exploit), whose functions its subcommands call."""

from .main import main

__all__ = ["main"]
