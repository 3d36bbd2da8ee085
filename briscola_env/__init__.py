"""briscola-chiamata: a reinforcement-learning toolkit for Briscola Chiamata.

Modules: :mod:`.cards` (card tables and names), :mod:`.actions` (the 151-id
action space), :mod:`.rules` (the rules config and presets), :mod:`.engine`
(the batched NumPy engine) and :mod:`.reference` (a slow one-game reference
used as the tests' oracle).
"""

from .rules import PRESETS, PayoffTable, RulesConfig, preset

__version__ = "0.1.0"
__all__ = ["RulesConfig", "PayoffTable", "PRESETS", "preset", "__version__"]
