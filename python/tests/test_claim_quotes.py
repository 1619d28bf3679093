"""Every claim says what the paper says in the paper's own words: each passage a claim quotes
("...") is found in the seed text it cites, and every claim of a simulated experiment says
where in the paper it comes from and why it is judged as it is.

The seed texts are the project's specification, beside the clone as ../shared/seeds/ (see the
developers' guide); where a checkout has no such folder, the quote check is skipped and says so.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from westwood.experiments import registry

SEEDS = Path(__file__).resolve().parents[2].parent / "shared" / "seeds"
QUOTE = re.compile(r'"([^"]+)"')
SIMULATED = [e for e in registry.EXPERIMENTS.values() if e.kind != "testbed"]


def normalize(text: str) -> str:
    """Lower case, one kind of quote and dash, no TeX dollars, single spaces."""
    text = text.replace("\u201c", '"').replace("\u201d", '"').replace("\u2019", "'")
    text = text.replace("\u2013", "-").replace("\u2014", "-").replace("$", "")
    return " ".join(text.lower().split())


def seed_text(experiment) -> str:
    match = re.search(r"seed (\d{3})", experiment.paper)
    assert match, f"{experiment.id}: its paper field names no seed ({experiment.paper!r})"
    files = sorted(SEEDS.glob(f"{match.group(1)}_*.txt"))
    assert files, f"no seed text {match.group(1)}_*.txt in {SEEDS}"
    return normalize(files[0].read_text(encoding="utf-8"))


def quoted_fragments(paper: str):
    """The quoted passages of a claim's ``paper`` field, each split at its ellipses."""
    for passage in QUOTE.findall(paper):
        fragments = [f.strip(" ,.;") for f in re.split(r"\.\.\.|\u2026", passage)]
        yield passage, [normalize(f) for f in fragments if f.strip(" ,.;")]


@pytest.mark.skipif(not SEEDS.is_dir(), reason=f"no seed texts beside the clone ({SEEDS})")
@pytest.mark.parametrize("experiment", registry.EXPERIMENTS.values(), ids=lambda e: e.id)
def test_every_quoted_passage_is_in_the_paper(experiment):
    if not any(QUOTE.search(claim.paper) for claim in experiment.claims):
        return  # quotes nothing (e.g. the kernel-against-simulator checks): no seed to look in
    text = seed_text(experiment)
    for claim in experiment.claims:
        for passage, fragments in quoted_fragments(claim.paper):
            at = 0
            for fragment in fragments:
                found = text.find(fragment, at)
                assert found >= 0, (
                    f"{experiment.id}: {claim.text!r} quotes {passage!r}, but "
                    f"{fragment!r} is not in the seed text (after the quote's earlier fragments)"
                )
                at = found + len(fragment)


def test_the_quote_check_finds_a_misquote():
    # The check above must be able to fail: a passage the paper does not contain.
    fig9 = registry.EXPERIMENTS["fig9"]
    if not SEEDS.is_dir():
        pytest.skip(f"no seed texts beside the clone ({SEEDS})")
    text = seed_text(fig9)
    [(_, fragments)] = list(quoted_fragments('"TCPW gains up to 567% over Reno at 1%"'))
    assert any(text.find(f) < 0 for f in fragments)
    [(_, fragments)] = list(quoted_fragments('"TCPW gains up to 394% over Reno"'))
    assert all(text.find(f) >= 0 for f in fragments)
