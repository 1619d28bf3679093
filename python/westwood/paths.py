"""Finding scenario files: a path as given, or a bare name such as ``wireless``.

A scenario argument resolves, in order, to:

1. the path as given, if it is an existing file;
2. for a bare name ``NAME`` (no directory part, ``.toml`` optional), ``NAME.toml`` in the
   directories listed in ``$WESTWOOD_SCENARIOS`` (``os.pathsep``-separated), then in
   ``./scenarios`` (the current directory's), then in the scenarios shipped inside this package
   (``westwood/scenarios``).

The package's scenarios are what makes a bare name work from an installed wheel, anywhere. In a
clone, the repository's ``scenarios/`` is a symlink to them, so it is the same files. Earlier
directories win, so a scenario of the same name in ``./scenarios`` or ``$WESTWOOD_SCENARIOS``
overrides the shipped one (``westwood scenarios copy NAME`` writes one out to edit). A name
found nowhere is refused with the closest known names suggested.
"""

from __future__ import annotations

import os

# `westwood run` resolves its scenario through this module on every start, so it works on
# strings with os.path and imports neither pathlib (which brings urllib and ipaddress) nor
# typing: together they cost a run more start-up than a small scenario's simulation
# (docs/performance.md). The functions other modules use still return Paths.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Dict, List, Tuple, Union

    ScenarioLike = Union[str, "os.PathLike[str]"]

_PACKAGE_SCENARIOS_DIR = os.path.join(os.path.dirname(os.path.realpath(__file__)), "scenarios")


def __getattr__(name: str):
    """``PACKAGE_SCENARIOS`` (a Path) and the ``ScenarioLike`` alias, built when first asked
    for (PEP 562): building them imports pathlib and typing."""
    if name == "PACKAGE_SCENARIOS":
        from pathlib import Path

        value = Path(_PACKAGE_SCENARIOS_DIR)
    elif name == "ScenarioLike":
        from typing import Union

        value = Union[str, "os.PathLike[str]"]
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def _sources() -> List[Tuple[str, str]]:
    """``scenario_sources`` as strings."""
    sources = [
        (entry, "env")
        for entry in os.environ.get("WESTWOOD_SCENARIOS", "").split(os.pathsep)
        if entry
    ]
    sources.append((os.path.join(os.getcwd(), "scenarios"), "cwd"))
    sources.append((_PACKAGE_SCENARIOS_DIR, "package"))
    unique: List[Tuple[str, str]] = []
    seen = set()
    for directory, origin in sources:
        key = _same_file_key(directory)
        if key not in seen:  # ./scenarios in a clone *is* the package's: list it once
            seen.add(key)
            unique.append((directory, origin))
    return unique


def scenario_sources() -> List[Tuple[Path, str]]:
    """Directories searched for bare names, in order, each with where it comes from (``env``,
    ``cwd``, ``package``) so a listing can say which file a name would use and why."""
    from pathlib import Path

    return [(Path(directory), origin) for directory, origin in _sources()]


def _same_file_key(directory: str) -> str:
    """A key equal for two spellings of one directory (symlinks resolved), so the clone's
    ``scenarios`` symlink and the package directory count once."""
    try:
        return os.path.realpath(directory)
    except (OSError, ValueError):
        return directory


def known_scenarios() -> Dict[str, Tuple[Path, str]]:
    """Every bare name that resolves, mapped to its file and that file's origin: the first
    directory holding ``NAME.toml`` wins, as in ``resolve_scenario``."""
    found: Dict[str, Tuple[Path, str]] = {}
    for directory, origin in scenario_sources():
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.toml")):
            if path.is_file():
                found.setdefault(path.stem, (path, origin))
    return dict(sorted(found.items()))


def resolve_scenario(scenario: ScenarioLike) -> Path:
    """The scenario file for a path or a bare name; FileNotFoundError if there is none."""
    from pathlib import Path

    return Path(find_scenario(scenario))


def find_scenario(scenario: ScenarioLike) -> str:
    """``resolve_scenario``'s file as a string (what a run hands the core)."""
    text = os.fspath(scenario)
    if not isinstance(text, str):  # as pathlib refuses it
        raise TypeError(f"a scenario is a str or an os.PathLike of str, not {type(text).__name__}")
    if os.path.isfile(text):
        return text
    is_bare = os.path.basename(text) == text and text not in ("", ".", "..")
    if not is_bare:
        raise FileNotFoundError(f"{text}: scenario file not found")
    stem = text[: -len(".toml")] if text.endswith(".toml") else text
    dirs = [directory for directory, _ in _sources()]
    for d in dirs:
        candidate = os.path.join(d, f"{stem}.toml")
        if os.path.isfile(candidate):
            return candidate
    raise FileNotFoundError(_not_found_message(text, stem, dirs))


def _not_found_message(text: str, stem: str, dirs: List[str]) -> str:
    """One line: the likely typo first (``did you mean wireless?``), then where we looked."""
    import difflib

    close = difflib.get_close_matches(stem, list(known_scenarios()), n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    looked = ", ".join(str(d) for d in dirs)
    return (
        f"{text}: scenario not found ({hint}no such file, and no {stem}.toml in {looked}; "
        "`westwood scenarios` lists the names, WESTWOOD_SCENARIOS adds directories)"
    )
