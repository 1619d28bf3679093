"""The HTML report in a real browser (issue 33): headless Chromium lays out a reproduction's
index.html at a phone's width (390 px) and a desktop's (1440 px); nothing may make the page
scroll sideways (wide tables scroll inside their own box), every image must load, and every
link must point at a file the report wrote.

Chromium cannot open a window narrower than 500 px, so the page is laid out in an iframe of
the width under test; a script added to a copy of the page measures it there and writes what
it found into the outer page, which `--dump-dom` prints. `make deps` installs Chromium (Debian's
`chromium`); without it the test says so and is skipped."""

from __future__ import annotations

import html.parser
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import cli

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (make deps)")

CHECK = """
window.addEventListener('load', () => {
  const width = window.innerWidth;
  const broken = [...document.images]
    .filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'));
  const wide = [...document.querySelectorAll('body *')]
    .filter(e => e.getBoundingClientRect().right > width + 1 && !e.closest('div.table'))
    .map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : ''));
  const out = document.createElement('pre');
  out.id = 'layout-check';
  out.textContent = JSON.stringify({
    width, scroll: document.documentElement.scrollWidth, broken, wide: wide.slice(0, 20)});
  (window.parent !== window ? window.parent.document.body : document.body).appendChild(out);
});
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """A reproduction's report: fig. 9 (panels, the widest claim tables) and fig. 3 (a trace)."""
    out = tmp_path_factory.mktemp("report") / "out"
    proc = cli("reproduce", "fig9", "fig3", "--quick", "--no-testbed", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


def layout(report: Path, width: int) -> dict:
    page = (report / "index.html").read_text(encoding="utf-8")
    assert "</body>" in page
    (report / "check.html").write_text(
        page.replace("</body>", f"<script>{CHECK}</script></body>"), encoding="utf-8"
    )
    frame = report / f"frame{width}.html"
    frame.write_text(
        f'<!doctype html><html><body style="margin:0"><iframe src="check.html" width="{width}" '
        'height="900" style="border:0"></iframe></body></html>',
        encoding="utf-8",
    )
    proc = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--allow-file-access-from-files",
            "--window-size=1600,1000",
            "--virtual-time-budget=10000",
            "--dump-dom",
            frame.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = re.search(r'<pre id="layout-check">([^<]*)</pre>', proc.stdout)
    assert found, f"the page reported nothing; chromium said: {proc.stderr[-2000:]}"
    return json.loads(html.unescape(found.group(1)))


@pytest.mark.parametrize("width", [390, 1440])
def test_nothing_overflows_and_every_image_loads(report, width):
    seen = layout(report, width)
    assert seen["width"] == width
    assert seen["broken"] == [], seen
    assert seen["wide"] == [], f"wider than {width} px outside a table's box: {seen['wide']}"
    assert seen["scroll"] <= width, seen


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.targets = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.targets.append(value)


def test_every_link_points_at_a_file_of_the_report(report):
    links = _Links()
    links.feed((report / "index.html").read_text(encoding="utf-8"))
    assert links.targets
    ids = set(re.findall(r'id="([^"]+)"', (report / "index.html").read_text(encoding="utf-8")))
    for target in links.targets:
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        if target.startswith("#"):
            assert target[1:] in ids, target
            continue
        assert (report / target.split("#")[0]).is_file(), target
