"""briscola-chiamata: a reinforcement-learning toolkit for Briscola Chiamata.

The rules it implements, with every variant, are specified in ``docs/RULES.md``.

Modules: :mod:`.cards` (card tables and names), :mod:`.actions` (the 151-id
action space), :mod:`.rules` (the rules config and presets), :mod:`.engine`
(the batched NumPy engine), :mod:`.game` (one hand over the engine, as plain
values), :mod:`.observation` (each player's view), :mod:`.batched_env` (N games
at once, for training), :mod:`.pettingzoo_env` (the PettingZoo AEC environment,
also as :func:`env` and :func:`raw_env`) and :mod:`.reference` (a plain one-game
implementation of the rules, the tests' oracle, which no other module uses). One seat
against four agents, as a Gymnasium env, is :class:`agents.SingleSeatEnv`.

On PettingZoo 1.27 and later, importing the package also registers :data:`ENV_ID`
for ``pettingzoo.make("aec", ENV_ID)``; earlier versions have no registry.
"""

import pettingzoo

from .batched_env import BatchedEnv
from .engine import PHASE_NAMES  # the names of the PettingZoo infos' "phase" ints
from .pettingzoo_env import ENV_ID, env, raw_env
from .rules import PRESETS, PayoffTable, RulesConfig, preset

__version__ = "0.1.0"
__all__ = ["RulesConfig", "PayoffTable", "PRESETS", "preset", "BatchedEnv", "env", "raw_env", "ENV_ID",
           "PHASE_NAMES", "__version__"]

# So that pettingzoo.make("aec", ENV_ID) finds the env. PettingZoo's registry first appears in 1.27;
# on 1.25/1.26 (which pyproject allows) there is nothing to register with, and env()/raw_env() are
# the way in, so registration is skipped there rather than making the import fail.
if hasattr(pettingzoo, "aec_registry") and ENV_ID not in pettingzoo.aec_registry:
    pettingzoo.register("aec", ENV_ID, entry_point="briscola_env.pettingzoo_env:env")
