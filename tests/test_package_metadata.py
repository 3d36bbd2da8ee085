"""The package's metadata: the version written once, the license and citation files shipped beside it, every
package listed, and the data that travels with the code (the configs and the best network, found by name)."""

import tomllib
from pathlib import Path

import pytest
from setuptools import find_namespace_packages

import briscola_env
from agents import make_agent
from agents.shipped import network_file, shipped_networks
from training.config import config_file, load_config

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


def test_pyproject_lists_every_package_of_the_tree_and_maps_the_data_folders():
    setuptools_config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    code = find_namespace_packages(str(ROOT), include=["briscola_env*", "agents*", "evaluation*", "training*",
                                                        "webtable*", "briscola_cli*"], exclude=["*.__pycache__"])
    assert sorted(setuptools_config["packages"]) == sorted([*code, "briscola_configs", "briscola_networks"])
    assert setuptools_config["package-dir"] == {"briscola_configs": "configs", "briscola_networks": "checkpoints"}
    assert setuptools_config["package-data"]["briscola_networks"] == ["best.pt", "README.md"]


def test_shipped_networks_and_configs_are_found_by_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # outside the clone: found through the installed package, not the working folder
    assert "best" in shipped_networks()
    assert network_file("best").read_bytes() == (ROOT / "checkpoints" / "best.pt").read_bytes()
    assert config_file("tiny").read_text() == (ROOT / "configs" / "tiny.yaml").read_text()
    assert load_config("tiny", []).exp_name == "tiny" and make_agent("ppo:best").net is not None
    (tmp_path / "best").write_bytes(b"")  # a file of that name is the file: a path is never looked up
    assert network_file("best") == Path("best") and config_file("configs/tiny.yaml") == Path("configs/tiny.yaml")
    with pytest.raises(ValueError, match="no checkpoint at bset, and no shipped network of that name; "
                                         "shipped networks: best, "):
        network_file("bset")
    with pytest.raises(ValueError, match="no config file tinny, and no shipped config of that name; "
                                         "shipped configs: .*tiny"):
        load_config("tinny", [])
