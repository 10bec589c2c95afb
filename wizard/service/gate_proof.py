"""Installing the gate proves it: the drop-in's exact command, run as the unit's user, with the unit's environment.

A gate that cannot run is worse than none: the drop-in turns "cannot execute" into exit 0 (a missing
hermes-wizard must never block a start), so the loop goes on while doctor reports the gate installed — root
installing it for a unit with `User=`, say, with hermes-wizard in a venv under /root.  So before a drop-in is
planned:
  1. its executable is chosen: the one given with `--wizard-path`, else the first of this installation's,
     Hermes's own venv's (where the plugin puts its console script) and the one on the unit's PATH whose
     `--version` runs as the unit's user with the unit's environment;
  2. the drop-in's exact ExecCondition= command runs the same way, on the home as it stands, and its exit
     (0, or 78 with the gate's journal line) is what doctor shows.
A candidate another user controls (a file, link or folder on its way that is not root's or the unit user's,
or writable by others: a root unit's gate naming a file in someone's home) is never run, as root or at all:
the gate would hand that user the unit's rights at every start.  No executable that user can run: no
drop-in, and the reason for each candidate.

The unit's user is a system unit's `User=` (root when unset) or the owner of a user unit's folder.  Its
environment is what systemd gives a service (systemd.exec(5): PATH; USER, LOGNAME, HOME, SHELL of that user)
overridden by the unit's `Environment=` lines; `EnvironmentFile=` is not read (Hermes's units have none).
Each run is confined (wizard/core/confined.py): that user's uid and groups, a session of its own without a
terminal, nothing of ours in its environment, a deadline.

Contract: never raises; `choose_and_prove` returns a GateProof whose `wizard` is None and `why_not` says why
when the unit's user can run no hermes-wizard.
"""

from __future__ import annotations

import os
import pwd
from pathlib import Path

from hermes_wizard.core import confined
from hermes_wizard.core.pathsearch import which
from hermes_wizard.core.safetext import visible
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.service import dropin
from hermes_wizard.service.common import Unit
from hermes_wizard.service.unit_user import foreign_code, unit_uid

SYSTEMD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"  # systemd.exec(5), a service's PATH
PROBE_SECONDS = 20.0  # `hermes-wizard --version`: a cold Python on a slow card
PROOF_SECONDS = dropin.GATE_TIMEOUT_S + 5.0  # the drop-in's own `timeout`, and the shell around it


@value_class
class GateProof(Value):
    wizard: Path | None  # the executable the drop-in will run (None: none the unit's user can run)
    user: str  # whom the unit runs as
    status: int | None = None  # the drop-in command's exit as that user (0 or 78); None: not run
    said: str = ""  # the gate's journal line, escaped
    why_not: str = ""  # why no candidate runs (each one's reason)

    def sentence(self, unit: Unit) -> str:
        if self.wizard is None:
            return f"Gate not planned: {self.why_not}"
        if self.status is None:
            return f"Gate not proven: {self.said}"
        verdict = {0: "it lets the gateway start", 78: "it skips the start"}.get(self.status, "")
        return (f"Gate tried as {self.user}, with {unit.name}'s environment, on the home as it stands: "
                f"`{self.wizard} check --gate` exited {self.status}" + (f" ({verdict})" if verdict else "")
                + (f": {self.said}" if self.said else ""))


def choose_and_prove(unit: Unit, asked_for: Path | None, own: Path | None, hermes_prefix: Path | None) -> GateProof:
    """The executable the unit's user can run (see the module doc), and the drop-in's command run with it."""
    try:
        who = unit_identity(unit)
    except LookupError as exc:
        return GateProof(None, unit.user or "root", why_not=str(exc))
    env = {**base_environment(who), **unit.environment}
    candidates = [asked_for] if asked_for is not None else _candidates(own, hermes_prefix, env.get("PATH", ""))
    reasons = []
    for candidate in candidates:
        why = _unusable(candidate) or foreign_code(who.uid, candidate) or _why_it_does_not_run(candidate, who, env)
        if why is None:
            try:
                return _prove(unit, candidate, who, env)
            except dropin.DropinError as exc:  # the home's path cannot be written into a unit file
                return GateProof(None, who.name, why_not=str(exc))
        reasons.append(f"{visible(candidate)}: {why}")
    tried = "; ".join(reasons) or "no hermes-wizard was found"
    return GateProof(None, who.name, why_not=f"{unit.name} runs as {visible(who.name)}, who cannot run a "
                                             f"hermes-wizard ({tried}). Install it where that user can run it "
                                             "(Hermes's own venv: its plugin), or pass --wizard-path")


def unit_identity(unit: Unit) -> confined.Identity:
    """Whom to run the unit's command as (LookupError: unknown, or another user while we are not root)."""
    uid, me = unit_uid(unit), os.geteuid()
    if uid != me and me != 0:
        raise LookupError(f"{unit.name} runs as uid {uid}: only root can try the gate as that user")
    return confined.identity_of(uid, switch=uid != me)


def base_environment(who: confined.Identity) -> dict[str, str]:
    """What systemd gives every service it starts as `who` before the unit's own Environment=."""
    shell = "/bin/sh"
    try:
        shell = pwd.getpwuid(who.uid).pw_shell or shell
    except KeyError:
        pass
    return {"PATH": SYSTEMD_PATH, "HOME": who.home_dir, "USER": who.name, "LOGNAME": who.name, "SHELL": shell}


def _candidates(own: Path | None, hermes_prefix: Path | None, path: str) -> list[Path]:
    found = [own, hermes_prefix / "bin" / "hermes-wizard" if hermes_prefix is not None else None]
    on_path = which("hermes-wizard", path=path)
    found.append(Path(on_path) if on_path else None)
    return list(dict.fromkeys(candidate for candidate in found if candidate is not None))


def _unusable(candidate: Path) -> str | None:
    """Why a path cannot be named by a drop-in at all (before anything is looked at or run), or None."""
    if not candidate.is_absolute():
        return "not an absolute path"
    if not dropin.SAFE_PATH.fullmatch(str(candidate)):
        return "its path holds characters a unit file would reinterpret"
    return None


def _why_it_does_not_run(candidate: Path, who: confined.Identity, env: dict[str, str]) -> str | None:
    """None when `candidate --version` runs as `who` and says it is hermes-wizard; else why, in a few words."""
    try:
        done = confined.run([str(candidate), "--version"], who, env, PROBE_SECONDS)
    except OSError as exc:
        return f"cannot be executed by that user ({exc.strerror or exc})"
    if done.timed_out:
        return f"no answer within {PROBE_SECONDS:g} s"
    if done.returncode == 0 and done.stdout.startswith(b"hermes-wizard "):
        return None
    return f"exit {done.returncode}: {visible(done.complaint()[:200])}"


def _prove(unit: Unit, wizard: Path, who: confined.Identity, env: dict[str, str]) -> GateProof:
    assert unit.home is not None
    script = dropin.gate_script(wizard, unit.home).replace("$$", "$")  # systemd's `$$` is a literal `$`
    try:
        done = confined.run(["/bin/sh", "-c", script], who, env, PROOF_SECONDS)
    except OSError as exc:
        return GateProof(wizard, who.name, None, f"/bin/sh could not run ({exc.strerror or exc})")
    if done.timed_out:
        return GateProof(wizard, who.name, None, f"no exit within {PROOF_SECONDS:g} s")
    said = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
    return GateProof(wizard, who.name, done.returncode, visible(said[0][:400]) if said else "")
