"""Errors the CLI reports as ``westwood: error: <message>`` (exit status 2)."""


class UsageError(ValueError):
    """Bad input from the user that is not a scenario problem (those are ScenarioError)."""


class WriteError(OSError):
    """A result file or directory could not be written (disk full, no permission, read-only
    filesystem). It names the file the user asked for, never the temporary file beside it that
    was being written, so that the CLI can say where: ``cannot write PATH: <reason>``.

    An OSError still (``errno`` is kept), so callers that catch OSError go on working."""

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}"


class RunFailed(Exception):
    """A run of a sweep or reproduction failed and the caller asked to stop at the first failure
    (``runs.runner.run_all(stop_on_error=True)``). Here, not in ``runs.runner``, so that the
    command line can catch it without importing the run engine (and its process pools) for a
    single ``westwood run``."""

    def __init__(self, job, entry) -> None:
        super().__init__(str(entry.get("error", "run failed")))
        self.job = job
        self.entry = entry
