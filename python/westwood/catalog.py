"""``westwood scenarios``: what scenarios a bare name can reach, and copying one out to edit.

An installed wheel hides its scenario files inside site-packages, so users need a way to see
the names, what each models, which parameters it takes (with defaults), and to get an editable
copy. Only ``[scenario] description`` and ``[parameters]`` are read, with a small line-based
reader: it keeps each parameter's trailing comment (its documentation in our files, which a TOML
parser drops) and needs no ``tomli`` on Python 3.9/3.10.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, NamedTuple, Optional, Tuple

from .errors import UsageError
from .paths import known_scenarios, resolve_scenario

_TABLE = re.compile(r"^\s*\[([^\[\]]+)\]\s*(#.*)?$")
_KEY_VALUE = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*=\s*(.*?)\s*$")


class Parameter(NamedTuple):
    name: str
    default: str
    comment: str


class Summary(NamedTuple):
    description: str
    parameters: List[Parameter]


def _split_comment(value: str) -> Tuple[str, str]:
    """``"reno"   # the cc`` -> (``"reno"``, ``the cc``): a ``#`` outside a quoted string starts
    the comment (a backslash escapes the next character only in a ``"`` string)."""
    quote: Optional[str] = None
    escaped = False
    for i, ch in enumerate(value):
        if escaped:
            escaped = False
        elif quote == '"' and ch == "\\":
            escaped = True
        elif quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return value[:i].rstrip(), value[i + 1 :].strip()
    return value.rstrip(), ""


def _unquote(value: str) -> str:
    """A simple TOML string as its text (``"2Mbps"`` -> ``2Mbps``); anything else as written."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def read_summary(path: Path) -> Summary:
    """The description and the parameters (name, default, comment) of a scenario file."""
    description = ""
    parameters: List[Parameter] = []
    table = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        header = _TABLE.match(line)
        if header:
            table = header.group(1).strip()
            continue
        pair = _KEY_VALUE.match(line)
        if not pair or table not in ("scenario", "parameters"):
            continue
        value, comment = _split_comment(pair.group(2))
        if table == "scenario" and pair.group(1) == "description":
            description = _unquote(value)
        elif table == "parameters":
            parameters.append(Parameter(pair.group(1), _unquote(value), comment))
    return Summary(description, parameters)


def format_listing() -> str:
    """Every reachable name: origin and file, description, then one line per parameter."""
    found = known_scenarios()
    if not found:
        return "no scenarios found"
    lines: List[str] = []
    for name, (path, origin) in found.items():
        summary = read_summary(path)
        lines.append(f"{name}  [{origin}: {path}]")
        if summary.description:
            lines.append(f"    {summary.description}")
        width = max((len(p.name) + len(p.default) for p in summary.parameters), default=0)
        for p in summary.parameters:
            text = f"{p.name} = {p.default}".ljust(width + 3)
            lines.append(f"      {text}  {p.comment}".rstrip())
        lines.append("")
    return "\n".join(lines).rstrip()


def listing_json() -> List[dict]:
    """The listing as data: per name its file, origin, description and parameters."""
    rows = []
    for name, (path, origin) in known_scenarios().items():
        summary = read_summary(path)
        rows.append(
            {
                "name": name,
                "path": str(path),
                "origin": origin,
                "description": summary.description,
                "parameters": [
                    {"name": p.name, "default": p.default, "comment": p.comment}
                    for p in summary.parameters
                ],
            }
        )
    return rows


def copy_scenario(name: str, directory: Optional[str]) -> Path:
    """Write scenario ``name`` to ``directory`` (default ``./scenarios``, where a bare name
    finds it before the shipped file) and return the new path. Never overwrites: a user's
    edited copy is worth more than the shipped original."""
    source = resolve_scenario(name)
    target_dir = Path(directory) if directory else Path("scenarios")
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / source.name
    try:
        with open(target, "x", encoding="utf-8") as out:
            out.write(source.read_text(encoding="utf-8"))
    except FileExistsError:
        raise UsageError(
            f"{target} already exists; not overwriting it (remove it first, or "
            "give another directory)"
        ) from None
    return target


def main(args) -> int:
    """``westwood scenarios`` (list) and ``westwood scenarios copy NAME [DIR]``."""
    if getattr(args, "action", None) == "copy":
        target = copy_scenario(args.name, args.directory)
        print(f"wrote {target}")
        return 0
    if getattr(args, "json", False):
        import json

        print(json.dumps(listing_json()))
        return 0
    print(format_listing())
    return 0
