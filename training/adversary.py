"""The online adversary: an observer who learns to name the partner from the defenders' seats while the
learner learns, and the partner's concealment reward against it (config ``adversary_views``,
``concealment_coef``).

The adversary is a :class:`agents.belief.BeliefNet` (the model ``briscola belief`` fits offline), fitted
online on a rolling buffer of the learner's own recent games: the views of the defenders (neither the caller
nor the partner) in card play before the called card is played, in hands whose partner is a learner seat,
each with the partner's seat as its target. Hiding is thus measured against an observer who knows this
agent as it is now, not against a frozen model of another.

Concealment reward. At each such defender view the adversary gives ``p``, its probability on the true
partner; per hand, ``s`` is the mean over those views of ``log(max(p, P_FLOOR)) - log(chance)`` (chance: one
over the seats the model chooses among, the viewer's four others at five seats; an observer that only rules out
the caller, whom the view shows, scores log(4/3) a view: the constant offset is the same in every hand and does
not steer the partner), and at the hand's end the partner's payoff becomes
``payoff - concealment_coef * s``: he gains for each view in which the defenders' best observer of him
names him less surely than chance, and pays for each in which it names him more. Only the partner's
trajectory is shaped (the caller wants to be found by his partner, not hidden from him); the hand's
recorded results, the league's statistics and every evaluation use the unshaped payoff.

Order within an update: each rollout step scores the step's defender views with the adversary as it is and
adds them to the buffer (:meth:`OnlineAdversary.observe`); hands that end are paid
(:meth:`OnlineAdversary.shaped_rewards`); at each update, beside the PPO update, the adversary takes
``ADVERSARY_STEPS`` minibatch steps on the buffer (:meth:`OnlineAdversary.fit`). Its state (weights, Adam's
moments, the buffer, the open hands' sums and its sampler) is part of the training checkpoint, so --resume
continues exactly.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.belief import BeliefNet
from briscola_env.engine import Phase
from briscola_env.observation import SPEC
from training.config import ADVERSARY_BATCH
from training.league import LEARNER
from training.trajectories import pack_views, unpack_views, view_entries

ADVERSARY_HIDDEN = (256, 128)
"""The adversary's hidden sizes: those of ``briscola belief``'s models."""
ADVERSARY_STEPS = 8
"""Adam steps the adversary takes after each update, each on a minibatch drawn from its buffer."""
ADVERSARY_LR = 1e-3
"""The adversary's learning rate (that of :func:`agents.belief.train_belief`)."""
ADVERSARY_STREAM = 35
"""Mixed with the run's seed into the adversary's own seed."""
P_FLOOR = 0.01
"""The least probability the concealment reward reads: a view in which the adversary all but rules the partner
out counts as log(0.01), so that no single view outweighs a hand's payoff."""


