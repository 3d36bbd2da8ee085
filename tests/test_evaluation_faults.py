"""Faults of the evaluation outputs (issue 13, items 2.6, 2.9, 2.11, 2.12): run folders that mix
runs or look complete when they are not, an unwritable --out found only after the work, counts of
zero accepted, and --one-sided writing nothing."""

import json

import numpy as np
import pytest

import evaluation.concealment  # noqa: F401 (imported now, so that it binds the real collect_views)
from briscola_env import records
from evaluation import duplicate
from briscola_cli.main import main
from evaluation.session import play_sessions

FIVE = ["random"] * 5


def argparse_error(capsys, argv) -> str:
    """What ``briscola argv`` says as it refuses (an argparse error, exit status 2)."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    return capsys.readouterr().err


def lines(path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_evaluate_twice_into_one_out_folder_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["evaluate", "heuristic", "random", "--deals", "2", "--record", "--out", str(out)]) == 0
    first = (out / "results.json").read_text()
    error = argparse_error(capsys, ["evaluate", "random", "heuristic", "--deals", "3", "--record", "--out", str(out)])
    assert "not empty" in error and str(out) in error
    assert lines(out / "games.jsonl") == 2 * 12  # the first run's games alone, next to its own results
    assert (out / "results.json").read_text() == first


def test_default_out_folders_do_not_collide(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("time.strftime", lambda form, *when: "evaluate-20260101-120000")  # both in one second
    assert main(["evaluate", "heuristic", "random", "--deals", "2"]) == 0
    assert main(["evaluate", "random", "heuristic", "--deals", "2"]) == 0
    first, second = tmp_path / "runs" / "evaluate-20260101-120000", tmp_path / "runs" / "evaluate-20260101-120000-2"
    assert json.loads((first / "results.json").read_text())["specs"] == ["heuristic", "random"]
    assert json.loads((second / "results.json").read_text())["specs"] == ["random", "heuristic"]


def _interrupt_the_plots(monkeypatch):
    def plot(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("evaluation.report.plot", plot)


def _interrupt_the_records(monkeypatch):
    original = duplicate.PairResult.records

    def records(self, rules=None):
        for n, record in enumerate(original(self, rules)):
            if n == 5:
                raise KeyboardInterrupt
            yield record

    monkeypatch.setattr(duplicate.PairResult, "records", records)


@pytest.mark.parametrize("interrupt", [_interrupt_the_plots, _interrupt_the_records], ids=["plots", "records"])
def test_interrupted_evaluation_leaves_no_results_json(tmp_path, monkeypatch, interrupt):
    interrupt(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        main(["evaluate", "heuristic", "random", "--deals", "2", "--record", "--out", str(tmp_path / "run")])
    assert not (tmp_path / "run" / "results.json").exists()  # nothing claims the deals were all played


def _model(path):
    from agents.belief import BeliefNet, save_belief

    save_belief(path, BeliefNet((8,)))
    return path


def _work_must_not_start(*args, **kwargs):
    raise AssertionError("the work started before --out was checked")


@pytest.mark.parametrize("command", ["evaluate", "belief", "concealment"])
@pytest.mark.parametrize("where", ["under a file", "the wrong kind"])
def test_unwritable_out_fails_before_the_work(tmp_path, monkeypatch, capsys, command, where):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder")
    if where == "under a file":
        out = blocker / "out"
    else:  # belief writes a file, the others a folder
        out = blocker if command != "belief" else tmp_path
    argv = {"evaluate": ["evaluate", "heuristic", "random", "--deals", "2"],
            "belief": ["belief", "random", "--games", "20", "--epochs", "1"],
            "concealment": ["concealment", "random", "--belief", str(_model(tmp_path / "b.pt")), "--games", "4"]}
    monkeypatch.setattr("evaluation.duplicate.play_games", _work_must_not_start)
    monkeypatch.setattr("training.belief_model.collect_views", _work_must_not_start)
    monkeypatch.setattr("evaluation.concealment.concealment", _work_must_not_start)
    error = argparse_error(capsys, argv[command] + ["--out", str(out)])
    assert str(out if where == "the wrong kind" else blocker) in error


def test_concealment_into_a_non_empty_out_folder_is_refused(tmp_path, capsys):
    out = tmp_path / "conceal"
    out.mkdir()
    (out / "notes.txt").write_text("someone else's")
    error = argparse_error(capsys, ["concealment", "random", "--belief", str(_model(tmp_path / "b.pt")),
                                    "--games", "4", "--out", str(out)])
    assert "not empty" in error
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_interrupted_concealment_leaves_no_json(tmp_path, monkeypatch):
    def plot(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("evaluation.concealment.plot_concealment", plot)
    with pytest.raises(KeyboardInterrupt):
        main(["concealment", "random", "--belief", str(_model(tmp_path / "b.pt")), "--games", "4",
              "--out", str(tmp_path / "conceal")])
    assert not (tmp_path / "conceal" / "concealment.json").exists()


@pytest.mark.parametrize("argv", [["--sessions", "0", "--hands", "2"], ["--sessions", "-1", "--hands", "2"],
                                  ["--hands", "0"], ["--target", "0"], ["--target", "-5"], ["--target", "nan"],
                                  ["--target", "inf"]], ids=" ".join)
def test_session_with_zero_sessions_is_refused(capsys, argv):
    error = argparse_error(capsys, ["session", *FIVE, *argv])
    assert f"argument {argv[0]}" in error
    with pytest.raises(ValueError, match="at least one session"):
        play_sessions([object()], np.zeros((0, 5), dtype=np.int64), hands=2)


@pytest.mark.parametrize("argv", [["evaluate", "random", "random", "--deals", "0"],
                                  ["belief", "random", "--games", "0"], ["belief", "random", "--epochs", "0"],
                                  ["concealment", "random", "--belief", "b.pt", "--games", "-3"]],
                         ids=lambda argv: " ".join(argv[0:1] + argv[-2:]))
def test_non_positive_counts_are_refused(capsys, argv):
    assert f"argument {argv[-2]}: " in argparse_error(capsys, argv)


def test_one_sided_writes_results(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["evaluate", "heuristic", "random", "--deals", "3", "--one-sided", "--record", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    result = json.loads((out / "results.json").read_text())
    assert result["one_sided"] is True and result["deals"] == 3
    [pair] = result["pairs"]
    assert pair["a"] == "heuristic" and pair["b"] == "random" and pair["edge_a"] is not None
    assert pair["edge_b"] is None and pair["edge_b_ci"] is None and "not measured" in pair["edge_b_note"]
    assert pair["stats_a"]["hands"] == pair["stats_b"]["hands"] == 3 * 5  # B measured too: in the all-B games
    assert pair["stats_b_among"] == "random"
    assert set(result["ratings"]) == {"heuristic", "random"}
    written = (out / "results.md").read_text()
    assert "not measured (one-sided)" in written and "| random | random |" in written  # B's statistics row
    assert written.strip() in printed
    assert {p.name for p in (out / "plots").iterdir()} == {"edges.png", "contracts.png", "roles.png"}
    games = list(records.read(out / "games.jsonl"))
    assert len(games) == 3 * 6  # all-B, then A alone at each seat
    assert sum("heuristic" in g["agents"] for g in games) == 3 * 5
    state = records.replay(games)
    assert state.rewards.tolist() == [g["outcome"]["payoffs"] for g in games]


# --- one atomic writer -------------------------------------------------------------------------------

@pytest.mark.parametrize("writer", ["save_checkpoint", "save_belief"])
def test_an_interrupted_checkpoint_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch, writer):
    import torch

    from agents.belief import BeliefNet, save_belief
    from agents.ppo import PolicyValueNet, save_checkpoint

    path = tmp_path / "model.pt"
    save = {"save_checkpoint": lambda: save_checkpoint(path, PolicyValueNet((8,))),
            "save_belief": lambda: save_belief(path, BeliefNet((8,)))}[writer]
    save()
    before = path.read_bytes()
    real_save = torch.save

    def interrupted(payload, temporary):
        real_save(payload, temporary)
        raise KeyboardInterrupt  # Ctrl-C after the temporary file is written, before the rename

    monkeypatch.setattr(torch, "save", interrupted)
    with pytest.raises(KeyboardInterrupt):
        save()
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["model.pt"]


def test_replace_atomically_starts_from_no_temporary_file(tmp_path):
    from briscola_env.files import replace_atomically

    path = tmp_path / "games.jsonl"
    path.with_name("games.jsonl.tmp").write_text("left by an interrupted write\n")

    def append(temporary):
        with open(temporary, "a") as file:
            file.write("game\n")

    replace_atomically(path, append)
    assert path.read_text() == "game\n" and [p.name for p in tmp_path.iterdir()] == ["games.jsonl"]


# --- 2.9: briscola export's target --------------------------------------------------------------

@pytest.fixture
def exportable(tmp_path):
    import torch

    from agents.ppo import PolicyValueNet, save_checkpoint

    torch.manual_seed(0)
    save_checkpoint(tmp_path / "checkpoint.pt", PolicyValueNet((8,)))
    return tmp_path / "checkpoint.pt"


@pytest.mark.parametrize("target, words", [("folder", "is a folder; give the name of the file to write"),
                                           ("/proc/x.pt", "cannot write into /proc"),
                                           ("/proc/new/x.pt", "cannot write into /proc")])
def test_export_to_a_folder_or_an_unwritable_place_is_refused_before_the_checkpoint_is_read(
        tmp_path, capsys, exportable, target, words):
    if target == "folder":
        (tmp_path / "folder").mkdir()
        target = str(tmp_path / "folder")
    for checkpoint in (exportable, tmp_path / "missing.pt"):  # the target is checked first
        assert words in argparse_error(capsys, ["export", str(checkpoint), target])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint.pt"] + (["folder"] if "folder" in target else [])


def test_export_onto_the_checkpoint_it_reads_is_refused(tmp_path, capsys, exportable):
    before = exportable.read_bytes()
    error = argparse_error(capsys, ["export", str(exportable), str(tmp_path / "." / "checkpoint.pt"), "--overwrite"])
    assert "is the checkpoint to export" in error
    assert exportable.read_bytes() == before
    assert main(["export", str(exportable), str(tmp_path / "sub" / "policy.pt")]) == 0
    assert (tmp_path / "sub" / "policy.pt").exists()


def test_export_and_distill_refuse_to_overwrite_an_existing_file_unless_told(tmp_path, capsys, exportable):
    """A run's checkpoint.pt (or any file) is never replaced by an --out that names it, unless --overwrite."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "checkpoint.pt").write_bytes(b"a training checkpoint")
    target = str(run / "checkpoint.pt")
    assert "exists: give a new file name, or --overwrite" in argparse_error(capsys, ["export", str(exportable), target])
    assert "exists: give a new file name, or --overwrite" in argparse_error(
        capsys, ["distill", str(tmp_path / "no-labels"), "--out", target])
    assert (run / "checkpoint.pt").read_bytes() == b"a training checkpoint"
    assert main(["export", str(exportable), target, "--overwrite"]) == 0
    assert (run / "checkpoint.pt").read_bytes() != b"a training checkpoint"
