"""Apply: the only code that writes a Hermes home.

Order of operations, each a reason for the next:
  1. open the home directory (hermes_wizard.core.homefs: every later call is relative to it, no
     link followed) and take an advisory lock (`<home>/.hermes-wizard.lock`) so two
     wizards never interleave; finish off an apply an earlier run was killed in;
  2. refuse, writing nothing, if any file differs from what the plan was built from;
  3. back up every file about to change into `<home>/.wizard-backups/<timestamp>/`
     (hermes_wizard.write.backups; its manifest is the journal: "applying" until every file is done);
  4. write each file atomically: a temp file in the same directory, fsync, the old
     mode and owner, a last look that nobody changed the file since it was read, rename
     over the target, fsync the directory — so every file is at all times wholly old or
     wholly new, and the set is closed ("complete") only after the last one;
  5. if a later file fails, put the earlier ones back from the backup;
  (the Plan's keyring steps wrap 4 and 5: secrets stored before, entries deleted after —
  wizard/write/keyring_apply.py)
  6. re-read what was written and judge the home again: only that verdict is reported.
`apply_plan` runs them in that order: `_prepare` (1-2), `_back_up` (3), `_write` (4, with `_roll_back`: 5),
`_verify` (6).

All system calls that change the home go through `FileOps`, so tests can fail or
kill any single step.  Everything created belongs to the home's owner.
"""

from __future__ import annotations

import errno
import functools
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.atomic import _ANY, FileOps, Lock, begin_writing, clean_stale_tmp, write_atomic
from hermes_wizard.core.frozenmap import FrozenMap
from hermes_wizard.core.homefs import ApplyError as ApplyError  # raised by apply_plan: the faces catch it from here
from hermes_wizard.core.homefs import At, HomeDir, digest, look, read_file
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.hermes.loader.yamlfile import ParsedYaml
from hermes_wizard.hermes.models import model_for
from hermes_wizard.judge.engine import HomeReport, evaluate
from hermes_wizard.plan.actions import ChangeAction
from hermes_wizard.plan.changes import ENV, Plan, env_misreads, plan_files, planned_contents, planned_env_edits
from hermes_wizard.service.actions import Outcome
from hermes_wizard.service.scope import ServiceScope
from hermes_wizard.service.systemd import Runner
from hermes_wizard.write import backups
from hermes_wizard.write import service_apply as service
from hermes_wizard.write.keyring_apply import delete_all, journal_entries, store_all, take_back

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hermes_wizard.hermes.model import Model


@value_class
class ApplyResult(Value):
    backup: Path | None
    written: tuple[str, ...]  # files replaced or re-moded
    report: HomeReport  # judged from disk after writing
    stopped: tuple[str, ...] = ()  # units whose loop was stopped before the files changed
    service_lines: tuple[str, ...] = ()  # what the service steps did, one line each
    service_failures: tuple[str, ...] = ()
    restarts: tuple[Outcome, ...] = ()  # each restart, watched
    gate_not_done: str = ""  # why a planned drop-in is not in place (the file repair was kept), or ""

    @property
    def running(self) -> bool | None:
        """Every restarted unit stayed up (None: nothing was restarted)."""
        return all(o.ok for o in self.restarts) if self.restarts else None


