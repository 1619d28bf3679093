"""``westwood docs [TOPIC]``: the project's documentation from the installed package.

Help texts name pages as ``docs/NAME.md``; a wheel has no clone beside it, so the pages travel
inside the package (``westwood/docs/``: links to the repository's ``docs/*.md``, which the
wheel carries as files) and this command lists them or prints one.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Dict, List

from .errors import UsageError


def pages_directory() -> Path:
    """Where the installed package keeps the pages."""
    return Path(__file__).resolve().parent / "docs"


def pages() -> Dict[str, Path]:
    """Every page by topic (its file name without ``.md``), sorted."""
    found = {p.stem: p for p in pages_directory().glob("*.md")}
    return dict(sorted(found.items()))


def title(path: Path) -> str:
    """A page's first heading."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                return line.lstrip("#").strip()
    return ""


def topic_of(text: str) -> str:
    """``testbed``, ``testbed.md`` and ``docs/testbed.md`` (as help texts name pages) alike."""
    name = text.strip().rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name


def listing() -> List[str]:
    found = pages()
    width = max((len(t) for t in found), default=0)
    return [f"{t.ljust(width)}  {title(p)}" for t, p in found.items()]


def add_parser(sub) -> None:
    p = sub.add_parser(
        "docs",
        help="read the documentation pages that help texts name (docs/NAME.md)",
        description="List the documentation pages shipped in the package, or print one: "
        "`westwood docs testbed` (also `testbed.md` or `docs/testbed.md`, as help texts name "
        "pages). --path prints where the page is, to open it in an editor or a browser.",
    )
    p.add_argument("topic", nargs="?", help="a page, e.g. scenarios or docs/scenarios.md")
    p.add_argument("--path", action="store_true", help="print the page's path, not its text")
    p.add_argument("--json", action="store_true", help="list the pages as JSON: topic, title, path")
    p.set_defaults(func=cmd_docs)


def cmd_docs(args) -> int:
    found = pages()
    if not found:
        raise UsageError(
            f"no documentation in {pages_directory()}: this installation has no pages "
            "(reinstall the package, or read docs/ in a clone)"
        )
    if args.json:
        if args.topic is not None:
            raise UsageError("docs --json lists the pages; give no TOPIC")
        import json

        rows = [{"topic": t, "title": title(p), "path": str(p)} for t, p in found.items()]
        print(json.dumps(rows))
        return 0
    if args.topic is None:
        if args.path:
            print(pages_directory())
            return 0
        print("Documentation pages (`westwood docs TOPIC`):")
        for line in listing():
            print(f"  {line}")
        return 0
    topic = topic_of(args.topic)
    if topic not in found:
        raise UsageError(f"docs: no page {args.topic!r}; the pages are: {', '.join(found)}")
    if args.path:
        print(found[topic])
    else:
        sys.stdout.write(found[topic].read_text(encoding="utf-8"))
    return 0
