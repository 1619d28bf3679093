"""A stand-in for `westwood-emu testbed`: writes canned summaries at once, so the testbed
sections of `westwood reproduce` can be tested without root and without minutes of real TCP.

`testbed SCENARIO --set K=V ... --out DIR` writes DIR/summary.json (the kernel's view: a flow per
`cc`, `cc_a`, `cc_b` setting; westwood runs as tcpw at 2 Mb/s, anything else 1 Mb/s) and
DIR/simulator/summary.json (westwood 2.2 Mb/s, anything else 1 Mb/s); seed k's rates are
1 + (k - 1) / 100 times those. `FAKE_MODE=missing` exits
2 (a missing prerequisite), `FAKE_MODE=no_tcpw` exits 2 for runs with a westwood flow only (a
kernel that refuses tcpw), `FAKE_MODE=fail` exits 1. Each call is appended to `$FAKE_LOG`.
With `--ack-trace` it writes DIR/acks.csv and DIR/simulator/acks.csv: flow f0 growing its window,
one fast recovery, back to Open; the kernel's trace holds two segments more than the simulator's
during the recovery when `FAKE_ACKS=differ` (the same trace otherwise).
"""

from __future__ import annotations

import stat
from pathlib import Path

SCRIPT = r"""#!/usr/bin/env python3
import json, os, shlex, sys
args = sys.argv[1:]
log = os.environ.get("FAKE_LOG")
if log:
    with open(log, "a") as f:
        # A path call as a shell would read it (its command is one argument).
        f.write((shlex.join(args) if args[:1] == ["path"] else " ".join(args)) + "\n")
mode = os.environ.get("FAKE_MODE", "ok")
if mode == "missing":
    print("westwood-emu: iperf3 not found: apt-get install iperf3", file=sys.stderr)
    sys.exit(2)
if mode == "fail":
    print("westwood-emu: iperf3 byte counts disagree", file=sys.stderr)
    sys.exit(1)
if args and args[0] == "path":
    # `path --scenario ... --report R -- sh -c 'exec python -m westwood measure SERVER ...'`:
    # write measure's records for the rounds asked (rates below), then the path's report.
    # FAKE_STOP_AFTER=K exits 130 (interrupted) after the K-th transfer of the directory,
    # FAKE_FAIL_AFTER=K exits 1 (measure's failed transfer) after it.
    report = args[args.index("--report") + 1]
    words = shlex.split(args[-1])
    out_dir = words[words.index("--out") + 1]
    rounds = int(words[words.index("--rounds") + 1])
    seconds = int(words[words.index("--duration") + 1].rstrip("s"))
    ccs = words[words.index("--cc") + 1].split(",")
    parallel = int(words[words.index("--parallel") + 1]) if "--parallel" in words else 1
    runs = os.path.join(out_dir, "runs")
    os.makedirs(runs, exist_ok=True)
    existing = [json.load(open(os.path.join(runs, f))) for f in sorted(os.listdir(runs))]
    first = 1 + max([r["round"] for r in existing], default=0)
    done = len(existing)
    stop_after = int(os.environ.get("FAKE_STOP_AFTER", "0"))
    fail_after = int(os.environ.get("FAKE_FAIL_AFTER", "0"))
    for r in range(first, first + rounds):
        for cc in ccs:
            done += 1
            # tcpw 2.00, 2.02, 2.04 ... Mb/s; others 1.00, 1.02, 1.04 ...: ratios that differ.
            rate = 2e6 * (1 + 0.01 * (r - 1)) if cc.startswith("tcpw") else 1e6 + 0.02e6 * (r - 1)
            # With --parallel N, N streams, the k-th (1 + k / 10) times the first's rate.
            streams, connected = [], []
            for k in range(parallel):
                sent = int(rate * (1 + k / 10) * seconds / 8)
                streams.append({"sender": {"socket": 5 + k, "bytes": sent, "seconds": seconds,
                                           "retransmits": 3, "min_rtt": 630000,
                                           "mean_rtt": 644000, "max_rtt": 700000},
                                "receiver": {"bytes": sent, "seconds": seconds}})
                connected.append({"socket": 5 + k, "local_port": 40000 + 100 * done + k,
                                  "remote_port": 5201})
            record = {"label": cc, "started": "2026-11-28T00:00:00+00:00", "seconds": seconds,
                      "round": r, "transfer": done, "path": {"host": "10.202.2.1"},
                      "capture": None,
                      "sessions": [{"cc": cc, "streams": parallel, "port": 5201, "iperf3": {
                          "start": {"connected": connected},
                          "end": {"streams": streams}}}]}
            json.dump(record, open(os.path.join(runs, f"{done:04d}-r{r}-{cc}.json"), "w"))
            if stop_after and done >= stop_after:
                sys.exit(130)
            if fail_after and done >= fail_after:
                print("  westwood: error: transfer failed: iperf3 to 10.202.2.1:5201 (reno): "
                      "unable to receive control message: Connection reset by peer",
                      file=sys.stderr)
                sys.exit(1)
    json.dump({"routes": [{"direction": "client_to_server",
                           "counters": {"offered_packets": 100, "delivered_packets": 99,
                                        "drops_error": 1}}],
               "lateness_seconds": {"p99": 0.0001},
               "simulator_overrides": {"profile": "linux",
                                       "changed": {"tcp.window_growth": "linux"}}},
              open(report, "w"))
    print("path: client_to_server: 100 packets offered, 99 delivered", file=sys.stderr)
    sys.exit(0)
out = args[args.index("--out") + 1]
sets = dict(args[i + 1].split("=", 1) for i, a in enumerate(args) if a == "--set")
ccs = [sets[k] for k in ("cc", "cc_a", "cc_b") if k in sets] or ["reno"]
seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 1
if mode == "no_tcpw" and "westwood" in ccs:
    print("libbpf: prog 'x': failed to load: -EPERM", file=sys.stderr)
    print("westwood-emu: tcpw unavailable on this kernel: EPERM at load", file=sys.stderr)
    sys.exit(2)
def summary(testbed):
    flows, per_cc, mapping = [], {}, []
    for i, cc in enumerate(ccs):
        name = {"westwood": "tcpw"}.get(cc, cc) if testbed else cc
        rate = (2e6 if testbed else 2.2e6) if cc == "westwood" else 1e6
        rate *= 1 + 0.01 * (seed - 1)  # seeds differ (by 1 % a seed), as repeated runs do
        flows.append({"name": f"f{i}", "cc": name, "goodput_bps": rate, "throughput_bps": rate,
                      "retransmits": 1, "timeouts": 0, "fast_retransmits": 1})
        per_cc[name] = {"flows": 1, "mean_goodput_bps": rate, "total_goodput_bps": rate}
        mapping.append({"name": f"f{i}", "kernel_cc": name, "scenario_cc": cc})
    s = {"flows": flows, "per_cc": per_cc, "fairness": {"index": 1.0}, "sim_seconds": 5.0,
         "events": 10, "wall_seconds": 5.0}
    if testbed:
        s["testbed"] = {"flows": mapping,
                        "emulator": {"counters": {"frames_in": 100, "rx_socket_drops": 0,
                                                  "tx_errors": 0},
                                     "lateness_seconds": {"p99": 0.0002}},
                        "integrity": [{"flow": f["name"], "ok": True} for f in flows]}
    return s
os.makedirs(os.path.join(out, "simulator"))
json.dump(summary(True), open(os.path.join(out, "summary.json"), "w"))
json.dump(summary(False), open(os.path.join(out, "simulator", "summary.json"), "w"))
def trace(extra):
    rows = ["time_ns,flow,cc,event,ack,acked_bytes,dupack,sacked_bytes,credited_bytes,rtt_us,"
            "bwe_bps,rtt_min_us,cwnd_bytes,ssthresh_bytes,mss,ca_state,in_flight_bytes"]
    unset = 2147483647 * 1000
    def row(i, event, ack, acked, dup, cwnd, ss, state):
        rows.append(f"{i * 10_000_000},f0,{ccs[0]},{event},{ack},{acked},{dup},0,,,,,"
                    f"{cwnd},{ss},1000,{state},{cwnd}")
    for i in range(1, 11):
        row(i, "ack", i * 1000, 1000, 0, (i + 2) * 1000, unset, "open")
    row(11, "recovery", 10000, 0, 0, 6000, 6000, "recovery")
    for i in range(12, 15):
        row(i, "ack", 10000, 0, 1, 6000 + extra, 6000, "recovery")
    row(15, "ack", 14000, 4000, 0, 6000, 6000, "open")
    return "\n".join(rows) + "\n"
if "--ack-trace" in args:
    differ = 1000 * 2 if os.environ.get("FAKE_ACKS") == "differ" else 0
    open(os.path.join(out, "acks.csv"), "w").write(trace(differ))
    open(os.path.join(out, "simulator", "acks.csv"), "w").write(trace(0))
print("cc flow testbed simulator")
"""


def install(directory: Path, monkeypatch) -> Path:
    """Put the fake at DIRECTORY/westwood-emu, point WESTWOOD_EMU_BIN at it; returns the log."""
    fake = Path(directory) / "westwood-emu"
    fake.write_text(SCRIPT)
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("WESTWOOD_EMU_BIN", str(fake))
    log = Path(directory) / "calls.log"
    monkeypatch.setenv("FAKE_LOG", str(log))
    return log


def calls(log: Path):
    """The calls the fake logged, one line each."""
    return log.read_text().splitlines() if log.exists() else []
