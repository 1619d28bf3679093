"""Jain's fairness index helper (the simulator reports the same index in its summary)."""

from __future__ import annotations

import math

import pytest

from westwood.stats import fairness, jain_index


def test_equal_shares_give_one_and_a_hog_gives_one_over_n():
    assert jain_index([2.0] * 5) == pytest.approx(1.0)
    assert jain_index([0.0, 0.0]) == 1.0
    for n in range(1, 8):
        xs = [0.0] * n
        xs[0] = 3e6
        assert jain_index(xs) == pytest.approx(1.0 / n)
    assert math.isnan(jain_index([]))


def test_worked_example_and_subsets_of_a_summary():
    assert jain_index([1, 2, 3, 4]) == pytest.approx(100 / 120)
    summary = {
        "flows": [
            {"name": "a", "goodput_bps": 1e6},
            {"name": "b", "goodput_bps": 3e6},
            {"name": "c", "goodput_bps": 2e6},
        ]
    }
    assert fairness(summary) == pytest.approx(36 / 42)
    assert fairness(summary, ["a", "c"]) == pytest.approx(9 / 10)
    with pytest.raises(KeyError, match="a, b, c"):
        fairness(summary, ["z"])
