"""run_pieces: the same results, in the same order, in this process and as Ray tasks."""

import sys

import numpy as np
import pytest
from ray import cloudpickle

from evaluation.parallel import run_pieces

pytestmark = pytest.mark.slow  # a local Ray


def seeded_draws(piece: tuple) -> np.ndarray:
    """A piece seeded from itself: its result cannot depend on where it runs."""
    index, seed = piece
    return np.random.default_rng([seed, index]).random(3)


# Ray's workers import a task's function by its module, and this test module is not importable
# there (tests/ is not a package on their path): ship it by value instead.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def test_one_process_and_ray_give_the_same_results_in_order():
    pieces = [(i, 7) for i in range(5)]
    seen = []
    alone = run_pieces(seeded_draws, pieces, progress=seen.append)
    assert seen == [1, 2, 3, 4, 5]
    seen = []
    on_ray = run_pieces(seeded_draws, pieces, workers=2, progress=seen.append)
    assert seen == [1, 2, 3, 4, 5]
    assert len(on_ray) == len(alone) and all(np.array_equal(a, b) for a, b in zip(alone, on_ray))


@pytest.mark.parametrize("workers", [-1, 1.5, True, "2"])
def test_bad_workers_are_refused(workers):
    with pytest.raises(ValueError, match="workers must be 0"):
        run_pieces(seeded_draws, [(0, 0)], workers=workers)
