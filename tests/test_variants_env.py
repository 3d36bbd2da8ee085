"""The table variants (RULES.md, "Variants that change the table") in the environments:
PettingZoo's api_test for every variant preset."""

from __future__ import annotations

import contextlib
import io
import warnings

import pytest
from pettingzoo.test import api_test

from briscola_env import env, raw_env

VARIANT_PRESETS = ["al_buio"]
# The two warnings api_test gives any env with Dict observations; nothing else is expected.
KNOWN_DICT_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
}


@pytest.mark.parametrize("make", [env, raw_env], ids=["env", "raw_env"])
@pytest.mark.parametrize("name", VARIANT_PRESETS)
def test_api_test_passes_for_every_variant_preset(name, make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.redirect_stdout(io.StringIO()) as out:
            api_test(make(rules=name), num_cycles=300)
    assert "Passed API test" in out.getvalue()
    unexpected = [str(w.message) for w in caught if str(w.message) not in KNOWN_DICT_WARNINGS]
    assert unexpected == [], unexpected