class OnlineAdversary:
    """The adversary of a run of ``num_envs`` games at tables of ``seats`` (five) and ``tricks`` (eight): its
    network, its buffer of ``capacity`` views and, per game, the running sum over the hand so far. The run's
    ``seed`` seeds its initial weights and its minibatches through a stream of their own, apart from every other
    random source of the run."""

    def __init__(self, num_envs: int, capacity: int, seed: int, seats: int, tricks: int):
        seed = int(np.random.SeedSequence((seed, ADVERSARY_STREAM)).generate_state(1)[0])
        self.capacity, self.seats = capacity, seats
        self.log_chance = float(np.log(1 / (seats - 1)))
        generator_state = torch.get_rng_state()
        torch.manual_seed(seed)  # its weights, without moving the run's own generator
        self.net = BeliefNet(ADVERSARY_HIDDEN)
        torch.set_rng_state(generator_state)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=ADVERSARY_LR)
        self.sampler = torch.Generator().manual_seed(seed)
        self.view_entries = view_entries(SPEC)  # which entries of a view its checkpoint packs as bits
        self.obs = np.zeros((capacity, SPEC.size), dtype=np.uint8)
        self.target = np.zeros(capacity, dtype=np.int64)
        self.next = self.filled = 0
        self.sums = np.zeros((num_envs, 2))  # per game: sum of the clipped log-ratios, number of views
        self.hits = np.zeros((tricks, 2))  # per trick: right guesses, views (since the last log)
        self.scores: list[float] = []  # per paid hand: its mean log-ratio s (since the last log)
        self.loss = float("nan")

    def observe(self, state, obs: np.ndarray, seat_agents: np.ndarray) -> None:
        """Score and keep the views ``obs`` (one per game, of the player to act in ``state``) that are a
        defender's in card play before the reveal, in hands whose partner is a learner seat."""
        games = np.arange(len(obs))
        caller, partner = state.caller.astype(np.int64), state.hidden.partner.astype(np.int64)
        seat = state.current_player.astype(np.int64)
        hidden = SPEC.view(obs, "partner_revealed")[:, 0] == 0
        learner_partner = seat_agents[games, np.maximum(partner, 0)] == LEARNER
        rows = np.flatnonzero((state.phase == Phase.PLAY) & ~state.terminated & hidden & (caller >= 0)
                              & (partner >= 0) & (partner != caller) & (seat != caller) & (seat != partner)
                              & learner_partner)
        if not rows.size:
            return
        target = (partner[rows] - seat[rows]) % self.seats
        with torch.no_grad():
            probabilities = torch.softmax(self.net(torch.from_numpy(obs[rows])), dim=1).numpy()
        p_true = probabilities[np.arange(rows.size), target]
        trick = state.trick_index[rows].astype(np.int64)
        np.add.at(self.hits, (trick, 0), probabilities.argmax(axis=1) == target)
        np.add.at(self.hits, (trick, 1), 1)
        np.add.at(self.sums, (rows, 0), np.log(np.maximum(p_true, P_FLOOR)) - self.log_chance)
        np.add.at(self.sums, (rows, 1), 1)
        at = (self.next + np.arange(rows.size)) % self.capacity
        self.obs[at], self.target[at] = obs[rows], target
        self.next = int((self.next + rows.size) % self.capacity)
        self.filled = min(self.capacity, self.filled + rows.size)

    def shaped_rewards(self, rewards: np.ndarray, ended: np.ndarray, info: dict, coef: float) -> np.ndarray:
        """``rewards`` (games x seats) with the concealment reward (weight ``coef``) on the partner's payoff in
        the hands ``ended`` that the adversary watched; their sums start afresh for the next hands."""
        shaped = rewards.copy()
        views = self.sums[ended, 1]
        paid = views > 0  # observe() only counts hands with a partner apart from the caller
        score = self.sums[ended[paid], 0] / views[paid]
        shaped[ended[paid], info["partner"][ended[paid]].astype(np.int64)] -= coef * score
        self.scores.extend(score.tolist())
        self.sums[ended] = 0
        return shaped

    def fit(self) -> dict:
        """ADVERSARY_STEPS Adam steps on minibatches drawn from the buffer (none until it holds one
        minibatch); returns the last step's loss as a statistic."""
        if self.filled < ADVERSARY_BATCH:
            return {}
        for _ in range(ADVERSARY_STEPS):
            rows = torch.randint(self.filled, (ADVERSARY_BATCH,), generator=self.sampler).numpy()
            loss = nn.functional.cross_entropy(self.net(torch.from_numpy(self.obs[rows])),
                                               torch.from_numpy(self.target[rows]))
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
        self.loss = loss.item()
        return {"adversary/loss": self.loss}

    def log(self, writer, step: int) -> None:
        """adversary/: its accuracy at naming the partner by trick, and concealment/: the mean log-ratio s of
        the hands paid, since the last log."""
        for trick in np.flatnonzero(self.hits[:, 1]):
            writer.add_scalar(f"adversary/accuracy_by_trick/trick_{trick + 1}",
                              self.hits[trick, 0] / self.hits[trick, 1], step)
        if self.scores:
            writer.add_scalar("concealment/adversary_log_ratio", float(np.mean(self.scores)), step)
        self.hits[:], self.scores = 0, []

    def state_dict(self) -> dict:
        """What resumes the adversary exactly; the buffer's views packed (:func:`training.trajectories.pack_views`)."""
        rows = slice(0, self.filled)
        return {"model": self.net.state_dict(), "optimizer": self.optimizer.state_dict(),
                "sampler": self.sampler.get_state(), "views": pack_views(self.obs[rows], *self.view_entries),
                "target": self.target[rows], "next": self.next, "filled": self.filled, "sums": self.sums}

    def load_state_dict(self, saved: dict) -> None:
        self.net.load_state_dict(saved["model"])
        self.optimizer.load_state_dict(saved["optimizer"])
        self.sampler.set_state(saved["sampler"])
        self.filled, self.next = int(saved["filled"]), int(saved["next"])
        rows = slice(0, self.filled)
        self.obs[rows] = unpack_views(saved["views"], *self.view_entries, SPEC.size)
        self.target[rows] = saved["target"]
        self.sums[...] = saved["sums"]
