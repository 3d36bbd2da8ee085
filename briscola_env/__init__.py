"""briscola-chiamata: a reinforcement-learning toolkit for Briscola Chiamata.

The rules it implements, with every variant, are specified in ``docs/RULES.md``.

Modules: :mod:`.cards` (card tables and names), :mod:`.actions` (the 151-id
action space), :mod:`.rules` (the rules config and presets), :mod:`.engine`
(the batched NumPy engine), :mod:`.game` (one hand over the engine, as plain
values), :mod:`.observation` (each player's view), :mod:`.batched_env` (N games
at once, for training), :mod:`.pettingzoo_env` (the PettingZoo AEC environment,
also as :func:`env` and :func:`raw_env`, and under the turn-based parallel API as
:func:`parallel_env`) and :mod:`.reference` (a plain one-game
implementation of the rules, the tests' oracle, which no other module uses). One seat
against four agents, as a Gymnasium env, is :class:`agents.SingleSeatEnv`.

On PettingZoo 1.27 and later, importing the package also registers :data:`ENV_ID`,
``briscola/briscola_chiamata_v0``, for ``pettingzoo.make("aec", ENV_ID)`` and
``pettingzoo.make("parallel", ENV_ID)``; earlier versions have no registry. The Gymnasium
env of one seat is registered by :mod:`agents` (``agents.SINGLE_SEAT_ENV_ID``).
"""

import pettingzoo

from .batched_env import BatchedEnv
from .engine import PHASE_NAMES  # the names of the PettingZoo infos' "phase" ints
from .pettingzoo_env import ENV_ID, ENV_NAME, env, parallel_env, raw_env
from .rules import PRESETS, PayoffTable, RulesConfig, preset

__version__ = "0.1.0"
__all__ = ["RulesConfig", "PayoffTable", "PRESETS", "preset", "BatchedEnv", "env", "raw_env", "parallel_env",
           "ENV_ID", "ENV_NAME", "PHASE_NAMES", "__version__"]


def _register() -> None:
    """So that ``pettingzoo.make("aec" or "parallel", ENV_ID)`` finds the env. PettingZoo's registry first
    appears in 1.27; on 1.25/1.26 (which pyproject allows) there is nothing to register with, and env(),
    raw_env() and parallel_env() are the way in, so registration is skipped there rather than making the
    import fail. An id already registered (a reloaded module) is left as it is."""
    if not hasattr(pettingzoo, "aec_registry"):
        return
    from pettingzoo.env_registry.exceptions import PettingZooRegistryError

    try:
        pettingzoo.spec("aec", ENV_ID)
    except PettingZooRegistryError:  # not registered yet
        pettingzoo.register("aec", ENV_ID, entry_point="briscola_env.pettingzoo_env:env")
        pettingzoo.register("parallel", ENV_ID, entry_point="briscola_env.pettingzoo_env:parallel_env")


_register()
