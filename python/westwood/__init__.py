"""westwood: a deterministic packet-level TCP simulator (Rust core) with a Python front end.

>>> import westwood
>>> result = westwood.run("wireless", overrides={"loss": "1%", "duration": "10s"})
>>> result.flows[["name", "cc", "goodput_bps"]]
>>> sweep = westwood.sweep("wireless", {"loss": ["0%", "1%"]}, seeds=2, out="sweeps/loss")
>>> sweep.dataframe()  # one row per run (results.parquet)
>>> westwood.replay("runs/w1/acks.csv", cc=["westwood", "westwood-abse"]).summary()

Importing the package is cheap: pandas and matplotlib are imported only when a function that
needs them runs.
"""

from ._core import ScenarioError
from .api import RunResult, run
from .replay import ReplayResult, replay
from .sweeps import SweepResult, sweep
from .version import __version__

__all__ = [
    "ReplayResult",
    "RunResult",
    "ScenarioError",
    "SweepResult",
    "replay",
    "run",
    "sweep",
    "__version__",
]
