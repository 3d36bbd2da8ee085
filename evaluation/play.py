"""Playing a fixed set of games with a given agent at each seat: :func:`agents.play.play_games`, which
lives with the agents because the belief model's data are played with it too."""

from agents.play import play_games

__all__ = ["play_games"]
