"""The `hermes-wizard` console script (and `python -m wizard`): `check` and the pre-start gate first, the
full command line for everything else.

`check --gate` runs before every start of the gateway and `check` before many, so they are recognised
here, before argparse loads: wizard/faces/fastargs.py reads their plain spellings, and anything else
(help, abbreviations, mistakes) goes to the full parser, which says what is wrong.

`console` is what the script and `python -m wizard` run: `main`, then the process ends.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import NoReturn


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
                from wizard.faces.check import run_check

                return run_check(plain_check)
    from wizard.faces.cli import main as command_line

    return command_line(argv)


def console() -> NoReturn:
    """Run `main` on sys.argv and end the process with its exit code.

    A check ends with os._exit once its output is flushed: the interpreter's orderly teardown (freeing
    every module and object, a last cycle collection) costs about 7 ms here even after only
    `import yaml, dotenv` (benchmarks/bench_check.py measures it), which is a tenth of a check, and a
    check has nothing to tear down: it writes no file, and its temporary copies (`--verify`) are removed
    before it returns.  Every other command exits the usual way (atexit handlers, buffered files)."""
    code = main()
    if sys.argv[1:2] == ["check"]:
        _flush_and_exit(code)
    sys.exit(code)


def _flush_and_exit(code: int) -> NoReturn:
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (BrokenPipeError, ValueError):  # the reader left (`check | head`), or the stream was closed
            pass
        except OSError:  # a full disk, a failing terminal: the exit says so, as the interpreter's own would
            code = code or 120
    os._exit(code)
