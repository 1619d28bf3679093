"""The ``westwood`` command's entry point.

``westwood run`` with plain arguments (``run_command.plain_arguments``) goes straight to the run;
everything else, including a run's command line that needs argparse to be read or reported, goes
to the full command line (``cli.main``). A plain run so imports neither argparse nor the other
commands' modules: its start-up is a small part of the whole process (docs/performance.md).
"""

from __future__ import annotations

import sys

from .exits import finish

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Optional, Sequence


def main(argv: Optional[Sequence[str]] = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["run"]:
        from .run_command import plain_arguments

        args = plain_arguments(arguments[1:])
        if args is not None:
            return finish(args.func, args)
    from .cli import main as parse_and_run

    return parse_and_run(arguments)
