"""The rules specification ships with the project, and the README and the package point to it."""

from pathlib import Path

import pytest

import briscola_env

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "RULES.md"
SPECIFICATION = ROOT.parent / "shared" / "RULES.md"  # the specification the project is developed from


def test_the_rules_document_is_in_the_project_and_linked():
    assert RULES.read_text(encoding="utf-8").startswith("# Briscola Chiamata")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](docs/RULES.md)" in readme and "../shared" not in readme
    assert "docs/RULES.md" in briscola_env.__doc__


@pytest.mark.skipif(not SPECIFICATION.is_file(), reason="no specification checkout beside this clone")
def test_the_rules_document_equals_the_specification():
    assert RULES.read_text(encoding="utf-8") == SPECIFICATION.read_text(encoding="utf-8"), (
        f"{RULES} differs from {SPECIFICATION}: copy the specification over")
