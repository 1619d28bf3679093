"""Kernel and simulator traces compared ACK by ACK (westwood.experiments.alignment), on real
simulator traces of the scripted-drop scenario the testbed compares (scenarios/linux_drops.toml).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import westwood
from westwood.experiments import alignment

# Two drops in one window, a 6 s run: one fast recovery, nothing else lost.
DROPS = {"cc": "reno", "d1": "2000", "d2": "2002", "duration": "6s", "tcp.profile": "linux"}


@pytest.fixture(scope="module")
def drops_trace():
    return westwood.run("linux_drops", overrides=DROPS, record=False, ack_trace=True).ack_trace


def _as_kernel_rows(frame):
    """The same trace in the kernel's convention (docs/ack-trace.md): each row holds the window
    and the state the previous row left, not those after its own ACK."""
    kernel = frame.copy()
    for column in ("cwnd_bytes", "ssthresh_bytes", "ca_state"):
        kernel[column] = [frame[column].iloc[0]] + list(frame[column])[:-1]
    return kernel


def test_one_recovery_and_its_end_read_alike_in_either_convention(drops_trace):
    simulator = alignment.loss_reactions(drops_trace, state_after_row=True)
    assert (simulator.recoveries, simulator.timeouts) == (1, 0)
    assert len(simulator.episode_ends) == 1 and simulator.episodes_open_at_end == 0
    recovery_at = drops_trace.index[drops_trace["event"] == "recovery"][0]
    start = drops_trace["time_ns"].iloc[0]
    began = (drops_trace["time_ns"].iloc[recovery_at] - start) / 1e9
    assert simulator.episode_starts == (began,)
    assert began < simulator.episode_ends[0] < began + 1.0, "ends within a second of starting"
    # The ACK that ended it is the same one when the rows carry the state before them.
    kernel = alignment.loss_reactions(_as_kernel_rows(drops_trace), state_after_row=False)
    assert kernel == simulator


def _write_run(directory: Path, kernel, simulator) -> Path:
    (directory / "simulator").mkdir(parents=True)
    kernel.to_csv(directory / "acks.csv", index=False)
    simulator.to_csv(directory / "simulator" / "acks.csv", index=False)
    return directory


def test_a_trace_compared_with_itself_agrees_everywhere(tmp_path, drops_trace):
    run = _write_run(tmp_path / "run", _as_kernel_rows(drops_trace), drops_trace)
    result = alignment.align(run)
    assert result.flow == "ftp"
    assert result.cwnd_share == 1.0 and result.agreement["ssthresh_share"] == 1.0
    assert result.agreement["first_cwnd_disagreement"] is None
    assert result.as_dict()["simulator"]["recoveries"] == 1


def test_the_first_disagreement_says_what_both_traces_hold(tmp_path, drops_trace):
    kernel = _as_kernel_rows(drops_trace)
    recovery_at = kernel.index[kernel["event"] == "recovery"][0]
    after = kernel.index > recovery_at
    mss = int(kernel["mss"].iloc[0])
    kernel.loc[after, "cwnd_bytes"] = kernel.loc[after, "cwnd_bytes"] - 3 * mss
    result = alignment.align(_write_run(tmp_path / "run", kernel, drops_trace))
    assert 0 < result.cwnd_share < 1
    first = result.agreement["first_cwnd_disagreement"]
    assert first["kernel_cwnd_segments"] == first["simulator_cwnd_segments"] - 3
    assert first["kernel_state"] == first["simulator_state"] == "recovery"
    assert math.isclose(first["kernel_time_s"], first["simulator_time_s"], abs_tol=0.05)
    text = alignment.describe_disagreement(first)
    assert f"ACK {first['ack']}" in text
    assert f"kernel cwnd {first['kernel_cwnd_segments']}" in text
    assert "(recovery)" in text and "BWE" not in text  # reno has no estimate
    row = alignment.CaseRow("Reno, drops 2", result, (2.0, 2.0), (1.3e6, 1.3e6))
    table = alignment.alignment_table([row]).splitlines()
    assert len(table) == 3 and table[2].startswith("| Reno, drops 2 | ")
    assert f"{result.cwnd_share:.1%}" in table[2]
    figures = alignment.plot_alignment(result, "test", tmp_path / "fig")
    assert [f.suffix for f in figures] == [".png", ".svg"]
    assert all(f.stat().st_size > 0 for f in figures)


def test_a_run_without_traces_names_the_missing_file(tmp_path):
    (tmp_path / "run").mkdir()
    with pytest.raises(alignment.NoTraces, match="acks.csv is missing"):
        alignment.align(tmp_path / "run")


def test_the_words_for_a_disagreement():
    first = {
        "ack": 800037,
        "repeat": 3,
        "kernel_time_s": 5.071,
        "simulator_time_s": 5.02,
        "kernel_cwnd_segments": 37,
        "simulator_cwnd_segments": 44,
        "kernel_ssthresh_segments": 42.0,
        "simulator_ssthresh_segments": math.inf,
        "kernel_state": "recovery",
        "simulator_state": "open",
        "kernel_bwe_bps": 1.4928e6,
        "simulator_bwe_bps": 1.557e6,
    }
    assert alignment.describe_disagreement(first) == (
        "ACK 800037 (3rd repeat), 5.071 s / 5.020 s: kernel cwnd 37, ssthresh 42 (recovery); "
        "simulator 44, unset (open); BWE 1.493 / 1.557 Mb/s"
    )
    assert alignment.describe_disagreement(None) == "none"
