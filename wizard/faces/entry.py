"""The `hermes-wizard` console script (and `python -m hermes_wizard`): `check` and the pre-start gate first, the
full command line for everything else.

`check --gate` runs before every start of the gateway and `check` before many, so they are recognised
here, before argparse loads: wizard/faces/fastargs.py reads their plain spellings, and anything else
(help, abbreviations, mistakes) goes to the full parser, which says what is wrong.

`console` is what the script and `python -m hermes_wizard` run: `main`, then the process ends.
Each face is imported lazily, once `main` knows the command: the gate never loads `check`'s engine, and neither
loads the full command line; the error contract (faces/contract.py) is imported lazily too, for a flush that
failed.
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
            from hermes_wizard.faces.gate import fast_args, run_gate

            gate = fast_args(argv[1:])
            if gate is not None:
                return run_gate(gate)
        else:
            from hermes_wizard.faces.fastargs import check_args

            plain_check = check_args(argv[1:])
            if plain_check is not None:
                from hermes_wizard.faces.check import run_check

                return run_check(plain_check)
    from hermes_wizard.faces.cli import main as command_line

    return command_line(argv)


def console() -> NoReturn:
    """Run `main` on sys.argv and end the process with its exit code.

    What is buffered is flushed here, for every command: a report that cannot be written (a full disk)
    exits 74 with one line, as when the failure comes while writing (wizard/faces/contract.py), where
    the interpreter's own last flush would print "Exception ignored" and exit 120; a reader that left
    (`check | head`) keeps the exit code.

    A check then ends with os._exit: the interpreter's orderly teardown (freeing every module and object,
    a last cycle collection) costs about 7 ms here even after only `import yaml, dotenv`
    (benchmarks/bench_check.py measures it), which is a tenth of a check, and a check has nothing to
    tear down: it writes no file, and its temporary copies (`--verify`) are removed before it returns.
    Every other command exits the usual way (atexit handlers, buffered files)."""
    try:
        code = main()
    except SystemExit as exited:  # argparse: usage errors and --help (its message is already written)
        if not isinstance(exited.code, int):
            raise
        code = exited.code
    code = _flushed(code)
    if sys.argv[1:2] == ["check"]:
        os._exit(code)
    sys.exit(code)


def _flushed(code: int) -> int:
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()
    except (OSError, ValueError) as exc:
        from hermes_wizard.faces.contract import report_output_error  # a failed flush only: the gate never loads it

        code = report_output_error(getattr(exc, "strerror", None) or str(exc))
        _discard_stdout()
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
    except (OSError, ValueError):  # nowhere left to say it: the exit code stands
        pass
    return code


def _discard_stdout() -> None:
    """What stdout still holds goes to /dev/null: the interpreter's last flush (for a command that exits
    the usual way) would fail again and print "Exception ignored" (the remedy Python's docs give for
    SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
