"""The ``briscola`` command line: one module per subcommand in ``briscola_cli``, parsers nowhere else,
and help that works without torch (an install without the ``train`` extra)."""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from briscola_cli.main import COMMANDS, main
from briscola_cli.options import PPOSpecOptions, positive_int

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ("briscola_env", "agents", "evaluation", "training", "webtable")
NEEDS_TORCH_FOR_HELP = {"distill", "exploit", "train"}  # their defaults (train: every config key) live in modules
# that import torch

HELP_WITHOUT_TORCH = """
import contextlib, importlib.abc, io, json, sys

class NoTorch(importlib.abc.MetaPathFinder):
    tried = set()

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "torch":
            NoTorch.tried.add(current)
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, NoTorch())
from briscola_cli.main import COMMANDS, main

found = {}
for current in [None, *COMMANDS]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["--help"] if current is None else [current, "--help"])
        except SystemExit as stop:
            code = stop.code
    found[str(current)] = {"code": code, "out": out.getvalue(), "err": err.getvalue()}
print(json.dumps({"found": found, "tried": sorted(map(str, NoTorch.tried)), "torch": "torch" in sys.modules}))
"""


@pytest.fixture(scope="module")
def help_without_torch() -> dict:
    done = subprocess.run([sys.executable, "-c", HELP_WITHOUT_TORCH], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_briscola_help_imports_no_command_and_nothing_of_the_library():
    code = ("import sys; from briscola_cli.main import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            f"print(sorted(m for m in sys.modules if m.partition('.')[0] in {(*LIBRARY, 'briscola_cli', 'torch')}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2] == "['briscola_cli', 'briscola_cli.main', 'briscola_cli.options']"


def test_every_help_but_the_training_commands_works_without_torch(help_without_torch):
    found = help_without_torch["found"]
    assert help_without_torch["tried"] == sorted(NEEDS_TORCH_FOR_HELP) and not help_without_torch["torch"]
    for name, result in found.items():
        if name in NEEDS_TORCH_FOR_HELP:
            assert result["code"] == 1 and result["out"] == "", name
            assert result["err"] == f"briscola {name} needs torch: pip install -e '.[train]'\n"
        else:
            assert result["code"] == 0 and result["err"] == "", (name, result["err"])
            assert result["out"].startswith("usage: briscola" + ("" if name == "None" else f" {name}")), name
    for name in COMMANDS:
        assert COMMANDS[name] in " ".join(found["None"]["out"].split()), name


def test_the_ppo_spec_options_in_the_help_are_the_agents():
    from agents.ppo import PPOAgent
    from agents.spec import describe_options

    assert describe_options(PPOSpecOptions) == describe_options(PPOAgent)


def test_every_command_is_a_module_with_a_parser_and_a_run_function():
    for name in COMMANDS:
        source = (ROOT / "briscola_cli" / f"{name}.py").read_text(encoding="utf-8")
        tree = ast.parse(source)
        functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        assert {"add_arguments", "run"} <= functions, name
        assert ast.get_docstring(tree), name


def test_no_library_package_parses_arguments():
    users = [str(path.relative_to(ROOT)) for package in LIBRARY for path in sorted((ROOT / package).rglob("*.py"))
             if "argparse" in path.read_text(encoding="utf-8")]
    assert users == []


@pytest.mark.parametrize("text", ["0", "-3", "many", "2.5", ""])
def test_a_count_below_one_or_not_a_whole_number_is_refused_naming_it(text):
    with pytest.raises(Exception, match=f"a whole number of at least 1; got {text!r}"):
        positive_int(text)


def test_an_unknown_command_and_no_command_are_usage_errors(capsys):
    for argv in (["nothing"], []):
        with pytest.raises(SystemExit) as stopped:
            main(argv)
        assert stopped.value.code == 2
    assert "invalid choice: 'nothing'" in capsys.readouterr().err


def test_a_bad_value_is_one_line_after_the_commands_usage(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["evaluate", "random", "--deals", "3"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith("usage: briscola evaluate")
    assert err[-1] == "briscola evaluate: error: evaluate needs at least two agent specs"
