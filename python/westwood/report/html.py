"""What every experiment's report is made of (CSV, claims sections, HTML tables) and the index
of a results directory (index.json, index.md, index.html). Each experiment kind writes its own
tables and figures with these (``westwood.experiments``)."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Mapping, Sequence, Tuple

from ..claims import DEGENERATE, claims_table, markdown_claims, verdict_counts
from ..files import write_json_atomic, write_text_atomic
from ..papers import which_tcpw


def write_csv(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    buffer = io.StringIO()
    columns: List[str] = []
    for row in rows:
        columns += [c for c in row if c not in columns]
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    write_text_atomic(path, buffer.getvalue())


# Why points have no runs: (series label, x value) -> reason (e.g. a testbed run the machine
# could not do); shown in their cells instead of a dash.
Skipped = Mapping[Tuple[str, float], str]


def html_table(table: Mapping[str, Any], verdict_column: bool = False) -> str:
    """An HTML table; with ``verdict_column`` the last cell of each row is a claim verdict,
    given a class (``verdict-reproduced``, ``verdict-partly``, ...) for colouring."""
    esc = html.escape
    head = "".join(f"<th>{esc(str(c))}</th>" for c in table.get("header", []))
    rows = []
    for row in table.get("rows", []):
        cells = [f"<td>{esc(str(c))}</td>" for c in row]
        if verdict_column and cells:
            css = "verdict-" + "".join(ch if ch.isalnum() else "-" for ch in str(row[-1]))
            cells[-1] = f'<td class="{esc(css)}"><strong>{esc(str(row[-1]))}</strong></td>'
        rows.append("<tr>" + "".join(cells) + "</tr>")
    cls = ' class="claims"' if verdict_column else ""
    # In a box of its own width that scrolls sideways on a narrow screen, not the whole page.
    return (
        f'<div class="table"><table{cls}><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


class _VerdictView:
    """A verdict read back from index.json (a dict), with the attributes ``claims_table`` and
    ``markdown_claims`` use."""

    def __init__(self, d: Mapping[str, Any]):
        self.claim = str(d.get("claim", ""))
        self.paper = str(d.get("paper", ""))
        self.measured = str(d.get("measured", ""))
        self.target = str(d.get("target", ""))
        self.partly = str(d.get("partly", ""))
        self.verdict = str(d.get("verdict", ""))


# How a point whose runs fail the experiment's preconditions is marked in result tables.
DEGENERATE_MARK = "(degenerate)"


def preconditions_section(preconditions, degenerate: Mapping[str, str]) -> str:
    """The Markdown "What the verdicts rest on" section: the experiment's preconditions and the
    points whose runs fail them (``{point text: why}``)."""
    if not preconditions:
        return ""
    lines = ["## What the verdicts rest on", ""]
    lines += [f"- {p.text}" for p in preconditions]
    if degenerate:
        lines += [
            "",
            f"Points whose runs fail them, marked {DEGENERATE_MARK} above; a claim that reads "
            "one is *n/a: degenerate*:",
            "",
        ]
        lines += [f"- {point}: {why}" for point, why in degenerate.items()]
    else:
        lines += ["", "Every run holds them."]
    return "\n".join(lines) + "\n"


def rests_on_entry(preconditions, degenerate: Mapping[str, str]) -> Dict[str, Any]:
    """The index entry's record of the preconditions and the degenerate points."""
    return {"preconditions": [p.text for p in preconditions], "degenerate": dict(degenerate)}


def claims_section(verdicts) -> str:
    """The Markdown "Claims" section of an experiment ("" when it has none)."""
    if not verdicts:
        return ""
    return f"""## Claims

Each claim of the paper is a number computed from the results above. A number the paper gives
is *reproduced* within ±25 % of it and *partly* within ±50 %; a comparison ("X beats Y") is
judged on the per-seed ratios' mean and 95 % confidence interval; otherwise *not reproduced*.
*n/a* when the results lack what it needs; *n/a: degenerate* when it would rest on runs that
fail the preconditions above.

{markdown_claims(verdicts)}
"""


# --- index -------------------------------------------------------------------------------------

MANIFEST = "index.json"


def update_manifest(out_dir: Path, entries: Mapping[str, Mapping[str, Any]]) -> Dict[str, Any]:
    """Merge this invocation's experiments into ``index.json`` (earlier ones are kept)."""
    path = out_dir / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(manifest, dict):
            manifest = {}
    except (OSError, ValueError):
        manifest = {}
    manifest.update({k: dict(v) for k, v in entries.items()})
    manifest = dict(sorted(manifest.items()))
    write_json_atomic(path, manifest)
    return manifest


