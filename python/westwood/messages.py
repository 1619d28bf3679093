"""Error messages of a readable size, whatever the input.

Messages quote what the user gave (``--set 'loss=lots'``, ``links.wired.rate: "fast"``), which
is what makes them useful, until the input is 100 KB long: the message then floods the terminal
and buries what it says. ``clip_long_values`` shortens each value quoted in a message (and any
other unbroken run of characters) longer than ``LIMIT`` to its first ``KEEP`` characters and its
size, ``'xxxx… (100000 bytes)'``, and caps the whole message at ``MAX_MESSAGE`` characters.
"""

from __future__ import annotations

import re

LIMIT = 200  # characters of one value a message quotes whole
KEEP = 80  # characters kept of a longer one
MAX_MESSAGE = 4000  # characters of a whole message (many short values can add up too)

# A quoted value on one line, as Python's repr() and Rust's Debug write it: '...' or "...",
# with backslash escapes.
_QUOTED = re.compile(r"""(['"])((?:\\.|(?!\1)[^\\\n])*)\1""")
# Any other unbroken run of characters too long to be anything but a value (less the
# punctuation that ends it in the sentence: "--set KEY: unknown").
_LONG_WORD = re.compile(r"\S{%d,}?(?=[:;,.)\]]*(?:\s|$))" % (LIMIT + 1))


def clip(value: str, keep: int = KEEP) -> str:
    """``value``'s first ``keep`` characters and its size in bytes (UTF-8)."""
    size = len(value.encode("utf-8", "surrogatepass"))
    return f"{value[:keep]}… ({size} bytes)"


def _clip_quoted(match: "re.Match[str]") -> str:
    quote, inner = match.group(1), match.group(2)
    return f"{quote}{clip(inner)}{quote}" if len(inner) > LIMIT else match.group(0)


def clip_long_values(message: str) -> str:
    """``message`` with every quoted value and unbroken word over ``LIMIT`` characters
    shortened, and at most ``MAX_MESSAGE`` characters long; short messages are unchanged."""
    if len(message) <= LIMIT:
        return message
    text = _QUOTED.sub(_clip_quoted, message)
    text = _LONG_WORD.sub(lambda m: clip(m.group(0)), text)
    if len(text) > MAX_MESSAGE:
        text = clip(text, MAX_MESSAGE)
    return text
