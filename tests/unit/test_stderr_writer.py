"""Standard error has one writer: `to_stderr` (wizard/core/safetext.py), which escapes what it writes.

Read from the source (AST) of every module of the package and the TUI: no `print(..., file=sys.stderr)`,
no `sys.stderr.write`/`writelines`, no `sys.__stderr__`, no `os.write(2, ...)`, and `sys.stderr` handed to
no printing or writing call (`parser.print_help(sys.stderr)`).  Reading stderr's facts (`isatty`, `fileno`)
is not writing.  Out of scope: the scripts that run inside Hermes's own Python and cannot import this
package (wizard/hermes/ask_hermes.py, pairing_hermes.py)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from hermes_wizard.core.safetext import to_stderr

REPO = Path(__file__).resolve().parents[2]
OWNER = REPO / "wizard" / "core" / "safetext.py"
FOREIGN = {REPO / "wizard" / "hermes" / "ask_hermes.py", REPO / "wizard" / "hermes" / "pairing_hermes.py"}
MODULES = sorted(path for path in [*(REPO / "wizard").rglob("*.py"), *(REPO / "screens").rglob("*.py")]
                 if path != OWNER and path not in FOREIGN)
WRITING = ("print", "write", "dump", "exc")  # print_help, print_usage, print_exc, writelines, json.dump...


def stderr_writes(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        text = ast.unparse(node) if isinstance(node, (ast.Call, ast.Attribute)) else ""
        if isinstance(node, ast.Attribute) and text == "sys.__stderr__":
            found.append(f"{node.lineno}: {text}")
        if not isinstance(node, ast.Call):
            continue
        called = ast.unparse(node.func)
        given = [ast.unparse(arg) for arg in node.args] + [ast.unparse(k.value) for k in node.keywords]
        if called in ("sys.stderr.write", "sys.stderr.writelines"):
            found.append(f"{node.lineno}: {text[:80]}")
        elif "sys.stderr" in given and any(word in called.split(".")[-1] for word in WRITING):
            found.append(f"{node.lineno}: {text[:80]}")
        elif called == "os.write" and node.args and ast.unparse(node.args[0]) in ("2", "sys.stderr.fileno()"):
            found.append(f"{node.lineno}: {text[:80]}")
    return found


def test_the_scan_sees_each_way_of_writing_stderr():
    sample = ("import os, sys\nprint('x', file=sys.stderr)\nsys.stderr.write('x')\nparser.print_help(sys.stderr)\n"
              "os.write(2, b'x')\nsys.__stderr__.write('x')\ntraceback.print_exc(file=sys.stderr)\n")
    assert len(stderr_writes(sample)) == 6
    assert stderr_writes("import os, sys\nos.isatty(sys.stderr.fileno())\n_isatty(sys.stderr)\nprint('x')\n") == []


def test_only_the_one_writer_writes_stderr():
    assert len(MODULES) > 50
    offenders = {str(path.relative_to(REPO)): hits for path in MODULES if (hits := stderr_writes(path.read_text()))}
    assert offenders == {}


def test_the_writer_escapes_what_it_writes(capsys):
    to_stderr("hermes-wizard: no such home: /h\x1b]52;c;aGk=\x07\u202e\nnext line")
    to_stderr("usage: ...\n", end="")
    assert capsys.readouterr().err == ("hermes-wizard: no such home: /h\\x1b]52;c;aGk=\\x07\\u202e\nnext line\n"
                                       "usage: ...\n")


def test_argparse_errors_reach_stderr_escaped():
    """argparse quotes a stray argument raw ("unrecognized arguments: ..."): through the one writer an OSC 52
    sequence in it (a clipboard write) is shown escaped, not sent to the terminal."""
    done = subprocess.run([sys.executable, "-m", "hermes_wizard", "check", "stray\x1b]52;c;aGk=\x07"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "unrecognized arguments: stray\\x1b]52;c;aGk=\\x07" in done.stderr and "\x1b" not in done.stderr
