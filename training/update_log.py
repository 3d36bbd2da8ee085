"""What a training run writes to TensorBoard after each update (charts/, losses/, game/, belief/, pool/):
the update's statistics and how the learner's hands went, from the facts :func:`training.trainer.rollout`
keeps of each hand that ended (:data:`GAME_FACTS`)."""

from __future__ import annotations

import numpy as np

from briscola_env.actions import MIN_POINTS, POINT_BID_OFFSET
from briscola_env.engine import WITHOUT_SOLO, Role, seat_roles

GAME_FACTS = ("caller", "partner", "contract", "contract_made", "called_trick", "captured_points")


def log_update(writer, trainer, stats: dict, finished: list[dict], sps: int) -> None:
    """charts/, losses/, game/, belief/, adversary/ and pool/: the update's scalars, at the decisions made so far.
    ``trainer``: a :class:`training.trainer.Trainer`, or the learner of rollout workers, which has the same
    attributes."""
    step = trainer.decisions
    writer.add_scalar("charts/SPS", sps, step)
    writer.add_scalar("charts/learning_rate", trainer.optimizer.param_groups[0]["lr"], step)
    for name, value in stats.items():
        writer.add_scalar(name if "/" in name else f"losses/{name}", value, step)
    log_games(writer, finished, step)
    trainer.belief.log(writer, step)
    if trainer.adversary is not None:
        trainer.adversary.log(writer, step)
    trainer.table.log(writer, step)


def log_games(writer, finished: list[dict], step: int) -> None:
    """game/: how the learner's auctions and hands go, over the hands that ended in this rollout."""
    if not finished:
        return
    facts = {key: np.concatenate([f[key] for f in finished]) for key in GAME_FACTS + ("learner",)}
    caller, partner, learner = facts["caller"], facts["partner"], facts["learner"]
    if not len(caller):
        return
    played = caller >= 0
    writer.add_scalar("game/void_rate", float((~played).mean()), step)
    rows = np.arange(len(caller))
    learner_called = played & learner[rows, np.maximum(caller, 0)]
    # Per learner seat: the share of its hands in which it won the auction (0.2 at a table of five equals).
    writer.add_scalar("game/learner_auction_win_rate", float(learner_called.sum() / learner.sum()), step)
    if learner_called.any():
        contract = facts["contract"][learner_called]
        point_bid = contract >= POINT_BID_OFFSET
        target = np.where(point_bid, contract - POINT_BID_OFFSET + MIN_POINTS, MIN_POINTS)
        writer.add_scalar("game/learner_mean_contract_points", float(target.mean()), step)
        writer.add_scalar("game/learner_points_bid_rate", float(point_bid.mean()), step)
        writer.add_scalar("game/learner_contract_success_rate",
                          float(facts["contract_made"][learner_called].mean()), step)
        writer.add_scalar("game/learner_solo_rate", float((partner == caller)[learner_called].mean()), step)
    shown = facts["called_trick"][played & (partner != caller)]
    if shown.size:
        writer.add_scalar("game/called_card_trick", float(shown.mean() + 1), step)  # 1..8
    # Captured points of the learner's seats, by role (a solo caller, his own partner, counts as caller).
    roles = np.full(learner.shape, -1)  # -1: no role in a void hand
    roles[played] = WITHOUT_SOLO[seat_roles(caller[played], partner[played], learner.shape[1])]
    for name, role in (("caller", Role.CALLER), ("partner", Role.PARTNER), ("defender", Role.DEFENDER)):
        mine = learner & (roles == role)
        if mine.any():
            writer.add_scalar(f"game/learner_points_as_{name}", float(facts["captured_points"][mine].mean()), step)
