"""A training run's learning curves, from its TensorBoard event files to a small CSV.

    python -m benchmarks.curves runs/default-1 notebooks/data/default_run_curves.csv

The CSV has one row per scalar point (``tag,decisions,value``) for the tags that
show whether the run learned (the periodic evaluations, the losses, the game
statistics), so a notebook or a reader can plot a real run's curves without
training for minutes first.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

TAGS = ("eval/edge_vs_random", "eval/edge_vs_heuristic", "losses/value_loss", "losses/entropy",
        "losses/explained_variance", "game/learner_contract_success_rate", "game/learner_auction_win_rate")


def export_curves(run: Path, out: Path) -> int:
    """Write the :data:`TAGS` scalars of the run folder ``run`` to ``out``; returns the rows written."""
    if not any(run.glob("events.out.tfevents.*")):
        raise ValueError(f"{run} holds no TensorBoard event files: give a run folder of train.py")
    events = EventAccumulator(str(run), size_guidance={"scalars": 0})  # 0: keep every point
    events.Reload()
    missing = [tag for tag in TAGS if tag not in events.Tags()["scalars"]]
    if missing:
        raise ValueError(f"{run} has no scalars {missing}; its tags: {sorted(events.Tags()['scalars'])}")
    rows = [(tag, p.step, f"{p.value:.6g}") for tag in TAGS for p in events.Scalars(tag)]
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(("tag", "decisions", "value"))
        writer.writerows(rows)
    return len(rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a run folder of train.py (with its event files)")
    parser.add_argument("out", type=Path, help="the CSV to write")
    args = parser.parse_args(argv)
    try:
        print(f"{export_curves(args.run, args.out)} points written to {args.out}")
    except ValueError as error:
        parser.error(str(error))


if __name__ == "__main__":
    main()
