"""`westwood docs` (issue 33): the pages help texts name travel in the package."""

from __future__ import annotations

import os

from conftest import REPO, cli
from westwood import manual


def test_every_page_is_in_the_package_and_nothing_else():
    """westwood/docs/ holds a link to each docs/*.md (the wheel carries the files they point
    to); a page added to docs/ without its link would be missing from every installation."""
    pages = sorted(p.name for p in (REPO / "docs").glob("*.md"))
    links = sorted(p.name for p in manual.pages_directory().iterdir())
    assert links == pages, "add or remove the links in python/westwood/docs/"
    for name in links:
        link = manual.pages_directory() / name
        assert link.is_symlink() and os.readlink(link) == f"../../../docs/{name}"


def test_list_print_and_refuse():
    listing = cli("docs")
    assert listing.returncode == 0
    assert "testbed  " in listing.stdout and "Testbed" in listing.stdout
    for topic in ("scenarios", "scenarios.md", "docs/scenarios.md"):
        page = cli("docs", topic)
        assert page.returncode == 0
        assert page.stdout == (REPO / "docs" / "scenarios.md").read_text(encoding="utf-8")
    path = cli("docs", "scenarios", "--path")
    assert path.stdout.strip().endswith("scenarios.md")
    missing = cli("docs", "nope")
    assert missing.returncode == 2 and "no page 'nope'; the pages are: ack-trace" in missing.stderr


def test_the_pages_as_json():
    import json

    listing = cli("docs", "--json")
    assert listing.returncode == 0
    pages = json.loads(listing.stdout)
    assert {"topic": "testbed", "title": manual.title(REPO / "docs" / "testbed.md")}.items() <= {
        k: v for k, v in next(p for p in pages if p["topic"] == "testbed").items() if k != "path"
    }.items()
    assert [p["topic"] for p in pages] == sorted(p["topic"] for p in pages)
    assert cli("docs", "testbed", "--json").returncode == 2
