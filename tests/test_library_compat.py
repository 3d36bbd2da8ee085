"""Compatibility with the libraries people plug the environment into (issue 15).

Each test is named after the fault it guards against.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_import_without_pettingzoo_registry_succeeds():
    # PettingZoo 1.25/1.26 (allowed by pyproject) have no aec_registry/register: simulate that in a
    # fresh interpreter so the already-imported package in this process is not disturbed.
    script = textwrap.dedent("""
        import pettingzoo
        del pettingzoo.aec_registry
        del pettingzoo.register
        import briscola_env
        e = briscola_env.env()
        e.reset(seed=0)
        assert e.agents, e.agents
        print("ok")
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
