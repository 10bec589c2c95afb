"""The service steps of `doctor`, around the file repair: plan, preview, act, verify.

For one home, the systemd units that run it (or `--unit`) get, in this order:

  stop        `systemctl stop` + `reset-failed`, when a loop is in progress and files or a
              drop-in are about to change (a loop restarts the gateway mid-edit otherwise);
  gate        `--install-gate`: `systemctl --version` picks the gate drop-in (>= 251) or the
              Restart=on-failure fallback; written atomically, then `daemon-reload`;
  restart     `--restart`, or after we stopped a loop — only when the repaired home will
              start (a restart into a refusal is the loop again); then verified.

`preview()` prints every step before consent; `act_before()` / `act_after()` run them
through the Runner (`--dry-run`: printed, none run).  launchd and s6 get advice only.
The words "the gateway is running" come only from a verified restart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wizard.service import actions, dropin
from wizard.service import scope as service
from wizard.service.systemd import systemctl

if TYPE_CHECKING:
    from wizard.service.common import Unit


class ServiceFlow:
    def __init__(self, home, profile: str, args, say, runner) -> None:
        self.home, self.profile, self.args, self.say, self.runner = home, profile, args, say, runner
        serving, self.elsewhere = service.relevant(home, profile)
        self.units = [u for u in serving if u.manager == "systemd" and not u.error]
        self.others = [u for u in serving if u.manager != "systemd"]
        self.steps: list[tuple[str, Unit]] = []
        self.failures: list[str] = []
        self.stopped = False

    @property
    def requested(self) -> bool:
        return bool(self.args.install_gate or self.args.restart)

    def describe(self, report) -> None:
        """The service findings (HW4xx) of `report`, flutter-style, and advice for launchd/s6."""
        mark = {"error": "✗", "warning": "!", "info": "·"}
        for finding in report.findings:
            if finding.code.startswith("HW4"):
                self.say(f"[{mark[finding.severity]}] {finding.code} {finding.name}: {finding.message}")
                if finding.fix:
                    self.say(f"    Fix: {finding.fix}")
        if (self.args.install_gate or self.args.restart) and not self.units:
            where = ", ".join(f"{u.name} ({u.label})" for u in self.others) or "no systemd unit"
            self.say(f"Service steps skipped: {where} runs {self.home}"
                     + ("; use --unit PATH to name one" if not self.others else ""))

    def plan(self, editing: bool, will_start: bool) -> list[tuple[str, Unit]]:
        """Decide the steps; `editing`: files will be written by this run."""
        self.steps = []
        for unit in self.units:
            evidence = service.evidence(unit)
            # A dry run asks systemd nothing, so it shows the steps a loop in progress would need.
            looping = (evidence.looping or evidence.restarting_now) if evidence is not None else self.runner.dry_run
            stop = looping and (editing or self.requested)
            if stop:
                self.steps.append(("stop", unit))
            if self.args.install_gate and not dropin.current(unit, "gate", self._wizard()):
                self.steps.append(("gate", unit))
            elif self.args.install_gate:
                self.say(f"The gate is already in place: {unit.dropin_dir / dropin.GATE_DROPIN}")
            if self.args.restart or stop:  # we stopped it: we bring it back, verified
                if will_start:
                    self.steps.append(("restart", unit))
                else:
                    self.say(f"Not restarting {unit.name}: the home would still refuse to start; a restart "
                             "would only be the loop again.")
        return self.steps

    def preview(self) -> None:
        if not self.steps:
            return
        self.say("Service steps:")
        for kind, unit in self.steps:
            if kind == "stop":
                when = " (if one is in progress)" if self.runner.dry_run else ""
                self.say(f"  stop the loop{when}: {' '.join(systemctl(unit.scope, 'stop', unit.name))} && "
                         f"{' '.join(systemctl(unit.scope, 'reset-failed', unit.name))}")
            elif kind == "gate":
                self.say(f"  install {unit.dropin_dir}/{dropin.GATE_DROPIN} (systemd >= {dropin.MIN_GATE}; "
                         f"else {dropin.FALLBACK_DROPIN}), then {' '.join(systemctl(unit.scope, 'daemon-reload'))}")
            elif kind == "restart":
                self.say(f"  restart: {' '.join(systemctl(unit.scope, 'restart', unit.name))}, then watch it for "
                         f"{self.args.settle:g} s before saying it runs")

    def act_before(self) -> None:
        if self.steps:
            service.hold_evidence()
        for kind, unit in self.steps:
            if kind == "stop":
                failed = actions.stop_loop(unit, self.runner)
                if failed:
                    self.failures.append(failed)
                    self.say(f"Could not stop the loop: {failed}")
                elif not self.runner.dry_run:
                    self.stopped = True
                    self.say(f"Stopped {unit.name} (the loop is over).")

    def act_after(self, abort: bool = False) -> int:
        """Gate and restart; 0 when all went well (or nothing to do), 1 otherwise.
        `abort` (the file repair failed): only say how the service was left."""
        verified = None
        for kind, unit in self.steps if not abort else ():
            if kind == "gate":
                self._install(unit)
            elif kind == "restart":
                outcome = actions.restart_and_verify(unit, self.runner, settle=self.args.settle)
                verified = outcome.ok
                if outcome.ok:
                    self.say(f"Verified: {outcome.words}.")
                elif not self.runner.dry_run:
                    self.failures.append(outcome.words)
                    self.say(f"Not fixed: {outcome.words}.")
        if self.stopped and verified is None:
            unit = next(u for k, u in self.steps if k == "stop")
            self.say(f"{unit.name} is stopped. Start it once the home is fixed: "
                     f"{' '.join(systemctl(unit.scope, 'restart', unit.name))}")
        return 1 if self.failures or abort else 0

    def _install(self, unit) -> None:
        version = actions.version(self.runner)
        variant = dropin.variant_for(version)
        wizard = self._wizard()
        try:
            name, text = dropin.render(unit, variant, wizard)
        except dropin.DropinError as exc:
            self.failures.append(str(exc))
            self.say(f"Gate not installed: {exc}")
            return
        seen = f"systemd {version}" if version else "systemd version unknown"
        if variant == "fallback":
            self.say(f"{seen} < {dropin.MIN_GATE} restarts a start skipped by ExecCondition=: "
                     f"using Restart=on-failure ({name}) instead of the gate.")
        if self.runner.dry_run:
            self.say(f"would write {unit.dropin_dir / name} ({seen}):")
            self.say("".join(f"    {line}\n" for line in text.splitlines()).rstrip("\n"))
        elif dropin.current(unit, variant, wizard):
            self.say(f"{unit.dropin_dir / name} is already in place.")
            return
        else:
            try:
                path = dropin.install(unit, variant, wizard)
            except OSError as exc:
                self.failures.append(f"cannot write the drop-in: {exc.strerror or exc}")
                self.say(f"Gate not installed: cannot write to {unit.dropin_dir} ({exc.strerror or exc}).")
                return
            self.say(f"Wrote {path}.")
        failed = actions.daemon_reload(unit, self.runner)
        if failed:
            self.failures.append(failed)
            self.say(f"Written, but systemd has not read it yet: {failed}")

    def _wizard(self):
        return self.args.wizard_path or dropin.find_wizard()
