"""The package's metadata: the version written once, the license and citation files shipped beside it."""

import tomllib
from pathlib import Path

import briscola_env

ROOT = Path(__file__).resolve().parents[1]


def test_the_version_is_written_once_and_pyproject_reads_it():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "briscola_env.__version__"}


def test_the_citation_names_the_packages_version_and_license():
    lines = dict(line.split(": ", 1) for line in (ROOT / "CITATION.cff").read_text().splitlines()
                 if ": " in line and not line.startswith(" "))
    assert lines["version"] == briscola_env.__version__
    assert lines["license"] == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]


def test_the_license_file_is_the_one_pyproject_declares():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
