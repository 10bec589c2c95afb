"""The `hermes-wizard` console script (and `python -m wizard`): `check` and the pre-start gate first, the
full command line for everything else.

`check --gate` runs before every start of the gateway and `check` before many, so they are recognised
here, before argparse loads: wizard/faces/fastargs.py reads their plain spellings, and anything else
(help, abbreviations, mistakes) goes to the full parser, which says what is wrong.
"""

from __future__ import annotations

import gc
import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["check"]:
        # A check lives for milliseconds and makes little cyclic garbage, and the cycle collector's passes
        # during its imports cost about a tenth of its own time: it runs without them (reference counting
        # still frees everything else; the bench holds the memory targets with 100k keys).
        gc.disable()
        if "--gate" in argv:
            from wizard.faces.gate import fast_args, run_gate

            gate = fast_args(argv[1:])
            if gate is not None:
                return run_gate(gate)
        else:
            from wizard.faces.fastargs import check_args

            plain_check = check_args(argv[1:])
            if plain_check is not None:
                from wizard.faces.cli import run

                return run(plain_check)
    from wizard.faces.cli import main as command_line

    return command_line(argv)
