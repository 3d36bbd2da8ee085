"""The belief head's training targets (:func:`belief_targets`) and what the trainer measures with
the head: its accuracy by trick and the partner's concealment reward (:class:`BeliefTracker`)."""

from __future__ import annotations

import numpy as np

from briscola_env.cards import NUM_SEATS, NUM_TRICKS
from briscola_env.engine import Phase
from briscola_env.observation import observation_spec


def belief_targets(state, out, rows: np.ndarray) -> np.ndarray:
    """The belief head's target for the decisions ``rows``: the partner's seat relative to the
    player to act (his own if he is the partner, or the solo caller), on card-play decisions
    before the called card is played; -1 elsewhere. From the privileged state: training only."""
    partner = state.hidden.partner[rows].astype(np.int64)
    hidden = observation_spec(state.rules).view(out.obs[rows], "partner_revealed")[:, 0] == 0
    asked = (state.phase[rows] == Phase.PLAY) & (partner >= 0) & hidden
    return np.where(asked, (partner - out.seat[rows]) % state.tables.shape.seats, -1)


class BeliefTracker:
    """The belief head's accuracy by trick, for TensorBoard, and the concealment reward: per
    game, the running sum over the learner's caller and defender views before the reveal of
    (chance - the head's probability on the true partner). The partner's own views are left
    out: he knows. ``seats`` and ``tricks``: those of the table played (default: five and eight)."""

    def __init__(self, num_envs: int, seats: int = NUM_SEATS, tricks: int = NUM_TRICKS):
        self.chance = 1 / (seats - 1)  # the partner is one of the others: 0.25 at five seats
        self.sums = np.zeros((num_envs, 2))  # per game: sum of (chance - p_true), number of views
        self.hits = np.zeros((tricks, 2))  # per trick: right guesses, views (since the last log)
        self.scores = []  # per finished hand with a partner: its mean (chance - p_true)

    def observe(self, state, rows: np.ndarray, partner: np.ndarray, probabilities: np.ndarray) -> None:
        outsider = np.flatnonzero((partner >= 0) & (state.current_player[rows] != state.hidden.partner[rows]))
        target = partner[outsider]
        p_true = probabilities[outsider, target]
        np.add.at(self.hits, (state.trick_index[rows[outsider]].astype(np.int64), 0),
                  probabilities[outsider].argmax(axis=1) == target)
        np.add.at(self.hits, (state.trick_index[rows[outsider]].astype(np.int64), 1), 1)
        np.add.at(self.sums, (rows[outsider], 0), self.chance - p_true)
        np.add.at(self.sums, (rows[outsider], 1), 1)

    def finish_hands(self, rewards: np.ndarray, ended: np.ndarray, info: dict, coef: float) -> None:
        """Add the concealment reward to the partner's payoff in the hands that ended (if ``coef``)."""
        caller, partner = info["caller"][ended], info["partner"][ended].astype(np.int64)
        total, views = self.sums[ended, 0], self.sums[ended, 1]
        paid = (caller >= 0) & (partner != caller) & (views > 0)
        score = total[paid] / views[paid]
        if coef:
            rewards[ended[paid], partner[paid]] += coef * score
        self.scores.extend(score.tolist())
        self.sums[ended] = 0

    def log(self, writer, step: int) -> None:
        for trick in np.flatnonzero(self.hits[:, 1]):
            writer.add_scalar(f"belief/accuracy_by_trick/trick_{trick + 1}",
                              self.hits[trick, 0] / self.hits[trick, 1], step)
        if self.scores:  # how well the partners hid from the head (the reward, before its coefficient)
            writer.add_scalar("concealment/hiding_score", float(np.mean(self.scores)), step)
        self.hits[:], self.scores = 0, []

    def take_statistics(self) -> dict:
        """What :meth:`log` would log (the accuracy counts and the concealment scores since the last log),
        handed over and cleared: a rollout worker's, which the learner's tracker logs (:meth:`add_statistics`)."""
        taken = {"hits": self.hits.copy(), "scores": self.scores}
        self.hits[:], self.scores = 0, []
        return taken

    def add_statistics(self, taken: dict) -> None:
        """Count another tracker's :meth:`take_statistics` in the next :meth:`log`."""
        self.hits += taken["hits"]
        self.scores.extend(taken["scores"])

    def state_dict(self) -> dict:
        return {"sums": self.sums}

    def load_state_dict(self, saved: dict) -> None:
        self.sums[...] = saved["sums"]
