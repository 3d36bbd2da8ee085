"""A local web table for Briscola Chiamata: play against agents, watch them, replay recorded games.

``briscola serve`` starts it (:mod:`briscola_cli.serve`); the page and its assets (``static/``,
served from the package: no network needed) talk to the JSON API of :mod:`.server`. :mod:`.tables`
drives the games, :mod:`.view` turns a hand into what the page draws, :mod:`.replay` reads records,
:mod:`.sessions` keeps each browser's games apart, and :mod:`.pool` gives their seats agents whose
networks are loaded once per server.

The package sits above ``briscola_env``, ``agents`` and ``evaluation``: it uses them, and none of
them imports it.
"""

from .server import WebTableServer
from .sessions import Settings

__all__ = ["WebTableServer", "Settings"]
