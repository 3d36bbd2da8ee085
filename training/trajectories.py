"""The learner's decisions, kept until their hand ends: then each seat's trajectory in it gets its
exact GAE and is ready for a PPO update (:class:`Trajectories`)."""

from __future__ import annotations

from typing import Optional

import numpy as np

from briscola_env.actions import NUM_ACTIONS
from briscola_env.cards import NUM_CARDS, NUM_SEATS
from briscola_env.engine import MAX_AUCTION_LENGTH
from briscola_env.observation import SPEC, ObservationSpec

LONGEST_HAND = MAX_AUCTION_LENGTH + 1 + NUM_CARDS
"""Most decisions a hand can take, one per environment step: its longest auction, the call, 40 cards
(under every rules: with a monte, 5 discards and 35 cards; at four seats, a shorter auction)."""
OPEN_HAND_STEPS = 160
"""Per game, the storage slots kept beyond one rollout's. :class:`Trajectories` is a ring filled by
at most num_games decisions a step, so with num_games * (num_steps + OPEN_HAND_STEPS) slots it comes
back to a slot at least num_steps + OPEN_HAND_STEPS steps after writing it; a slot is freed by the
update after its hand ends, at most LONGEST_HAND - 1 + num_steps steps after it was written. The
number is part of the run: the slots' order is the order of an update's decisions, hence of its
minibatches, so another value would train differently."""
assert OPEN_HAND_STEPS >= LONGEST_HAND, "the trajectory ring could wrap onto a hand still in progress"


def storage_capacity(num_games: int, num_steps: int) -> int:
    """The slots a training run's storage needs: see :data:`OPEN_HAND_STEPS`."""
    return num_games * (num_steps + OPEN_HAND_STEPS)


def view_entries(spec: ObservationSpec = SPEC) -> tuple[np.ndarray, np.ndarray]:
    """``(bits, counts)``: the entries of ``spec``'s views that are flags and one-hot entries (0 or 1,
    saved as bits) and those that are raw counts (points, tricks: saved as bytes)."""
    return np.flatnonzero(spec.high == 1), np.flatnonzero(spec.high > 1)


VIEW_BITS, VIEW_COUNTS = view_entries()  # the standard view's


def pack_views(obs: np.ndarray, bits: np.ndarray, counts: np.ndarray) -> dict:
    """Views as a checkpoint keeps them: the entries ``bits`` (:func:`view_entries`) packed eight to a byte,
    the entries ``counts`` as they are."""
    if obs[:, bits].max(initial=0) > 1:
        raise RuntimeError("an observation entry that the spec's high says is 0 or 1 holds more: "
                           "it cannot be saved as a bit")
    return {"bits": np.packbits(obs[:, bits], axis=1), "counts": obs[:, counts]}


def unpack_views(saved: dict, bits: np.ndarray, counts: np.ndarray, size: int) -> np.ndarray:
    """The views :func:`pack_views` packed, each ``size`` entries long."""
    obs = np.empty((len(saved["counts"]), size), dtype=np.uint8)
    obs[:, bits] = np.unpackbits(saved["bits"], axis=1, count=len(bits))
    obs[:, counts] = saved["counts"]
    return obs


