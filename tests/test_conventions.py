"""The package's conventions: each env id spelled one way wherever the repository writes it, and the
type marker that lets type checkers read briscola_env's annotations shipped with it."""

import re
import subprocess
import tomllib
from importlib import resources
from pathlib import Path

import pytest

import briscola_env
from agents import SINGLE_SEAT_ENV_ID

ROOT = Path(__file__).resolve().parents[1]
TEXT_SUFFIXES = {".py", ".md", ".ipynb", ".yml", ".yaml", ".toml", ".cfg", ".txt", ".js", ".html", ".cff", ""}
# Where the changes are recorded, the ids' former spellings may be named.
HISTORY = {"CHANGELOG.md"}
NAMESPACED_ID = re.compile(r"\bbriscola/[\w-]+")  # namespace/name, with a version or without
VERSIONED_NAME = re.compile(r"\bbriscola_chiamata\w*?[-_]v\d+")  # the name with its version, namespace or not
CAMEL_CASE = re.compile(r"[B]riscolaChiamata")  # Gymnasium's CamelCase, the other spelling (a class: not itself)


def repository_texts() -> dict[str, str]:
    """The text of every file git tracks or would add (others' work in progress included), by path."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not in a git clone: no list of the repository's files")
    texts = {}
    for name in listed.stdout.splitlines():
        path = ROOT / name
        if path.suffix in TEXT_SUFFIXES and path.is_file() and name not in HISTORY:
            texts[name] = path.read_text(encoding="utf-8", errors="replace")
    return texts


def test_every_env_id_written_in_the_repository_is_one_of_the_two():
    ids = {briscola_env.ENV_ID, SINGLE_SEAT_ENV_ID}
    names = {env_id.split("/", 1)[1] for env_id in ids}
    texts = repository_texts()
    assert "briscola_env/pettingzoo_env.py" in texts and "agents/single_seat.py" in texts
    found = {(path, spelling) for path, text in texts.items()
             for pattern in (NAMESPACED_ID, VERSIONED_NAME, CAMEL_CASE) for spelling in pattern.findall(text)}
    assert {spelling for _, spelling in found} <= ids | names, sorted(
        (path, spelling) for path, spelling in found if spelling not in ids | names)


def test_the_two_ids_share_namespace_name_and_version():
    # PettingZoo's id is namespace/name_vN (its metadata name); Gymnasium reads a version only from -vN.
    assert briscola_env.ENV_ID == "briscola/" + briscola_env.ENV_NAME == "briscola/briscola_chiamata_v0"
    assert SINGLE_SEAT_ENV_ID == "briscola/briscola_chiamata_single_seat-v0"


def test_briscola_env_ships_its_type_marker():
    assert resources.files("briscola_env").joinpath("py.typed").is_file()
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "py.typed" in package_data["briscola_env"]
