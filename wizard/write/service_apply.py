"""Applying a Plan's service steps (wizard/plan/service_steps.py), and taking drop-ins back out.

`hermes_wizard.write.apply` calls these around the file writes: `stop` before them, `install_dropins`
(with its daemon-reload) after them, `restart` last.  Each drop-in step is journalled in the backup
set (manifest "service": [{"unit", "scope", "before": [variants], "after": [variants]}]), so `undo`,
a rollback and the recovery of an interrupted run all do one thing: `put_back(..., "before")` makes
our drop-ins of that unit what they were, then reloads.

Trust: the manifest is the home owner's to write and this may run as root.  An entry names a unit and
variants, never a path or a text: the unit is found again among the units that run this home now
(wizard/service/scope.py); a file removed is only our own drop-in name in that unit's drop-in folder,
and only a regular file that begins with our header; a variant put back is rendered here, never read
from the set.  A variant that was there before and is there still is left (its old text is not kept).
The folder may be the unit owner's too: every write, check and removal goes through one opened
descriptor of it (wizard/service/dropdir.py), and a symlinked or foreign folder is left untouched.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal, TypedDict

from hermes_wizard.plan.actions import ServiceAction
from hermes_wizard.plan.service_steps import ServiceStep
from hermes_wizard.service import actions, dropin, units
from hermes_wizard.service.common import FALLBACK_DROPIN, GATE_DROPIN, VARIANT_FILES, Unit
from hermes_wizard.service.dropdir import DropinFolder, present
from hermes_wizard.service.scope import ServiceScope
from hermes_wizard.service.systemd import Runner


class ServiceStepError(Exception):
    """A drop-in could not be written or read by systemd; what was done is already taken back."""


class DropinEntry(TypedDict):
    """One unit's drop-in step as the backup set journals it: our variants ("gate", "fallback") there before
    and after the step."""

    unit: str
    scope: str
    before: list[str]
    after: list[str]


Moment = Literal["before", "after"]  # which side of a journalled step to put back


def journal_entries(steps: Iterable[ServiceStep]) -> list[DropinEntry]:
    """The manifest's "service" list for a plan's drop-in steps."""
    return [{"unit": s.unit, "scope": s.scope, "before": list(s.before), "after": [s.variant] if s.variant else []}
            for s in steps if s.action == ServiceAction.DROPIN]


def stop(steps: Iterable[ServiceStep], runner: Runner) -> tuple[list[str], list[str]]:
    """Stop each looping unit before the files change: (units stopped, failures).  A failure does not
    stop the repair: the files are replaced atomically, and a loop ends at its next turn once they pass."""
    stopped: list[str] = []
    failures: list[str] = []
    for step in steps:
        if step.action == ServiceAction.STOP:
            failed = actions.stop_loop(_Named(step), runner)
            (failures if failed else stopped).append(failed or step.unit)
    return stopped, failures


def install_dropins(steps: Sequence[ServiceStep], runner: Runner) -> list[str]:
    """Write each drop-in (atomically, 0644, our other variant removed) and reload; on any failure the
    drop-ins written are taken back out (and systemd reloaded) before ServiceStepError is raised."""
    done: list[ServiceStep] = []
    try:
        for step in steps:
            if step.action == ServiceAction.DROPIN:
                _write(step)
                done.append(step)
            elif step.action == ServiceAction.RELOAD and not runner.dry_run:
                failed = actions.daemon_reload(_Named(step), runner)
                if failed:
                    raise ServiceStepError(f"systemd did not read the drop-in: {failed}")
    except (OSError, ServiceStepError) as exc:
        for step in reversed(done):
            if step.unit_path is not None:  # always: `_write` wrote beside it
                _make(step.unit_path, step.before, step.variant, unit=_load(step.unit_path))
        for scope in {step.scope for step in done}:
            runner.run(["systemctl", *(["--user"] if scope == "user" else []), "daemon-reload"])
        words = (exc if isinstance(exc, ServiceStepError)
                 else f"cannot write {_where(done, steps)}: {exc.strerror or exc}")
        raise ServiceStepError(f"{words}; the drop-ins were taken back out") from exc
    return [f"Wrote {step.dropin_path}." for step in done]


def restart(steps: Iterable[ServiceStep], runner: Runner) -> list[actions.Outcome]:
    """Restart and watch each unit (actions.restart_and_verify); their Outcomes."""
    return [actions.restart_and_verify(_Named(step), runner, settle=step.settle)
            for step in steps if step.action == ServiceAction.RESTART]


def put_back(home: Path, entries: object, which: Moment, runner: Runner) -> tuple[list[str], list[DropinEntry], bool]:
    """Make our drop-ins of each journalled unit what they were at `which` ("before" or "after").
    Returns (lines for the user, the inverse entries: what a later undo of this needs, whether a
    drop-in it should have changed was left as it is: its folder refused, or a variant not put back)."""
    lines: list[str] = []
    inverse: list[DropinEntry] = []
    left = False
    for entry in _checked(entries):
        unit = _serving(home, entry["unit"], entry["scope"])
        if unit is None:
            lines.append(f"{entry['unit']} no longer runs {home}: its drop-ins were left as they are")
            continue  # not ours to change any more (and a forged entry names such units): not a failure
        inverse.append({"unit": unit.name, "scope": unit.scope, "before": present(unit.path),
                        "after": list(entry[which])})
        said, changed, unit_left = _make(unit.path, tuple(entry[which]), None, unit=unit)
        lines += said
        left = left or (unit_left and bool(_touched(entry, which)))
        if changed:
            failed = actions.daemon_reload(unit, runner)
            lines.append(f"systemd has not read the change yet: {failed}" if failed
                         else f"Reloaded systemd ({unit.name} runs as it did before).")
    return lines, inverse, left


def will_leave(home: Path, entries: object, which: Moment) -> list[str]:
    """Before `put_back(home, entries, which)` is asked for: one line per unit whose journalled drop-ins
    it would leave as they are, and why (the unit no longer runs the home, or its folder is refused)."""
    out = []
    for entry in _checked(entries):
        touched = _touched(entry, which)
        if not touched:
            continue
        unit = _serving(home, entry["unit"], entry["scope"])
        if unit is None:
            out.append(f"It leaves {touched} as it is: {entry['unit']} no longer runs {home}.")
            continue
        try:
            DropinFolder(unit.path).close()
        except OSError as exc:
            out.append(f"It leaves {touched} of {unit.name} as it is: {exc}")
    return out


def _touched(entry: DropinEntry, which: Moment) -> str:
    """The drop-in file names `put_back` would remove or write for `entry` ("" when none)."""
    other: Moment = "after" if which == "before" else "before"
    return ", ".join(name for variant, name in VARIANT_FILES.items()
                     if (variant in entry[which]) != (variant in entry[other]))


def inverse_entries(home: Path, entries: object, which: Moment) -> list[DropinEntry]:
    """What `put_back(home, entries, which)` will record, computed before it acts (for the new set)."""
    out: list[DropinEntry] = []
    for entry in _checked(entries):
        unit = _serving(home, entry["unit"], entry["scope"])
        if unit is not None:
            out.append({"unit": unit.name, "scope": unit.scope, "before": present(unit.path),
                        "after": list(entry[which])})
    return out


def _make(unit_path: Path, wanted: tuple[str, ...], installed: str | None,
          unit: Unit | None = None) -> tuple[list[str], bool, bool]:
    """Our variants beside `unit_path` become `wanted`: ours not wanted are removed, wanted ones missing
    are rendered and written (`installed`: the variant this run wrote, never kept if not wanted).
    Returns (lines for the user, whether anything changed, whether something was left: a refused
    folder is one line and no change; a variant that could not be put back)."""
    lines: list[str] = []
    changed = left = False
    try:
        with DropinFolder(unit_path) as folder:
            for variant, name in VARIANT_FILES.items():
                path = folder.path / name
                if variant not in wanted and folder.remove_ours(name):
                    lines.append(f"Removed {path}.")
                    changed = True
                elif variant in wanted and variant != installed and not folder.is_file(name) and unit is not None:
                    try:
                        dropin.install(unit, variant, dropin.find_wizard(), folder)
                        lines.append(f"Put back {path}.")
                        changed = True
                    except (dropin.DropinError, OSError) as exc:
                        lines.append(f"Could not put back {path}: {exc}")
                        left = True
    except OSError as exc:
        lines.append(f"Our drop-ins were left as they are: {exc}")
        left = True
    return lines, changed, left


def _write(step: ServiceStep) -> None:
    """The planned drop-in text, written through one opened folder; our other variant removed."""
    assert step.unit_path is not None and step.dropin_path is not None and step.text is not None  # a DROPIN step
    with DropinFolder(step.unit_path) as folder:
        folder.write(step.dropin_path.name, step.text.encode("utf-8"))
        folder.remove_ours(FALLBACK_DROPIN if step.variant == "gate" else GATE_DROPIN)


def _where(done: list[ServiceStep], steps: Sequence[ServiceStep]) -> str:
    pending = [s for s in steps if s.action == ServiceAction.DROPIN and s not in done]
    return str(pending[0].dropin_path) if pending else "the drop-in"


def _checked(entries: object) -> list[DropinEntry]:
    """The entries whose shape is what journal_entries writes (a hostile set can name nothing else)."""
    good: list[DropinEntry] = []
    for entry in entries if isinstance(entries, list) else []:
        if (isinstance(entry, dict) and isinstance(entry.get("unit"), str) and entry.get("scope") in ("system", "user")
                and all(isinstance(entry.get(k), list) and set(entry[k]) <= set(VARIANT_FILES)
                        for k in ("before", "after"))):
            good.append({"unit": entry["unit"], "scope": entry["scope"], "before": list(entry["before"]),
                         "after": list(entry["after"])})
    return good


def _load(path: Path | None) -> Unit | None:
    try:
        return units.load(path) if path is not None else None
    except Exception:  # a unit file gone or unreadable: nothing to render a variant for
        return None


def _serving(home: Path, name: str, scope: str) -> Unit | None:
    """The unit named in the journal, as it runs `home` now (unit files read afresh: undo may run days later)."""
    serving = ServiceScope().serving(home)
    return next((u for u in serving if u.manager == "systemd" and u.name == name and u.scope == scope
                 and not u.error), None)


class _Named:
    """The unit name and scope a step acts on (what actions' commands need)."""

    def __init__(self, step: ServiceStep) -> None:
        self.name, self.scope, self.path = step.unit, step.scope, step.unit_path
