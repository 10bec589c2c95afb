"""wizard/core/dotenv_parts.py: python-dotenv's own parser and variable expansion, loaded without its package's
`__init__` (dotenv.main: logging, tempfile) — the same code and the same answers, fewer imports on `check`."""

from __future__ import annotations

import subprocess
import sys

PROBE = r"""
import io, sys
from hermes_wizard.core.dotenv_parts import parse_stream, parse_variables
light = [(b.key, b.value, b.original, b.error) for b in parse_stream(io.StringIO(sys.argv[1]))]
atoms = [repr(a) for a in parse_variables("${A:-x}$B${C}")]
loaded = sorted({"dotenv", "dotenv.main", "logging", "tempfile"} & set(sys.modules))
import dotenv.parser, dotenv.variables
same = light == [(b.key, b.value, b.original, b.error) for b in dotenv.parser.parse_stream(io.StringIO(sys.argv[1]))]
same_atoms = atoms == [repr(a) for a in dotenv.variables.parse_variables("${A:-x}$B${C}")]
print(loaded, same, same_atoms, parse_stream.__code__.co_filename == dotenv.parser.parse_stream.__code__.co_filename)
"""
TRICKY = "A=1\nexport B='two words'\nC=\"multi\nline\" # note\nD\n=bad\nE=${A:-x}\n\ufeffF=\\x1b\n"


def test_the_parser_is_dotenvs_own_without_its_package():
    done = subprocess.run([sys.executable, "-c", PROBE, TRICKY], capture_output=True, text=True, timeout=60)
    assert done.stdout.split("\n")[0] == "[] True True True", done.stderr