def index_entry(
    experiment, quick: bool, seeds: int, runs: int, runs_text: str, command: str, entry
) -> Dict[str, Any]:
    """An experiment's record in ``index.json``: what it is, how it was run, and what its
    report writer returned (table, claims, files, ...)."""
    return {
        "kind": experiment.kind,
        "title": experiment.title,
        "paper": experiment.paper,
        "scenario": experiment.scenario,
        "quick": quick,
        "seeds": seeds,
        "runs": runs,
        "runs_text": runs_text,
        "command": command,
        **entry,
    }


def default_files(exp_id: str) -> List[Tuple[str, str]]:
    return [
        ("table", f"{exp_id}.md"),
        ("csv", f"{exp_id}.csv"),
        ("png", f"{exp_id}.png"),
        ("svg", f"{exp_id}.svg"),
    ]


def _files(exp_id: str, entry: Mapping[str, Any]) -> List[Tuple[str, str]]:
    files = entry.get("files")
    if isinstance(files, list) and all(isinstance(f, (list, tuple)) for f in files):
        return [(str(label), str(name)) for label, name in files]
    return default_files(exp_id)


def _verdict_counts(entry: Mapping[str, Any]) -> str:
    claims = entry.get("claims") or []
    return ", ".join(f"{n} {v}" for v, n in verdict_counts(claims).items())


def verdict_summary(manifest: Mapping[str, Mapping[str, Any]]) -> str:
    """The sentence the report opens with: how many claims, how many of each verdict, how many
    rest on degenerate runs (simulated and testbed counted apart)."""
    parts = []
    sim, testbed = _in_order(manifest)
    for label, rows in (("Simulated", sim), ("Testbed", testbed)):
        claims = [c for _, e in rows for c in e.get("claims") or []]
        if not claims:
            continue
        counts = verdict_counts(claims)
        degenerate = counts.pop(DEGENERATE, 0)
        parts.append(
            f"{label}: {len(claims)} claims — "
            + ", ".join(f"{n} {v}" for v, n in counts.items())
            + f"; {degenerate} {DEGENERATE} (not judged: they would rest on runs that fail "
            "their experiment's preconditions)."
        )
    return " ".join(parts)


TESTBED_HEADING = "Testbed: real Linux TCP through the link emulator"
TESTBED_INTRO = (
    "Kernel TCP (iperf3; TCPW as the eBPF tcpw) in network namespaces through the user-space "
    "link emulator, with the simulator's result for the same scenario beside each point "
    "(docs/testbed.md)."
)


