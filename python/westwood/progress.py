"""Progress of a batch of runs on stderr: done/total, failures, elapsed time and ETA.

On a terminal a bar is redrawn in place (at most every ``redraw`` seconds). Elsewhere (a log, a
pipe, CI) the output stays short: a line when the batch starts, one at each quarter, one at the
end, and otherwise at most one every ``interval`` seconds.
"""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO

BAR_WIDTH = 24


def format_duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """Counts finished runs. Runs taken from the cache count as done but not towards the ETA;
    failed runs count as done (and are shown)."""

    def __init__(
        self,
        total: int,
        cached: int = 0,
        stream: Optional[TextIO] = None,
        interval: float = 600.0,
        redraw: float = 0.1,
        title: str = "",
    ) -> None:
        self.total = total
        self.cached = cached
        self.done = cached
        self.failed = 0
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.redraw = redraw
        self.start = time.monotonic()
        self._last_print = -float("inf")
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._dirty = False
        self._quarter = self._quarter_of(self.done)
        self.title = title

    def _quarter_of(self, done: int) -> int:
        return 4 * done // self.total if self.total else 4

    def eta_seconds(self) -> Optional[float]:
        computed = self.done - self.cached
        remaining = self.total - self.done
        if remaining == 0:
            return 0.0
        if computed <= 0:
            return None
        return (time.monotonic() - self.start) / computed * remaining

    def line(self) -> str:
        elapsed = time.monotonic() - self.start
        eta = self.eta_seconds()
        text = f"{self.done}/{self.total} runs"
        notes = []
        if self.cached:
            notes.append(f"{self.cached} cached")
        if self.failed:
            notes.append(f"{self.failed} failed")
        if notes:
            text += f" ({', '.join(notes)})"
        text += f", elapsed {format_duration(elapsed)}"
        text += f", ETA {format_duration(eta) if eta is not None else '?'}"
        return text

    def bar(self) -> str:
        filled = BAR_WIDTH * self.done // self.total if self.total else BAR_WIDTH
        return "[" + "#" * filled + "-" * (BAR_WIDTH - filled) + "] "

    def tick(self) -> None:
        """Nothing finished for a while: on a terminal, redraw (elapsed time and ETA move)."""
        self.show(force=self._tty)

    def show(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.title:  # once, on its own line
            self.stream.write(self.title + "\n")
            self.title = ""
        if self._tty:
            if not force and now - self._last_print < self.redraw:
                return
            self.stream.write("\r\x1b[K" + self.bar() + self.line())
            self._dirty = True
        else:
            quarter = self._quarter_of(self.done)
            if not (force or quarter > self._quarter or now - self._last_print >= self.interval):
                return
            self._quarter = quarter
            self.stream.write(self.line() + "\n")
        self._last_print = now
        self.stream.flush()

    def note(self, text: str) -> None:
        """A message on its own line (the bar, on a terminal, is redrawn below it)."""
        if self._dirty:
            self.stream.write("\r\x1b[K")
            self._dirty = False
        self.stream.write(f"westwood: {text}\n")
        self.stream.flush()
        if self._tty:
            self.show(force=True)

    def advance(self, n: int = 1, failed: bool = False) -> None:
        self.done += n
        if failed:
            self.failed += n
        self.show(force=self.done >= self.total)

    def close(self) -> None:
        if self._dirty:
            self.stream.write("\n")
            self.stream.flush()
            self._dirty = False
