"""Finding scenario files: a path as given, or a bare name such as ``wireless``.

A bare name ``NAME`` (no directory part) resolves to ``NAME.toml`` in, in order: the directories
listed in ``$WESTWOOD_SCENARIOS`` (``os.pathsep``-separated), the repository's ``scenarios/``
directory (found by walking up from this package), and ``./scenarios``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Union

ScenarioLike = Union[str, "os.PathLike[str]"]


def scenario_dirs() -> List[Path]:
    """Directories searched for bare scenario names, in order."""
    dirs: List[Path] = []
    for entry in os.environ.get("WESTWOOD_SCENARIOS", "").split(os.pathsep):
        if entry:
            dirs.append(Path(entry))
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "scenarios"
        if candidate.is_dir():
            dirs.append(candidate)
            break
    dirs.append(Path.cwd() / "scenarios")
    unique: List[Path] = []
    for d in dirs:
        if d not in unique:
            unique.append(d)
    return unique


def resolve_scenario(scenario: ScenarioLike) -> Path:
    """The scenario file for a path or a bare name; FileNotFoundError if there is none."""
    path = Path(scenario)
    if path.is_file():
        return path
    text = os.fspath(scenario)
    is_bare = path.name == text and text not in ("", ".", "..")
    if is_bare:
        stem = text[: -len(".toml")] if text.endswith(".toml") else text
        dirs = scenario_dirs()
        for d in dirs:
            candidate = d / f"{stem}.toml"
            if candidate.is_file():
                return candidate
        looked = ", ".join(str(d) for d in dirs)
        raise FileNotFoundError(
            f"{text}: scenario not found (no such file, and no {stem}.toml in {looked}; "
            "set WESTWOOD_SCENARIOS to add directories)"
        )
    raise FileNotFoundError(f"{text}: scenario file not found")
