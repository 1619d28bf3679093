"""westwood: a deterministic packet-level TCP simulator (Rust core) with a Python front end.

>>> import westwood
>>> result = westwood.run("wireless", overrides={"loss": "1%", "duration": "10s"})
>>> result.flows[["name", "cc", "goodput_bps"]]

Importing the package is cheap: pandas and matplotlib are imported only when a function that
needs them runs.
"""

from ._core import ScenarioError
from .api import RunResult, run

__version__ = "0.1.0"

__all__ = ["RunResult", "ScenarioError", "run", "__version__"]
