"""The gate drop-in, and the Restart=on-failure fallback for older systemd.

Hermes rewrites `hermes-gateway.service` on every install/start/restart and at every boot
(hermes-cli.md §3.6), so the repair lives beside it, in `<unit>.d/`, which Hermes never
touches.  Two variants, never both (installing one removes the other):

`hermes-wizard-gate.conf` (systemd >= 251)
    ExecCondition= runs `hermes-wizard check --gate --home <the unit's home>` before every
    start.  Only the gate's exit 78 (Hermes would refuse) reaches systemd; every other
    outcome — wizard uninstalled, not executable, crashed, timed out — becomes exit 0 and
    the gateway starts as if we were not there.  (A bare missing command would exit 203
    and skip the start: the shell wrapper is the guard.)

`hermes-wizard-restart.conf` (systemd < 251)
    Restart=on-failure and RestartPreventExitStatus=0: the 0-exit refusal is no longer
    restarted, crashes still are, and RestartForceExitStatus=75 still forces Hermes's planned
    restarts.  Restart=on-failure alone is not enough once Hermes renders `Type=notify` (0.20.1
    on, with a watchdog; it may rewrite the unit that way at any start): a gateway that exits
    before READY=1 fails its start (`Result=protocol`), which on-failure restarts — measured on
    systemd 252.  An exit status in RestartPreventExitStatus= is never restarted, whatever the
    result (src/core/service.c service_shall_restart checks it first), so exit 0 covers both
    shapes; a watchdog kill (SIGABRT) or a crash is no exit 0 and is still restarted.

Both add RestartPreventExitStatus=78 (a list setting: a drop-in appends to it).

Why 251: ExecCondition= exists since systemd 243 (NEWS, "CHANGES WITH 243": exit codes
1-254 "stop execution without marking the unit failed").  But until 250 a failing
ExecCondition= under Restart=always was restarted anyway — a tight loop (systemd issue
#22257); fixed by PR #22259, NEWS "CHANGES WITH 251": "Services with Restart=always and a
failing ExecCondition= will no longer be restarted".  In src/core/service.c,
service_shall_restart() returns `s->result != SERVICE_SKIP_CONDITION` for
SERVICE_RESTART_ALWAYS, and service_start() resets main_exec_status first, so a previous
exit 75 cannot force a restart of a skipped start.  (Restart=on-failure stopped
restarting skipped starts in 246, PR #16133; our fallback does not rely on it.)
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

from hermes_wizard.service.common import FALLBACK_DROPIN, GATE_DROPIN, MIN_GATE, Unit
from hermes_wizard.service.dropdir import DropinFolder

GATE_TIMEOUT_S = 30  # generous: a cold Python on a slow SD card; the gate takes ~0.1 s
# Nothing systemd or sh would reinterpret: letters and digits of any script (so /home/josé has
# a gate), and /._@+,:=- and space.  Matched whole (fullmatch): `$` would let a trailing
# newline through, which splits the ExecCondition= line and silently disables the gate.
SAFE_PATH = re.compile(r"/[\w./@+,:= -]*")


class DropinError(Exception):
    """The drop-in cannot be written as asked; the message says what to do."""


def variant_for(version: int | None) -> str:
    """"gate" from systemd 251 on; "fallback" below it.  Unknown (dry run, no systemctl) →
    "gate": every supported distribution since 2022 ships >= 251."""
    return "fallback" if version is not None and version < MIN_GATE else "gate"


def gate_command(wizard: Path | str, home: Path | str) -> str:
    """The ExecCondition= value: a /bin/sh one-liner exiting 78 only when the gate does."""
    return f"/bin/sh -c '{gate_script(wizard, home)}'"


def gate_script(wizard: Path | str, home: Path | str) -> str:
    """The shell script of the ExecCondition= value, as the unit file holds it: `$$` is systemd's escape for a
    literal `$` (wizard/service/gate_proof.py runs it with that undone)."""
    for label, value in (("the hermes-wizard path", str(wizard)), ("the Hermes home", str(home))):
        if not SAFE_PATH.fullmatch(value):
            raise DropinError(f"{label} {value!r} holds characters a unit file would reinterpret "
                              "(quotes, $, %, \\, `); use a path of letters, digits, /._-@+,:= and spaces")
    return (f'w="{wizard}"; [ -x "$$w" ] || exit 0; '
            f't=; command -v timeout >/dev/null 2>&1 && t="timeout {GATE_TIMEOUT_S}"; '
            f'$$t "$$w" check --gate --home "{home}"; '
            '[ $$? -eq 78 ] && exit 78; exit 0')


def gate_text(unit: Unit, wizard: Path | str) -> str:
    assert unit.home is not None, "render() refuses a unit whose home is unknown"
    return (f"# Written by hermes-wizard for {unit.name}. Hermes rewrites the unit itself, never this\n"
            "# directory. Before each start the gate checks Hermes's refusal rule: when Hermes would\n"
            "# refuse (and, exiting 0, be restarted forever) the start is skipped with one journal line\n"
            "# naming the fix; systemd >= 251 does not restart a skipped start. If hermes-wizard is\n"
            "# missing or fails, the gateway starts as usual. Undo: delete this file, daemon-reload.\n"
            "[Service]\n"
            f"ExecCondition={gate_command(wizard, unit.home)}\n"
            "RestartPreventExitStatus=78\n")


def fallback_text(unit: Unit) -> str:
    return (f"# Written by hermes-wizard for {unit.name} (systemd < 251 restarts a start skipped by\n"
            "# ExecCondition= under Restart=always, so the gate cannot be used). Hermes's open-policy\n"
            "# refusal exits 0: neither on-failure nor exit status 0 is restarted (under Type=notify an\n"
            "# exit before READY=1 is a failed start, so 0 is named too); crashes, watchdog kills and\n"
            "# exit 75 (planned restart) still restart. Undo: delete this file, daemon-reload.\n"
            "[Service]\n"
            "Restart=on-failure\n"
            "RestartPreventExitStatus=0 78\n")


def render(unit: Unit, variant: str, wizard: Path | str | None = None) -> tuple[str, str]:
    """(file name, contents) of the drop-in `variant` for `unit`."""
    if unit.manager != "systemd":
        raise DropinError(f"{unit.path} is a {unit.label}: drop-ins are a systemd feature")
    if variant == "fallback":
        return FALLBACK_DROPIN, fallback_text(unit)
    if unit.home is None:
        raise DropinError(f"cannot tell which Hermes home {unit.name} runs; pass it with --home")
    if wizard is None:
        raise DropinError("cannot find the installed hermes-wizard command; pass --wizard-path")
    return GATE_DROPIN, gate_text(unit, wizard)


def find_wizard(argv0: str | None = None) -> Path | None:
    """The absolute path of an installed `hermes-wizard` console script: this process's own
    (argv[0]), else the one beside this interpreter (a venv), else the first on PATH."""
    argv0 = argv0 if argv0 is not None else sys.argv[0]
    candidates = [Path(argv0)] if Path(argv0).name == "hermes-wizard" else []
    candidates.append(Path(sys.executable).parent / "hermes-wizard")
    found = shutil.which("hermes-wizard")
    if found:
        candidates.append(Path(found))
    for candidate in candidates:
        path = candidate.expanduser().absolute()
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


def install(unit: Unit, variant: str, wizard: Path | str | None = None, folder: DropinFolder | None = None) -> Path:
    """Write the drop-in atomically, 0644 like the unit, and remove our other variant (only when it
    is ours: a regular file with our header).  Other drop-ins in the directory are never touched.
    Everything happens through one opened folder (wizard/service/dropdir.py: `folder`, else opened
    here), so a symlinked or foreign folder is refused (an OSError) with nothing written."""
    name, text = render(unit, variant, wizard)
    if folder is None:
        with DropinFolder(unit.path) as opened:
            return install(unit, variant, wizard, opened)
    written = folder.write(name, text.encode("utf-8"))
    folder.remove_ours(FALLBACK_DROPIN if name == GATE_DROPIN else GATE_DROPIN)
    return written


def current(unit: Unit, variant: str, wizard: Path | str | None = None) -> bool:
    """True when the drop-in on disk is already exactly what `install` would write (read through the
    same checks as a write: a symlinked or foreign folder holds nothing of ours)."""
    try:
        name, text = render(unit, variant, wizard)
        with DropinFolder(unit.path) as folder:
            return folder.read(name) == text.encode("utf-8")
    except (DropinError, OSError):
        return False