def apply_plan(plan: Plan, *, ops: FileOps | None = None, base_env: dict[str, str] | None = None,
               reason: str = "hermes-wizard", facts: HostFacts | None = None, runner: Runner | None = None,
               scope: ServiceScope | None = None, parsed: ParsedYaml | None = None) -> ApplyResult:
    """Apply `plan`: its files as above, its service steps (wizard/write/service_apply.py) around them
    — loops stopped before the first file changes, drop-ins written and reloaded after the last (a
    drop-in that fails is taken back alone and said in `gate_not_done`: the file repair, which is what
    ends a loop, is kept), restarts watched last.  The written home is judged with the units of `scope`
    read again, and, once a service step ran, without asking systemd (what it said before is stale)."""
    begin_writing()  # from here a Ctrl+C may leave a change (a home created, a service stopped)
    runner = runner if runner is not None else Runner()  # asks systemd only for the plan's service steps
    with HomeDir(plan.home, create=True) as home, Lock(home):
        backups.recover(home)  # an earlier apply killed half-way is rolled back first (its files then differ)
        prepared = _prepare(plan, home, model_for(facts.hermes) if facts is not None else None)
        backup = _back_up(plan, home, prepared, reason)
        try:  # a secret leaves .env only once the keyring holds it (wizard/write/keyring_apply.py)
            stored = store_all(plan.keyring)
        except ApplyError:
            backups.close_journal(home, backup)
            raise
        stopped, failures = service.stop(plan.service, runner)
        left = "".join(f" {unit} was stopped and is left stopped (starting it would resume the loop)."
                       for unit in stopped)
        done = _write(plan, home, prepared, ops or FileOps(), backup, stored, left)
        said, gate_not_done = _install_gate(plan, runner)
        backups.close_journal(home, backup)
        _verify(plan, prepared, backup)
    failures = failures + delete_all(plan.keyring)
    scope = scope if scope is not None else ServiceScope()
    report = evaluate(plan.home, base_env=base_env, facts=facts,
                      service=scope.held() if plan.service else scope.fresh(), parsed=parsed)
    restarts = service.restart(plan.service, runner)
    return ApplyResult(backup.path, tuple(done), report, tuple(stopped), tuple(said), tuple(failures),
                       tuple(restarts), gate_not_done)


@value_class
class _Prepared(Value):
    """What the plan writes, worked out before anything is: the files in order, where each lives, their
    bytes as read, their planned bytes, and the modes of those only re-moded."""

    names: tuple[str, ...]
    targets: Mapping[str, At]  # each mapping a FrozenMap
    current: Mapping[str, bytes | None]
    contents: Mapping[str, bytes]
    modes: Mapping[str, int]
    model: Model | None  # the Hermes the plan was judged for (what decides how .env is read back)


def _prepare(plan: Plan, home: HomeDir, model: Model | None) -> _Prepared:
    """Read every file the plan touches or was judged with; raise ApplyError, writing nothing, if one
    differs from what the plan was built from; else the planned contents (stale temp files cleared)."""
    names = plan.files()
    seen = {name: look(home, name) for name in dict.fromkeys((*plan_files(plan), *names))}
    for name, expected in plan.fingerprints.items():  # every file the plan was judged with
        if seen[name][0] != expected:
            raise ApplyError(f"{name} changed since it was read (an editor, or Hermes itself rewriting it); "
                             "nothing was written — run the command again to plan from the new contents")
    current = {name: data for name, (_, data) in seen.items()}
    targets = {name: home.place(name) for name in names}
    contents = planned_contents(plan, current, model)
    modes = {c.file: _new_mode(c.after) for c in plan.changes if c.action == ChangeAction.MODE}
    clean_stale_tmp(targets[name] for name in names)
    return _Prepared(tuple(names), FrozenMap(targets), FrozenMap(current), FrozenMap(contents), FrozenMap(modes),
                     model)


def _back_up(plan: Plan, home: HomeDir, prepared: _Prepared, reason: str) -> backups.BackupSet:
    """The backup set, opened as the journal ("applying") of this apply; ApplyError if it cannot be made."""
    names, contents, current = prepared.names, prepared.contents, prepared.current
    try:
        return backups.make_backup(home, {name: prepared.targets[name] for name in names}, reason,
                                   new={name: digest(contents.get(name, current[name])) for name in names},
                                   service=service.journal_entries(plan.service),
                                   keyring=journal_entries(plan.keyring))
    except OSError as exc:
        raise ApplyError(f"could not back up the files ({_os_words(exc)}); nothing was written") from exc