class Trajectories:
    """Learner decisions, kept until their hand ends; then their advantages are computed
    and they are ready for an update. A ring of ``capacity`` slots; every step's decisions
    and every step's ended hands are handled at once, without a loop over games. ``spec``: the
    views' layout (that of the rules played; default: the standard one). ``privileged``: the
    privileged views' layout, when a privileged critic reads them (each decision's is kept too)."""

    FIELDS = ("obs", "mask", "action", "logprob", "value", "advantage", "ret", "demo", "partner",
              "game", "seat", "time", "in_use", "open", "ready")

    def __init__(self, capacity: int, num_games: int, spec: ObservationSpec = SPEC,
                 privileged: Optional[ObservationSpec] = None):
        self.capacity, self.num_games, self.spec = capacity, num_games, spec
        self.view_bits, self.view_counts = view_entries(spec)
        self.fields = self.FIELDS + (("privileged",) if privileged is not None else ())
        self.privileged = None if privileged is None else np.zeros((capacity, privileged.size), dtype=np.uint8)
        self.obs = np.zeros((capacity, spec.size), dtype=np.uint8)
        self.mask = np.zeros((capacity, NUM_ACTIONS), dtype=bool)
        self.action = np.zeros(capacity, dtype=np.int64)
        self.logprob = np.zeros(capacity, dtype=np.float32)
        self.value = np.zeros(capacity, dtype=np.float32)
        self.advantage = np.zeros(capacity, dtype=np.float32)
        self.ret = np.zeros(capacity, dtype=np.float32)
        self.demo = np.full(capacity, -1, dtype=np.int64)  # the heuristic's action in a demo phase, else -1
        self.partner = np.full(capacity, -1, dtype=np.int64)  # belief target: partner's relative seat, else -1
        self.game = np.zeros(capacity, dtype=np.int64)
        self.seat = np.zeros(capacity, dtype=np.int64)
        self.time = np.zeros(capacity, dtype=np.int64)  # when the decision was made (orders a trajectory)
        self.in_use = np.zeros(capacity, dtype=bool)
        self.open = np.zeros(capacity, dtype=bool)  # its hand has not ended yet
        self.ready = np.zeros(capacity, dtype=bool)  # completed, waiting for the next update
        self.next = self.clock = 0

    def add(self, games, seats, obs, mask, action, logprob, value, demo, partner, privileged=None) -> None:
        at = (self.next + np.arange(len(games))) % self.capacity
        if self.in_use[at].any():
            raise RuntimeError("trajectory storage full: raise its capacity")
        self.next = int((self.next + len(games)) % self.capacity)
        self.in_use[at] = self.open[at] = True
        self.obs[at], self.mask[at], self.action[at] = obs, mask, action
        self.logprob[at], self.value[at], self.demo[at], self.partner[at] = logprob, value, demo, partner
        self.game[at], self.seat[at], self.time[at] = games, seats, self.clock
        if self.privileged is not None:
            self.privileged[at] = privileged
        self.clock += 1

    def finish(self, games: np.ndarray, rewards: np.ndarray, gamma: float, lam: float) -> None:
        """The hands in ``games`` ended with ``rewards`` (num_games, seats): each learner seat's
        trajectory in them gets its GAE, with the payoff on its last decision."""
        ended = np.zeros(self.num_games, dtype=bool)
        ended[games] = True
        ids = np.flatnonzero(self.open & ended[self.game])
        if not len(ids):
            return
        ids = ids[np.lexsort((self.time[ids], self.seat[ids], self.game[ids]))]  # trajectory by trajectory
        trajectory = self.game[ids] * NUM_SEATS + self.seat[ids]  # one key per (game, seat): seats <= 5
        last = np.append(trajectory[1:] != trajectory[:-1], True)  # each trajectory's last decision
        values = self.value[ids]
        following = np.where(last, 0.0, np.append(values[1:], 0.0))  # no value after the last decision
        deltas = gamma * following - values + np.where(last, rewards[self.game[ids], self.seat[ids]], 0.0)
        # GAE backwards from each trajectory's end, all trajectories at once.
        ends = np.flatnonzero(last)
        to_end = ends[np.searchsorted(ends, np.arange(len(ids)))] - np.arange(len(ids))
        advantage = np.zeros(len(ids), dtype=np.float64)
        for distance in range(int(to_end.max()) + 1):
            rows = np.flatnonzero(to_end == distance)
            advantage[rows] = deltas[rows] + (gamma * lam * advantage[rows + 1] if distance else 0.0)
        self.advantage[ids] = advantage
        self.ret[ids] = advantage + values
        self.open[ids], self.ready[ids] = False, True

    def take_ready(self) -> np.ndarray:
        ids = np.flatnonzero(self.ready)
        self.ready[ids] = self.in_use[ids] = False
        return ids

    def state_dict(self) -> dict:
        """What resumes the storage exactly: the slots in use (``rows``), field by field, and the ring's
        position. A free slot is rewritten by :meth:`add` (and :meth:`finish`, for its advantage and
        return) before anything reads it, so it is left out: at an update boundary only the open
        trajectories of hands in progress are in use (an eighth to a fifth of the capacity in the
        default config). The views' 0/1 entries and the masks are packed as bits."""
        rows = np.flatnonzero(self.in_use)
        saved = {name: getattr(self, name)[rows] for name in self.fields if name != "in_use"}
        saved["obs"] = pack_views(saved["obs"], self.view_bits, self.view_counts)
        saved["mask"] = np.packbits(saved["mask"], axis=1)
        if self.privileged is not None:  # every entry 0 or 1
            saved["privileged"] = np.packbits(saved["privileged"], axis=1)
        return saved | {"rows": rows, "next": self.next, "clock": self.clock}

    def load_state_dict(self, saved: dict) -> None:
        """Restore :meth:`state_dict`'s slots in use; every other slot is free."""
        expected = [name for name in self.fields if name != "in_use"] + ["rows", "next", "clock"]
        missing = [name for name in expected if name not in saved]
        if missing:
            raise ValueError(f"the checkpoint's trajectory storage lacks {missing}: it was written by an "
                             "older train.py, whose runs cannot be resumed by this one")
        rows = saved["rows"]
        obs = unpack_views(saved["obs"], self.view_bits, self.view_counts, self.spec.size)
        self.in_use[:] = self.open[:] = self.ready[:] = False
        self.in_use[rows] = True
        self.obs[rows] = obs
        self.mask[rows] = np.unpackbits(saved["mask"], axis=1, count=NUM_ACTIONS)
        if self.privileged is not None:
            self.privileged[rows] = np.unpackbits(saved["privileged"], axis=1, count=self.privileged.shape[1])
        for name in self.fields:
            if name not in ("obs", "mask", "in_use", "privileged"):
                getattr(self, name)[rows] = saved[name]
        self.next, self.clock = saved["next"], saved["clock"]
