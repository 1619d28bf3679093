"""``westwood run SCENARIO --pcap DIR [--pcap-links NAME...]``: packet captures of a simulated
run, written by the Rust core as the run goes (``westwood_simulator::pcap``, docs/measurement.md).

A capture point is a link (``LINK``: the interface of the link's sending node, what it sends
onto the link and receives back over the reverse link) or a flow's endpoint (``FLOW.sender``,
``FLOW.receiver``: only that flow's packets, what tcpdump on the host would see; the testbed
writes files of the same names). Without ``--pcap-links``, the bottleneck link of each flow's
path is captured.
"""

from __future__ import annotations

import argparse
import os
from typing import List, NamedTuple, Optional, Sequence, Tuple

from ..errors import UsageError

DEFAULT_SNAPLEN = 128
FORMATS = ("pcapng", "pcap")


class CaptureRequest(NamedTuple):
    """What the core gets (``core``) and the files it will write (``paths``). A NamedTuple,
    not a dataclass: ``westwood run`` imports this module for its options, and dataclasses
    costs a run's start-up more than the run of a small scenario."""

    core: Tuple[str, List[str], int, str]
    paths: List[str]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--pcap",
        metavar="DIR",
        help="write packet captures into DIR, one file per capture point (docs/measurement.md)",
    )
    parser.add_argument(
        "--pcap-links",
        nargs="+",
        metavar="NAME",
        help="capture points: links (LINK: what its sending node sends on it and receives back) "
        "or flow endpoints (FLOW.sender, FLOW.receiver); default: each flow's bottleneck link",
    )
    parser.add_argument(
        "--pcap-snaplen",
        type=int,
        metavar="BYTES",
        help=f"bytes kept of each packet (default {DEFAULT_SNAPLEN}: the headers and some payload)",
    )
    parser.add_argument(
        "--pcap-format",
        choices=FORMATS,
        help="pcapng (default: names, directions, end time) or pcap",
    )


def request(
    args: argparse.Namespace, overrides: Sequence[Tuple[str, str]]
) -> Optional[CaptureRequest]:
    """The capture request of ``westwood run``'s arguments (None without ``--pcap``); names
    are checked against the scenario before the run (``ScenarioError`` for one that matches
    nothing)."""
    extra = [
        name
        for name, value in (
            ("--pcap-links", args.pcap_links),
            ("--pcap-snaplen", args.pcap_snaplen),
            ("--pcap-format", args.pcap_format),
        )
        if value is not None
    ]
    if not args.pcap:
        if extra:
            raise UsageError(f"run: {', '.join(extra)} needs --pcap DIR")
        return None
    snaplen = DEFAULT_SNAPLEN if args.pcap_snaplen is None else args.pcap_snaplen
    if not 64 <= snaplen <= 262144:
        raise UsageError(f"--pcap-snaplen {snaplen}: bytes kept per packet, 64 to 262144")
    return capture_request(
        args.scenario,
        overrides,
        args.pcap,
        args.pcap_links or [],
        snaplen,
        args.pcap_format or "pcapng",
    )


def capture_request(
    scenario,
    overrides,
    directory,
    points: Sequence[str] = (),
    snaplen: int = DEFAULT_SNAPLEN,
    fmt: str = "pcapng",
) -> CaptureRequest:
    """A request for ``api.run_raw(pcap=...)``: the capture points resolved against the
    scenario (with its overrides), and the files they will be."""
    from .. import _core
    from ..overrides import normalize
    from ..paths import resolve_scenario

    core = (os.fspath(directory), list(points), int(snaplen), fmt)
    paths = _core.pcap_paths(os.fspath(resolve_scenario(scenario)), normalize(overrides), core)
    return CaptureRequest(core=core, paths=list(paths))
