"""A training checkpoint holds what resumes the run exactly and no more: the trajectory storage's slots in
use, not its whole capacity, and each snapshot of the pool once; one of another format is not resumed."""

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import train  # noqa: E402
from briscola_env.actions import NUM_ACTIONS  # noqa: E402
from briscola_env.observation import SPEC  # noqa: E402
from training.checkpoint import TRAINER_FORMAT, pack, unpack  # noqa: E402
from training.trajectories import Trajectories  # noqa: E402

pytestmark = pytest.mark.slow  # training runs to measure checkpoints

TINY = str(ROOT / "configs" / "tiny.yaml")
SLOT_BYTES = SPEC.size // 8 + 128
"""Bound on what a slot in use may cost: its view as bits, plus its mask, scalars and index."""
COUNTS = np.flatnonzero(SPEC.high > 1)  # the view's entries that are counts, not 0/1


def tensor_bytes(obj) -> int:
    if isinstance(obj, torch.Tensor):
        return obj.numel() * obj.element_size()
    if isinstance(obj, dict):
        return sum(map(tensor_bytes, obj.values()))
    if isinstance(obj, (list, tuple)):
        return sum(map(tensor_bytes, obj))
    return 0


def trainer(run: Path) -> dict:
    return torch.load(run / "checkpoint.pt", weights_only=True)["trainer"]


def fill(storage: Trajectories, rng, steps: int) -> None:
    """Random decisions (views with counts up to 120) and ended hands; completed ones are left ready."""
    games = storage.num_games
    for _ in range(steps):
        acting = np.flatnonzero(rng.random(games) < 0.8)
        n = len(acting)
        obs = (rng.random((n, SPEC.size)) < 0.3).astype(np.uint8)
        obs[:, COUNTS] = rng.integers(0, 121, (n, len(COUNTS)))
        storage.add(acting, rng.integers(0, 5, n), obs, rng.random((n, NUM_ACTIONS)) < 0.5,
                    rng.integers(0, NUM_ACTIONS, n), rng.random(n).astype(np.float32),
                    rng.normal(size=n).astype(np.float32), rng.integers(-1, 151, n), rng.integers(-1, 5, n))
        storage.finish(np.flatnonzero(rng.random(games) < 0.1), rng.normal(size=(games, 5)), 1.0, 0.95)


def test_storage_state_holds_exactly_the_slots_in_use_and_restores_them():
    rng = np.random.default_rng(3)
    storage = Trajectories(5000, 8)
    fill(storage, rng, 60)
    storage.take_ready()
    fill(storage, rng, 40)  # slots freed and reused; some completed trajectories wait for an update
    in_use = storage.in_use.copy()
    assert storage.ready.any() and storage.open.any() and 0 < in_use.sum() < storage.capacity / 4
    saved = storage.state_dict()
    assert tensor_bytes(pack(saved)) <= in_use.sum() * SLOT_BYTES
    restored = Trajectories(5000, 8)
    restored.load_state_dict(unpack(pack(saved)))
    assert np.array_equal(restored.in_use, in_use) and (restored.next, restored.clock) == (storage.next, storage.clock)
    for name in storage.FIELDS:
        assert np.array_equal(getattr(restored, name)[in_use], getattr(storage, name)[in_use]), name
    assert np.array_equal(restored.take_ready(), storage.take_ready())  # the next update's decisions, in order


def test_checkpoint_holds_no_unused_storage_rows(tmp_path):
    train.main(["--config", TINY, f"run_dir={tmp_path}", "stop_after=6", "torch_threads=1"])
    storage = trainer(tmp_path / "tiny-1")["storage"]
    flags = unpack({"open": storage["open"], "ready": storage["ready"]})
    in_use = int(flags["open"].sum() + flags["ready"].sum())  # a slot in use is open or ready, never both
    capacity = 16 * (16 + 160)
    assert 0 < in_use < capacity / 4
    assert tensor_bytes(storage) <= in_use * SLOT_BYTES


def test_a_snapshot_taken_at_the_checkpoint_is_saved_once_and_resumes_exactly(tmp_path):
    # A snapshot every update: at every checkpoint the pool's newest snapshot is the network itself.
    pool = ["--config", TINY, "total_decisions=3072", "snapshot_every=1", "pool_size=3", "opponent_share=0.9",
            "heuristic_share=0.2", "checkpoint_every=3", "torch_threads=1"]
    train.main([*pool, f"run_dir={tmp_path / 'split'}", "stop_after=5"])
    run = tmp_path / "split" / "tiny-1"
    saved = trainer(run)
    assert len(saved["pool"]) == 2 and saved["pool_ends_with_model"]  # 3 snapshots, the newest as the model
    train.main(["--resume", str(run)])
    train.main([*pool, f"run_dir={tmp_path / 'whole'}"])
    whole = torch.load(tmp_path / "whole" / "tiny-1" / "checkpoint.pt", weights_only=True)
    split = torch.load(run / "checkpoint.pt", weights_only=True)
    assert all(torch.equal(whole["model"][k], split["model"][k]) for k in whole["model"])
    assert whole["trainer"]["update"] == split["trainer"]["update"] == 12


@pytest.mark.parametrize("found", [None, TRAINER_FORMAT - 1])
def test_resuming_a_checkpoint_of_another_format_is_refused_before_anything_changes(tmp_path, capsys, found):
    train.main(["--config", TINY, f"run_dir={tmp_path}", "stop_after=2"])
    run = tmp_path / "tiny-1"
    payload = torch.load(run / "checkpoint.pt", weights_only=True)
    payload["trainer"]["format"] = found  # None: unmarked
    torch.save(payload, run / "checkpoint.pt")
    before = {path.name: path.read_bytes() for path in run.iterdir() if path.is_file()}
    capsys.readouterr()
    with pytest.raises(SystemExit) as stopped:
        train.main(["--resume", str(run), "total_decisions=4096"])
    assert stopped.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"holds trainer state of format {found}, written by another train.py" in last
    assert f"resumes format {TRAINER_FORMAT} only" in last
    assert {path.name: path.read_bytes() for path in run.iterdir() if path.is_file()} == before
