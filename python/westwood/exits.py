"""How a ``westwood`` command ends: ``finish`` is the one place that turns what a command raises
into its exit status. Input errors (an invalid scenario or override, a missing file, a result
that cannot be written) are ``westwood: error: <message>`` on stderr with status 2 and no
traceback; a failed run of a sweep or reproduction exits 1, an interrupt (Ctrl-C) 130, a closed
pipe (``| head``) quietly 1. Lean on purpose: a plain ``westwood run`` ends through here.
"""

from __future__ import annotations

import os
import sys

EXIT_USAGE = 2

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable


def say(kind: str, text: str) -> None:
    """``westwood: KIND: TEXT`` on stderr, long values in ``text`` clipped: a message that
    echoes a 100 KB input whole hides what it says."""
    from .messages import clip_long_values

    print(f"westwood: {kind}: {clip_long_values(text)}", file=sys.stderr)


def finish(command: Callable[[object], int], args: object) -> int:
    """Run ``command(args)`` and return its exit status (see the module's documentation)."""
    from ._core import ScenarioError
    from .errors import RunFailed, UsageError

    try:
        return command(args)
    except BrokenPipeError:  # e.g. `westwood run ... | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except (ScenarioError, UsageError, OSError) as err:
        say("error", str(err))
        return EXIT_USAGE
    except RunFailed as err:
        say("error", f"a run failed: {err}")
        return 1
    except KeyboardInterrupt:
        print("westwood: interrupted", file=sys.stderr)
        return 130
