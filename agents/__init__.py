"""Agents that play Briscola Chiamata on a batch of games: random, heuristic,
PIMC search (:mod:`.pimc`), trained PPO networks (:mod:`.ppo`) and hybrids of two
of them, one for the auction and one for the play (:mod:`.hybrid`); and the
partner-belief model (:mod:`.belief`), which reads the same views.

Every agent implements :class:`Agent`: ``act(obs, mask)`` takes the views of
the players to act in a batch of games (:data:`briscola_env.observation.SPEC`
rows) and their legal-action masks, and returns one action per game. The
same agent plays in the batched evaluation and, wrapped in
:class:`AECPolicy`, in the PettingZoo environment. :func:`make_agent` builds
one from a spec string, as the ``briscola`` command line does.

:class:`SingleSeatEnv` (:mod:`.single_seat`) is one seat against four agents as a
Gymnasium env, and :class:`SingleSeatVectorEnv` N such hands over the batched engine;
importing this package registers both with Gymnasium as :data:`SINGLE_SEAT_ENV_ID`
(for ``gymnasium.make`` and ``gymnasium.make_vec``), and :mod:`.sb3` adapts the vector env to
Stable-Baselines3. They live here, above the environment package, because agents (from spec
strings) play the other seats.
"""

from .adapter import AECPolicy
from .base import Agent
from .heuristic import HeuristicAgent
from .hybrid import HybridAgent
from .pimc import PIMCAgent
from .random_agent import RandomAgent
from .registry import AGENTS, make_agent
from .single_seat import SINGLE_SEAT_ENV_ID, SingleSeatEnv, SingleSeatVectorEnv

__all__ = ["Agent", "RandomAgent", "HeuristicAgent", "HybridAgent", "PIMCAgent", "PPOAgent", "AECPolicy", "AGENTS",
           "make_agent", "SingleSeatEnv", "SingleSeatVectorEnv", "SINGLE_SEAT_ENV_ID"]


def __getattr__(name):  # PPOAgent needs torch: imported only when asked for
    if name == "PPOAgent":
        from .ppo import PPOAgent

        return PPOAgent
    raise AttributeError(name)
