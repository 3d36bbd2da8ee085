"""The shell commands of the README and the documentation pages run, through the same entry points, with small
sizes."""

import re
import shlex
from pathlib import Path

import pytest

from benchmarks.engine import main as benchmark
from briscola_cli.main import main as briscola

pytestmark = pytest.mark.slow  # runs every command of the README and the docs

README = Path(__file__).resolve().parents[1] / "README.md"
PAGES = [README, *sorted((README.parent / "docs").glob("*.md"))]  # the landing page and the docs' own pages
SMALL = {"--deals": "6", "--sessions": "4", "--hands": "2", "--seconds": "0.05", "--repeats": "1", "--games": "40",
         "--epochs": "1", "--decisions": "4096", "--eval-deals": "4", "--search-deals": "0"}


def commands() -> list[list[str]]:
    found = []
    blocks = [block for page in PAGES for block in re.findall(r"```bash\n(.*?)```", page.read_text(encoding="utf-8"),
                                                              flags=re.S)]
    for block in blocks:
        for line in block.splitlines():
            line = line.split("#")[0].strip()
            for part in line.split("&&"):
                words = shlex.split(part)
                if words and not (words[:3] in (["python", "-m", "pip"], ["python", "-m", "pytest"])
                                  or words[0] == "apt-get"):  # installs: CI runs them (.ci/run)
                    found.append(words)
    return found


def shrink(words: list[str]) -> list[str]:
    out = [word.replace("worlds=32", "worlds=2")  # search with a small sample
           .replace("ppo:checkpoints/", f"ppo:{README.parent}/checkpoints/") for word in words]  # run elsewhere
    for i, word in enumerate(out[:-1]):
        if word in SMALL:
            out[i + 1] = SMALL[word]
    return out


def test_every_readme_command_is_covered():
    kinds = {tuple(w[:2]) for w in commands()}
    assert kinds == {("python", "train.py"), ("briscola", "evaluate"), ("briscola", "session"), ("briscola", "play"),
                     ("briscola", "replay"), ("briscola", "belief"), ("briscola", "concealment"),
                     ("briscola", "tournament"), ("briscola", "sweep"), ("briscola", "exploit"), ("briscola", "field")}


@pytest.mark.parametrize("words", commands(), ids=lambda w: " ".join(w[:3]))
def test_readme_command_runs(words, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # run folders land in a temporary directory
    words = shrink(words)
    if words[:2] == ["python", "train.py"]:  # the main job, with the tiny config
        import sys

        sys.path.insert(0, str(README.parent))
        import train

        train.main(words[2:] + ["--config", str(README.parent / "configs" / "tiny.yaml"), f"run_dir={tmp_path}"])
        if "--exploit" in words:
            assert (tmp_path / f"exploit-{words[words.index('--exploit') + 1]}-1" / "exploit.json").exists()
        else:
            assert (tmp_path / "tiny-1" / "summary.md").exists()
    elif words[:2] in (["briscola", "sweep"], ["briscola", "exploit"]):  # the tiny config's runs, in tmp_path
        tiny = str(README.parent / "configs" / "tiny.yaml")
        words = [tiny if word.endswith(".yaml") else word for word in words]
        config = ["--config", tiny] if words[1] == "exploit" else []
        assert briscola(words[1:] + config + [f"run_dir={tmp_path}"]) == 0
        assert list(tmp_path.glob("*-sweep.json") if words[1] == "sweep" else tmp_path.glob("exploit-*/exploit.json"))
    elif words[:2] == ["briscola", "play"]:
        def nobody_there(prompt=""):
            raise EOFError

        monkeypatch.setattr("builtins.input", nobody_there)
        assert briscola(words[1:]) == 0  # no one at the keyboard: the session ends cleanly, with its total
    elif words[:2] == ["briscola", "concealment"]:
        assert briscola(["belief", "heuristic", "--games", "40", "--epochs", "1", "--out", "runs/belief.pt"]) == 0
        assert briscola(words[1:]) == 0
    elif words[:2] == ["briscola", "replay"]:
        assert briscola(["evaluate", "heuristic", "random", "--deals", "1", "--record", "--out", "runs/x"]) == 0
        monkeypatch.setattr("builtins.input", lambda prompt="": "")  # Enter, at every step
        assert briscola(words[1:]) == 0
    else:
        assert briscola(words[1:]) == 0


def test_the_benchmark_command_runs():
    """The benchmarks page names `python -m benchmarks.engine`."""
    assert "python -m benchmarks.engine" in (README.parent / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    benchmark(["--batch-sizes", "1", "8", "--env-sizes", "8", "--seconds", "0.05", "--repeats", "1"])