def _natural_key(exp_id: str) -> List[Any]:
    """``fig3`` before ``fig10``: digit runs compare as numbers."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", exp_id)]


def _in_order(manifest: Mapping[str, Mapping[str, Any]]):
    """Simulated experiments first, then the testbed's, each in natural id order (fig3, fig4,
    ..., fig10)."""
    ordered = sorted(manifest.items(), key=lambda item: _natural_key(item[0]))
    sim = [(k, e) for k, e in ordered if e.get("kind") != "testbed"]
    testbed = [(k, e) for k, e in ordered if e.get("kind") == "testbed"]
    return sim, testbed


def _markdown_table(table: Mapping[str, Any]) -> List[str]:
    lines = ["| " + " | ".join(table["header"]) + " |", "|" + "---|" * len(table["header"])]
    return lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in table["rows"]]


def write_index(out_dir: Path, manifest: Mapping[str, Mapping[str, Any]]) -> None:
    sim, testbed = _in_order(manifest)
    header = ["| Experiment | Paper | Runs | Claims | Files | Rerun |", "|---|---|---|---|---|---|"]
    md = ["# westwood reproductions", ""]
    summary = verdict_summary(manifest)
    if summary:
        md += [summary, ""]
    which = which_tcpw.summary_table(manifest)
    if which:
        md += [f"## {which_tcpw.HEADING}", "", which_tcpw.INTRO, ""] + _markdown_table(which)
        md += ["", "## Experiments", ""]
    md += header
    for part, rows in (("sim", sim), ("testbed", testbed)):
        if part == "testbed" and rows:
            md += ["", f"## {TESTBED_HEADING}", "", TESTBED_INTRO, ""] + header
        for exp_id, e in rows:
            files = " · ".join(f"[{label}]({name})" for label, name in _files(exp_id, e))
            md.append(
                f"| {exp_id}: {e.get('title', '')} | {e.get('paper', '')} | "
                f"{e.get('runs_text', '')} | {_verdict_counts(e)} | {files} | "
                f"`{e.get('command', '')}` |"
            )
    for exp_id, e in sim + testbed:
        if e.get("claims"):
            md += ["", f"## {exp_id}: claims", ""]
            md.append(markdown_claims([_VerdictView(c) for c in e["claims"]]))
    write_text_atomic(out_dir / "index.md", "\n".join(md) + "\n")

    esc = html.escape
    sections = [f"<p><strong>{esc(summary)}</strong></p>"] if summary else []
    if which:
        sections.append(
            f'<section id="which-tcpw"><h1>{esc(which_tcpw.HEADING)}</h1>'
            f"<p>{esc(which_tcpw.INTRO)}</p>{html_table(which)}</section>"
        )
    for exp_id, e in sim + testbed:
        if e.get("kind") == "testbed" and exp_id == testbed[0][0]:
            sections.append(f"<h1>{esc(TESTBED_HEADING)}</h1>\n<p>{esc(TESTBED_INTRO)}</p>")
        links = " · ".join(
            f'<a href="{esc(name)}">{esc(label)}</a>' for label, name in _files(exp_id, e)
        )
        rests_on = ""
        if e.get("preconditions"):
            rests_on = "<h3>What the verdicts rest on</h3><ul>" + "".join(
                f"<li>{esc(str(p))}</li>" for p in e["preconditions"]
            )
            rests_on += "".join(
                f'<li class="verdict-n-a--degenerate">degenerate: {esc(str(k))}: {esc(str(v))}</li>'
                for k, v in (e.get("degenerate") or {}).items()
            )
            rests_on += "</ul>"
        claims = e.get("claims") or []
        claims_html = (
            "<h3>Claims</h3>"
            + html_table(claims_table([_VerdictView(c) for c in claims]), verdict_column=True)
            if claims
            else ""
        )
        names = dict(_files(exp_id, e))
        figure = (
            f'<p><a href="{esc(names.get("svg", exp_id + ".svg"))}"><img '
            f'src="{esc(names["png"])}" alt="{esc(exp_id)}" width="640"></a></p>'
            if "png" in names  # table experiments have no figure
            else ""
        )
        sections.append(
            f"""<section id="{esc(exp_id)}">
<h2>{esc(exp_id)}: {esc(str(e.get("title", "")))}</h2>
<p>{esc(str(e.get("paper", "")))} &mdash; {esc(str(e.get("runs_text", "")))}</p>
{html_table(e.get("table", {})) if e.get("table") else ""}
{"".join(f"<p>{esc(str(n))}</p>" for n in e.get("notes") or [])}
{rests_on}
{claims_html}
{figure}
<p>{links}</p>
<p>Rerun: <code>{esc(str(e.get("command", "")))}</code></p>
</section>"""
        )
    contents = (
        "<nav><h2>Contents</h2><ul>"
        + "".join(
            f'<li><a href="#{esc(k)}">{esc(k)}</a>: {esc(str(e.get("title", "")))}</li>'
            for k, e in sim + testbed
        )
        + "</ul></nav>"
    )
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>westwood reproductions</title>
<style>
body {{ font-family: sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }}
code {{ background: #f3f3f3; padding: 0.1rem 0.3rem; }}
img {{ max-width: 100%; border: 1px solid #ddd; }}
table {{ border-collapse: collapse; margin: 0.5rem 0; }}
div.table {{ overflow-x: auto; max-width: 100%; }}
nav li {{ margin: 0.1rem 0; }}
th, td {{ border: 1px solid #ccc; padding: 0.2rem 0.6rem; text-align: right; }}
table.claims td {{ text-align: left; }}
.verdict-reproduced {{ background: #dff0d8; }}
.verdict-partly {{ background: #fcf8e3; }}
.verdict-not-reproduced {{ background: #f2dede; }}
.verdict-n-a--degenerate {{ background: #e8e0f0; }}
</style>
</head>
<body>
<h1>westwood reproductions</h1>
{contents}
{chr(10).join(sections)}
</body>
</html>
"""
    write_text_atomic(out_dir / "index.html", page)
