"""docs/reproduction.md's audit lists every claim of every simulated experiment as the code
judges it: the paper's words, what the verdict rests on, the bands and why (the static columns
of westwood.report.audit). Regenerate it with `python -m westwood.report.audit results/
--update docs/reproduction.md` after a full run."""

from __future__ import annotations

from conftest import REPO
from westwood.experiments import registry
from westwood.report import audit

DOC = REPO / "docs" / "reproduction.md"
STATIC = ("Experiment", "Claim", "Paper", "Rests on", "Reproduced if", "Partly if", "Why")


def documented_rows():
    text = DOC.read_text(encoding="utf-8")
    start, end = text.find(audit.BEGIN), text.find(audit.END)
    assert 0 <= start < end, f"{DOC} has no audit markers"
    rows = []
    for line in text[start:end].splitlines():
        if not line.startswith("| ") or line.startswith("| Experiment |"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in line.strip()[2:-2].split(" | ")]
        rows.append(dict(zip(audit.HEADER, cells)))
    return rows


def test_every_claim_is_in_the_audit_as_the_code_judges_it():
    simulated = [e for e in registry.EXPERIMENTS.values() if e.kind != "testbed"]
    expected = [dict(zip(audit.HEADER, row)) for row in audit.rows(simulated)]
    documented = {(r["Experiment"], r["Claim"]): r for r in documented_rows()}
    for row in expected:
        key = (row["Experiment"], " ".join(row["Claim"].split()))
        assert key in documented, f"{key} is not in {DOC.name}'s audit: regenerate it"
        for column in STATIC:
            assert documented[key][column] == " ".join(str(row[column]).split()), (key, column)
    assert len(documented) == len(expected), "the audit lists claims the code no longer has"


def test_every_claim_says_why_and_quotes_the_paper():
    for e in registry.EXPERIMENTS.values():
        if e.kind == "testbed":
            continue
        for claim in e.claims:
            assert claim.why.strip(), f"{e.id}: {claim.text!r} has no why"
            assert claim.paper.strip(), f"{e.id}: {claim.text!r} does not say what the paper says"
