"""A done/total progress line with elapsed time and ETA, on stderr."""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO


def format_duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """Counts finished runs. Runs taken from the cache count as done but not towards the ETA.

    On a terminal the line is redrawn in place; otherwise a line is printed at most every
    ``interval`` seconds (and always for the last run), so logs stay short.
    """

    def __init__(
        self, total: int, cached: int = 0, stream: Optional[TextIO] = None, interval: float = 5.0
    ) -> None:
        self.total = total
        self.cached = cached
        self.done = cached
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.start = time.monotonic()
        self._last_print = -float("inf")
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._dirty = False

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
        if self.cached:
            text += f" ({self.cached} cached)"
        text += f", elapsed {format_duration(elapsed)}"
        text += f", ETA {format_duration(eta) if eta is not None else '?'}"
        return text

    def show(self, force: bool = False) -> None:
        now = time.monotonic()
        if not (force or self._tty or now - self._last_print >= self.interval):
            return
        self._last_print = now
        if self._tty:
            self.stream.write("\r\x1b[K" + self.line())
            self._dirty = True
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def advance(self, n: int = 1) -> None:
        self.done += n
        self.show(force=self.done >= self.total)

    def close(self) -> None:
        if self._dirty:
            self.stream.write("\n")
            self.stream.flush()
            self._dirty = False
