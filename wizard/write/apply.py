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

All system calls that change the home go through `FileOps`, so tests can fail or
kill any single step.  Everything created belongs to the home's owner.
"""

from __future__ import annotations

import errno
import functools
from dataclasses import dataclass, field
from pathlib import Path

from hermes_wizard.core.atomic import _ANY, FileOps, Lock, begin_writing, clean_stale_tmp, write_atomic
from hermes_wizard.core.homefs import ApplyError, HomeDir, digest, look, read_file
from hermes_wizard.hermes.loader.yamlfile import ParsedYaml
from hermes_wizard.hermes.models import model_for
from hermes_wizard.judge.engine import HomeReport, evaluate
from hermes_wizard.plan.actions import ChangeAction
from hermes_wizard.plan.changes import ENV, Plan, env_misreads, plan_files, planned_contents, planned_env_edits
from hermes_wizard.service.scope import ServiceScope
from hermes_wizard.service.systemd import Runner
from hermes_wizard.write import backups
from hermes_wizard.write import service_apply as service
from hermes_wizard.write.keyring_apply import delete_all, journal_entries, store_all, take_back


@dataclass(frozen=True)
class ApplyResult:
    backup: Path | None
    written: list[str]  # files replaced or re-moded
    report: HomeReport  # judged from disk after writing
    stopped: list[str] = field(default_factory=list)  # units whose loop was stopped before the files changed
    service_lines: list[str] = field(default_factory=list)  # what the service steps did, one line each
    service_failures: list[str] = field(default_factory=list)
    restarts: list = field(default_factory=list)  # hermes_wizard.service.actions.Outcome of each restart, watched
    gate_not_done: str = ""  # why a planned drop-in is not in place (the file repair was kept), or ""

    @property
    def running(self) -> bool | None:
        """Every restarted unit stayed up (None: nothing was restarted)."""
        return all(o.ok for o in self.restarts) if self.restarts else None


def apply_plan(plan: Plan, *, ops: FileOps | None = None, base_env: dict | None = None,
               reason: str = "hermes-wizard", facts=None, runner=None,
               scope: ServiceScope | None = None, parsed: ParsedYaml | None = None) -> ApplyResult:
    """Apply `plan`: its files as above, its service steps (wizard/write/service_apply.py) around them
    — loops stopped before the first file changes, drop-ins written and reloaded after the last (a
    drop-in that fails is taken back alone and said in `gate_not_done`: the file repair, which is what
    ends a loop, is kept), restarts watched last.  The written home is judged with the units of `scope`
    read again, and, once a service step ran, without asking systemd (what it said before is stale)."""
    begin_writing()  # from here a Ctrl+C may leave a change (a home created, a service stopped)
    if plan.service and runner is None:
        runner = Runner()
    ops = ops or FileOps()
    with HomeDir(plan.home, create=True) as home, Lock(home):
        backups.recover(home)  # an earlier apply killed half-way is rolled back first (its files then differ)
        names = plan.files()
        seen = {name: look(home, name) for name in dict.fromkeys((*plan_files(plan), *names))}
        current = {name: data for name, (_, data) in seen.items()}
        for name, expected in plan.fingerprints.items():  # every file the plan was judged with
            if seen[name][0] != expected:
                raise ApplyError(f"{name} changed since it was read (an editor, or Hermes itself rewriting it); "
                                 "nothing was written — run the command again to plan from the new contents")
        targets = {name: home.place(name) for name in names}
        model = model_for(facts.hermes) if facts is not None else None  # the Hermes the plan was judged for
        contents = planned_contents(plan, current, model)
        modes = {c.file: _new_mode(c.after) for c in plan.changes if c.action == ChangeAction.MODE}
        clean_stale_tmp(targets[name] for name in names)
        try:
            backup = backups.make_backup(home, {name: targets[name] for name in names}, reason,
                                         new={name: digest(contents.get(name, current[name])) for name in names},
                                         service=service.journal_entries(plan.service),
                                         keyring=journal_entries(plan.keyring))
        except OSError as exc:
            raise ApplyError(f"could not back up the files ({_os_words(exc)}); nothing was written") from exc
        try:  # a secret leaves .env only once the keyring holds it (wizard/write/keyring_apply.py)
            stored = store_all(plan.keyring)
        except ApplyError:
            backups.close_journal(home, backup)
            raise
        stopped, failures = service.stop(plan.service, runner)
        left = "".join(f" {unit} was stopped and is left stopped (starting it would resume the loop)."
                       for unit in stopped)
        done: list[str] = []  # files already replaced (or re-moded): the ones a rollback must put back
        latest: dict[str, bytes] = {}  # a file someone appended to while it was being replaced
        try:
            for name in names:
                if name in contents:
                    write_atomic(targets[name], contents[name], ops, mode=modes.get(name), owner=home,
                                 on_replaced=functools.partial(done.append, name),
                                 expect=plan.fingerprints.get(name, _ANY), changed=latest.setdefault)
                elif name in modes:
                    done.append(name)
                    ops.chmod(targets[name], modes[name])
        except BaseException as exc:
            take_back(stored)
            try:
                backups.restore_files(home, backup, done, FileOps(), instead=latest)
                backups.close_journal(home, backup)
            except Exception as again:  # the disk that failed the write may fail the rollback too
                raise ApplyError(f"writing failed ({_os_words(exc)}) and putting back {', '.join(done)} failed too "
                                 f"({_os_words(again)}); the originals are in {backup.path}: free the problem, then "
                                 "run `hermes-wizard undo`") from exc
            if not isinstance(exc, Exception):
                raise
            raise ApplyError(_failure_words(exc, backup.path) + left) from exc
        gate_not_done = ""
        try:
            said = service.install_dropins(plan.service, runner)
        except service.ServiceStepError as exc:
            # The file repair is what ends a loop; the gate only keeps a later refusal from looping.  So a
            # drop-in that cannot be written or read (no user bus over SSH, a refused folder) is taken back
            # alone (install_dropins did) and said, and the files stay repaired.
            gate_not_done = str(exc)
            said = [f"Gate not installed: {exc}. The file changes were applied and kept (they are what stops "
                    "the loop); the gate can be added later with hermes-wizard doctor --install-gate."]
        backups.close_journal(home, backup)
        for name, data in contents.items():
            written = read_file(targets[name])
            # Bytes equal to the plan are not enough: what counts is what Hermes reads from them.
            misread = (env_misreads(written, planned_env_edits(plan), model) if name == ENV and written is not None
                       else None)
            if written != data or misread:
                raise ApplyError(f"{name} does not read back as planned{f' ({misread})' if misread else ''}; "
                                 f"restore with `hermes-wizard undo` (backup: {backup.path})")
    failures = failures + delete_all(plan.keyring)
    scope = scope if scope is not None else ServiceScope()
    report = evaluate(plan.home, base_env=base_env, facts=facts,
                      service=scope.held() if plan.service else scope.fresh(), parsed=parsed)
    restarts = service.restart(plan.service, runner)
    return ApplyResult(backup.path, done, report, stopped, said, failures, restarts, gate_not_done)


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


