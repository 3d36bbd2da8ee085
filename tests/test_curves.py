"""Learning curves exported from a run's event files, and the shipped curves of a default run."""

import csv
from pathlib import Path

import pytest

import train
from benchmarks.curves import TAGS, export_curves

ROOT = Path(__file__).resolve().parents[1]


def test_a_run_s_curves_are_exported_to_csv(tmp_path):
    train.main(["--config", str(ROOT / "configs" / "tiny.yaml"), f"run_dir={tmp_path}"])
    out = tmp_path / "curves.csv"
    rows = export_curves(tmp_path / "tiny-1", out)
    with open(out, newline="") as f:
        read = list(csv.DictReader(f))
    assert len(read) == rows > 0 and {row["tag"] for row in read} == set(TAGS)


def test_a_folder_without_event_files_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no TensorBoard event files"):
        export_curves(tmp_path, tmp_path / "curves.csv")


def test_the_shipped_default_run_curves_cover_the_whole_run():
    with open(ROOT / "notebooks" / "data" / "default_run_curves.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    edge = [int(r["decisions"]) for r in rows if r["tag"] == "eval/edge_vs_heuristic"]
    assert {r["tag"] for r in rows} == set(TAGS) and max(edge) >= 2_990_000 and len(edge) >= 10
