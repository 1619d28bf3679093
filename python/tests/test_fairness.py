"""Jain's fairness index: the simulator computes it (``metrics::jain_index``) into every summary,
and the front end reads the summary's rather than computing its own."""

from __future__ import annotations

import math

import pytest

import westwood
from westwood import sweeps


def test_the_summary_index_is_jains_over_the_flows_goodputs():
    result = westwood.run("dumbbell", overrides={"duration": "5s", "flows": "3"})
    goodputs = [f["goodput_bps"] for f in result.summary["flows"]]
    assert len(goodputs) == 3
    expected = math.fsum(goodputs) ** 2 / (len(goodputs) * math.fsum(x * x for x in goodputs))
    assert result.summary["fairness"]["index"] == pytest.approx(expected, rel=1e-12)
    assert result.summary["fairness"]["flows"] == [f["name"] for f in result.summary["flows"]]


def test_sweep_metrics_read_the_summary_index():
    summary = {
        "flows": [
            {
                "goodput_bps": g,
                "throughput_bps": g,
                "retransmits": 0,
                "timeouts": 0,
                "fast_retransmits": 0,
            }
            for g in (1e6, 3e6)
        ],
        "fairness": {"index": 0.25, "flows": ["a", "b"]},
        "sim_seconds": 1.0,
        "events": 1,
        "packets": 1,
    }
    assert sweeps.run_metrics(summary)["fairness"] == 0.25
    summary["fairness"] = {"index": None, "flows": []}
    assert sweeps.run_metrics(summary)["fairness"] is None