def _write(plan: Plan, home: HomeDir, prepared: _Prepared, ops: FileOps, backup: backups.BackupSet,
           stored: list[tuple[str, str, str | None]], left: str) -> list[str]:
    """Replace (or re-mode) each file in order; the names done.  If one fails, everything done is rolled back
    (`_roll_back`) and ApplyError says so (`left`: the units stopped and left so); a BaseException that is
    not an Exception (Ctrl+C) is raised again as it is, after the rollback."""
    done: list[str] = []  # files already replaced (or re-moded): the ones a rollback must put back
    latest: dict[str, bytes] = {}  # a file someone appended to while it was being replaced
    try:
        for name in prepared.names:
            if name in prepared.contents:
                write_atomic(prepared.targets[name], prepared.contents[name], ops, mode=prepared.modes.get(name),
                             owner=home, on_replaced=functools.partial(done.append, name),
                             expect=plan.fingerprints.get(name, _ANY), changed=latest.setdefault)
            elif name in prepared.modes:
                done.append(name)
                ops.chmod(prepared.targets[name], prepared.modes[name])
    except BaseException as exc:
        _roll_back(home, backup, done, latest, stored, exc)
        if not isinstance(exc, Exception):
            raise
        raise ApplyError(_failure_words(exc, backup.path) + left) from exc
    return done


def _roll_back(home: HomeDir, backup: backups.BackupSet, done: list[str], latest: dict[str, bytes],
               stored: list[tuple[str, str, str | None]], failed: BaseException) -> None:
    """Undo a write that `failed`: the secrets stored taken back, the files `done` put back from the backup
    (a file appended to meanwhile as `latest` has it), the journal closed.  ApplyError, naming the backup,
    if putting back fails too."""
    take_back(stored)
    try:
        backups.restore_files(home, backup, done, FileOps(), instead=latest)
        backups.close_journal(home, backup)
    except Exception as again:  # the disk that failed the write may fail the rollback too
        raise ApplyError(f"writing failed ({_os_words(failed)}) and putting back {', '.join(done)} failed too "
                         f"({_os_words(again)}); the originals are in {backup.path}: free the problem, then "
                         "run `hermes-wizard undo`") from failed


def _install_gate(plan: Plan, runner: Runner) -> tuple[list[str], str]:
    """The drop-ins written and reloaded: (what was said, why the gate is not in place or "")."""
    try:
        return service.install_dropins(plan.service, runner), ""
    except service.ServiceStepError as exc:
        # The file repair is what ends a loop; the gate only keeps a later refusal from looping.  So a
        # drop-in that cannot be written or read (no user bus over SSH, a refused folder) is taken back
        # alone (install_dropins did) and said, and the files stay repaired.
        return [f"Gate not installed: {exc}. The file changes were applied and kept (they are what stops "
                "the loop); the gate can be added later with hermes-wizard doctor --install-gate."], str(exc)


def _verify(plan: Plan, prepared: _Prepared, backup: backups.BackupSet) -> None:
    """Read each written file back: ApplyError unless its bytes are the planned ones and Hermes reads
    them as planned (bytes equal to the plan are not enough: what counts is what Hermes reads)."""
    for name, data in prepared.contents.items():
        written = read_file(prepared.targets[name])
        misread = (env_misreads(written, planned_env_edits(plan), prepared.model)
                   if name == ENV and written is not None else None)
        if written != data or misread:
            raise ApplyError(f"{name} does not read back as planned{f' ({misread})' if misread else ''}; "
                             f"restore with `hermes-wizard undo` (backup: {backup.path})")


def _new_mode(after: str | None) -> int:
    assert after is not None  # a MODE change always names the permission bits it sets
    return int(after, 8)


def _os_words(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        words: dict[int | None, str] = {
            errno.ENOSPC: "the disk is full", errno.EROFS: "the file system is read-only",
            errno.EACCES: "permission denied", errno.EPERM: "operation not permitted",
            errno.EISDIR: "a file was replaced by a directory"}
        return words.get(exc.errno, exc.strerror or str(exc))
    return str(exc) or type(exc).__name__


def _failure_words(exc: BaseException, backup: Path) -> str:
    if isinstance(exc, ApplyError):
        return f"{exc}; every file was left as it was. The backup of the original files is in {backup}."
    return (f"writing failed ({_os_words(exc)}); every file was left as it was. The backup of the original files "
            f"is in {backup}.")


