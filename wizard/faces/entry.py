"""The `hermes-wizard` console script (and `python -m wizard`): the pre-start gate first, the full
command line for everything else.

`check --gate` runs before every start of the gateway, so it is recognised here, before the command
line module and its imports load (wizard/faces/gate.py reads its few flags itself).
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["check"] and "--gate" in argv:
        from wizard.faces.gate import fast_args, run_gate

        fast = fast_args(argv[1:])
        if fast is not None:
            return run_gate(fast)
    from wizard.faces.cli import main as command_line

    return command_line(argv)
