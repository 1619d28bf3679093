"""westwood: a deterministic packet-level TCP simulator (Rust core) with a Python front end.

>>> import westwood
>>> result = westwood.run("wireless", overrides={"loss": "1%", "duration": "10s"})
>>> result.flows[["name", "cc", "goodput_bps"]]
>>> sweep = westwood.sweep("wireless", {"loss": ["0%", "1%"]}, seeds=2, out="sweeps/loss")
>>> sweep.dataframe()  # one row per run (results.parquet)
>>> westwood.replay("runs/w1/acks.csv", cc=["westwood", "westwood-abse"]).summary()

Importing the package is cheap: the public names below are imported when first used (PEP 562),
and pandas, matplotlib and dask only when a function that needs them runs. So ``westwood run``,
whose command line imports this package first, loads only what one run needs
(``tests/test_imports.py`` checks it).
"""

from __future__ import annotations

from .version import __version__

TYPE_CHECKING = False  # not typing's: importing typing alone costs a run ~2 ms
if TYPE_CHECKING:  # what the lazy names are, for type checkers and readers
    from typing import Any

    from ._core import ScenarioError, StrictError
    from .api import RunResult, run
    from .replay import ReplayResult, replay
    from .sweeps import SweepResult, sweep

# Public name -> the module that defines it.
_LAZY = {
    "ScenarioError": "._core",
    "StrictError": "._core",
    "RunResult": ".api",
    "run": ".api",
    "ReplayResult": ".replay",
    "replay": ".replay",
    "SweepResult": ".sweeps",
    "sweep": ".sweeps",
}

__all__ = [
    "ReplayResult",
    "RunResult",
    "ScenarioError",
    "StrictError",
    "SweepResult",
    "replay",
    "run",
    "sweep",
    "__version__",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'westwood' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value  # the next lookup is an ordinary attribute
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))


def _keep_functions_over_submodules() -> None:
    """``westwood.replay`` is a function defined in the submodule ``westwood.replay``. Importing
    that submodule (``from westwood.replay import ...``, anywhere) makes the import system set the
    package's attribute ``replay`` to the module, which would hide the function from then on; the
    package ignores that assignment, so the name always resolves through ``__getattr__``."""
    import sys
    from types import ModuleType

    class Package(ModuleType):
        def __setattr__(self, name: str, value: object) -> None:
            if isinstance(value, ModuleType) and _LAZY.get(name) == "." + name:
                return
            super().__setattr__(name, value)

    sys.modules[__name__].__class__ = Package


_keep_functions_over_submodules()
