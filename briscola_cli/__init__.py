"""The ``briscola`` command (:mod:`briscola_cli.main`): the top of the project, above the evaluation
(evaluate, tournament, session, play, replay, belief, concealment, export), the training (sweep,
exploit, label, distill) and the web table (serve), whose functions its subcommands call."""

from .main import main

__all__ = ["main"]
