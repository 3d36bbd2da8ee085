"""Labels and distillation never lose or fake work: an existing file is not replaced, a network that is not
finite is never written, an unfinished run or a stranger's chunk is never read as done, and every fault is
one line naming the file."""

import errno
import json
import shutil

import numpy as np
import pytest

import training.distill
import training.labelling
from briscola_cli.main import main
from training.distill import DistillSettings, distill
from training.labelling import CHUNK_FILE, MANIFEST, LabelPlan, label, load_labels

PLAN = LabelPlan(players=("heuristic", "random"), teacher="heuristic", deals=4, chunk=1, share=0.5, seed=1)
SMALL = DistillSettings(hidden_sizes=(8,), epochs=1, holdout=0.25)


@pytest.fixture
def labels(tmp_path):
    label(PLAN, tmp_path / "labels")
    return tmp_path / "labels"


def cli_error(capsys, argv) -> str:
    with pytest.raises(SystemExit):
        main(argv)
    return capsys.readouterr().err


def rewrite_chunk(path, change) -> None:
    with np.load(path) as chunk:
        arrays = {name: chunk[name] for name in chunk.files}
    change(arrays)
    np.savez_compressed(path, **arrays)


@pytest.mark.parametrize("fault", ["no candidate", "nan value"])
def test_distill_refuses_labels_with_a_nan_row_or_a_row_without_a_candidate(labels, tmp_path, fault):
    def spoil(arrays):
        if fault == "no candidate":
            arrays["candidates"][0] = False
        else:
            arrays["values"][0, arrays["candidates"][0].argmax()] = np.nan
    rewrite_chunk(labels / CHUNK_FILE.format(2), spoil)
    with pytest.raises(ValueError, match=r"labels-00002\.npz: 1 of its .* no candidate or a value that is not"):
        distill(labels, tmp_path / "net.pt", SMALL)
    assert not (tmp_path / "net.pt").exists()


def test_distill_refuses_an_infinite_value_coef_before_any_work(labels, tmp_path, capsys):
    error = cli_error(capsys, ["distill", str(labels), "--out", str(tmp_path / "net.pt"), "--value-coef", "inf"])
    assert "value_coef must be a finite number" in error and not (tmp_path / "net.pt").exists()


def test_distill_that_diverges_writes_no_network(labels, tmp_path):
    with pytest.raises(ValueError, match="distillation diverged .* nothing written"):
        distill(labels, tmp_path / "net.pt", DistillSettings(hidden_sizes=(8,), epochs=3, learning_rate=1e30))
    assert not (tmp_path / "net.pt").exists()


def test_distill_refuses_an_unfinished_labelling_run_naming_the_missing_chunks(labels, tmp_path):
    for index in (1, 3):
        (labels / CHUNK_FILE.format(index)).unlink()
    with pytest.raises(ValueError, match=r"holds 2 of the 4 chunks of its plan \(labels-00001\.npz, labels-00003"):
        distill(labels, tmp_path / "net.pt", SMALL)


def test_a_chunk_of_another_plan_is_neither_counted_as_done_nor_read(labels, tmp_path):
    other = LabelPlan(players=("heuristic", "random"), teacher="heuristic", deals=4, chunk=1, share=0.5, seed=2)
    label(other, tmp_path / "other")
    shutil.copy(tmp_path / "other" / CHUNK_FILE.format(1), labels / CHUNK_FILE.format(1))
    with pytest.raises(ValueError, match=r"labels-00001\.npz is not chunk 1 of this folder's plan"):
        label(PLAN, labels)
    with pytest.raises(ValueError, match=r"labels-00001\.npz is not chunk 1"):
        load_labels(labels)
    shutil.copy(labels / CHUNK_FILE.format(0), labels / CHUNK_FILE.format(1))  # another chunk's file, renamed
    with pytest.raises(ValueError, match="is not chunk 1"):
        load_labels(labels)


def test_a_truncated_chunk_is_one_line_in_label_and_in_distill(labels, tmp_path, capsys):
    path = labels / CHUNK_FILE.format(0)
    path.write_bytes(path.read_bytes()[:100])
    argv = ["label", "--players", "heuristic", "random", "--teacher", "heuristic", "--deals", "4", "--chunk", "1",
            "--share", "0.5", "--seed", "1", "--out", str(labels)]
    assert "labels-00000.npz cannot be read" in cli_error(capsys, argv)
    error = cli_error(capsys, ["distill", str(labels), "--out", str(tmp_path / "net.pt")])
    assert "labels-00000.npz cannot be read" in error and "Traceback" not in error


def test_a_chunk_missing_a_field_is_one_line(labels):
    rewrite_chunk(labels / CHUNK_FILE.format(0), lambda arrays: arrays.pop("masks"))
    with pytest.raises(ValueError, match=r"labels-00000\.npz is not a chunk of labels of this version: it lacks masks"):
        load_labels(labels)


def test_a_labels_json_with_an_unknown_key_is_one_line(labels):
    manifest = labels / MANIFEST
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "colour": "red"}))
    with pytest.raises(ValueError, match="holds keys a labelling plan has not: colour"):
        load_labels(labels)


@pytest.mark.parametrize("where, words", [("file/sub", "cannot write into"), ("/proc/labels", "cannot write into")])
def test_label_into_a_folder_it_cannot_make_is_one_line(tmp_path, capsys, where, words):
    (tmp_path / "file").write_text("not a folder")
    out = where if where.startswith("/") else str(tmp_path / where)
    error = cli_error(capsys, ["label", "--players", "heuristic", "--teacher", "heuristic", "--deals", "2",
                               "--out", out])
    assert words in error and "Traceback" not in error


def test_a_full_disk_is_one_line_in_label_and_in_distill(labels, tmp_path, monkeypatch):
    def full(path, write):
        raise OSError(errno.ENOSPC, "No space left on device")
    (labels / CHUNK_FILE.format(3)).unlink()
    monkeypatch.setattr(training.labelling, "replace_atomically", full)
    with pytest.raises(ValueError, match=r"cannot write .*labels-00003\.npz: No space left on device"):
        label(PLAN, labels)
    monkeypatch.undo()
    label(PLAN, labels)

    def torch_full(*args, **kwargs):
        raise RuntimeError("PytorchStreamWriter failed writing file data/0: file write failed")
    monkeypatch.setattr(training.distill, "save_checkpoint", torch_full)
    with pytest.raises(ValueError, match=r"cannot write .*net\.pt: PytorchStreamWriter failed"):
        distill(labels, tmp_path / "net.pt", SMALL)
