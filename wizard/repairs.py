"""Safe repairs: findings → a Plan, checked by simulating Hermes on the planned files.

Safe means failing toward safety (DESIGN.md): an open policy without opt-in
becomes `pairing` where the open value lives (never an automatic allow-all, never
`*`); a dead transport is disabled without deleting its credentials; an allow-all
spelled in a way Hermes ignores gets the spelling Hermes accepts (the user's
evident intent); `.env` gets mode 0600.  Every candidate plan is judged by the same
resolver as `check` (`evaluate(..., overrides=planned files)`), so a repair is
only proposed when Hermes would actually see it.

Contract: pure (reads files, writes nothing); `plan_repairs` returns the Plan and
one plain-words line per repair.
"""

from __future__ import annotations

from wizard.records import record

from wizard.catalog import PLATFORMS
from wizard.engine import HomeReport, evaluate
from wizard.envrules import ALLOW_ALL_TRUE, TRUTHY
from wizard.plan import ENV, YAML, Change, Plan, is_secret_name, planned_contents
from wizard.provenance import yaml_paths

OPEN_POLICY_CHOICES = ("pairing", "allowlist", "optin")
DEAD_TRANSPORT_CHOICES = ("disable", "keep")
# Env credentials that force-enable a platform even over YAML `enabled: false`.
FORCING_CREDENTIALS = {"weixin": ("WEIXIN_TOKEN", "WEIXIN_ACCOUNT_ID"), "qqbot": ("QQ_APP_ID", "QQ_CLIENT_SECRET"),
                       "wecom": ("WECOM_BOT_ID", "WECOM_SECRET"), "yuanbao": ("YUANBAO_APP_ID", "YUANBAO_APP_KEY")}


@record
class RepairOptions:
    open_policy: str = "pairing"
    dead_transport: str = "disable"


@record
class Repair:
    plan: Plan
    notes: tuple[str, ...]
    unfixable: tuple[str, ...]
    after: HomeReport | None  # the simulated verdict once the plan is applied


def plan_repairs(report: HomeReport, options: RepairOptions = RepairOptions()) -> Repair:
    builder = _Builder(report, options)
    builder.fix_allow_all_spelling()
    disabled = builder.disable_dead_transports()
    builder.fix_open_policies(skip=disabled)
    builder.fix_env_mode()
    plan = builder.plan()
    after = builder.simulate(plan.changes) if plan else report
    return Repair(plan, tuple(dict.fromkeys(builder.notes)), tuple(builder.unfixable), after)


class _Builder:
    def __init__(self, report: HomeReport, options: RepairOptions) -> None:
        self.report, self.options = report, options
        self.snapshot = report.snapshot
        self.changes: list[Change] = []
        self.notes: list[str] = []
        self.unfixable: list[str] = []

    def plan(self, changes=None) -> Plan:
        return Plan.of(self.report.home, self.changes if changes is None else changes)

    def simulate(self, changes) -> HomeReport:
        plan = self.plan(changes)
        return evaluate(self.report.home, self.report.profile, base_env=self.snapshot.base_env,
                        facts=self.report.facts, overrides=planned_contents(plan))

    def _env_set(self, key: str, value: str, platform: str | None, reason: str) -> Change:
        before = self.snapshot.env.entries.get(key)
        return Change(ENV, key, before.value if before else None, value, platform=platform, reason=reason,
                      secret=is_secret_name(key))

    # -- repairs -------------------------------------------------------------------------------------------
    def fix_allow_all_spelling(self) -> None:
        """Per-platform opt-ins only: respelling GATEWAY_ALLOW_ALL_USERS would open every platform."""
        gateway = self.snapshot.env.values.get("GATEWAY_ALLOW_ALL_USERS")
        if gateway is not None and gateway.lower() not in ALLOW_ALL_TRUE and gateway.strip().lower() in TRUTHY:
            self.unfixable.append(f"GATEWAY_ALLOW_ALL_USERS is {gateway!r}, which Hermes ignores; left as it is, "
                                  "since the spelling Hermes accepts would open every platform to everyone")
        names = [s.allow_all_env for s in PLATFORMS.values() if s.allow_all_env]
        for key in dict.fromkeys(names):
            entry = self.snapshot.env.entries.get(key)
            value = self.snapshot.env.values.get(key)
            if entry is None or value is None or value.lower() in ALLOW_ALL_TRUE:
                continue
            if value.strip().lower() in TRUTHY:
                self.changes.append(self._env_set(key, "true", None, "spelled so Hermes accepts it"))
                self.notes.append(f"{key}: {value!r} → true (Hermes accepts only true/1/yes, unpadded)")

    def disable_dead_transports(self) -> set[str]:
        disabled: set[str] = set()
        if self.options.dead_transport != "disable":
            return disabled
        for name, state in self.report.effective.platforms.items():
            transport = self.report.transports.get(name)
            if not state.enabled or transport is None or not transport.dead:
                continue
            candidate = self._disable(name)
            if candidate is None:
                self.unfixable.append(f"{name}: could not find a change that disables it; edit by hand")
                continue
            self.changes.extend(candidate)
            disabled.add(name)
            self.notes.append(f"{name}: disabled ({transport.detail}: it cannot connect under any policy); "
                              "credentials kept, `hermes-wizard undo` restores")
        return disabled

    def _disable(self, name: str) -> list[Change] | None:
        reason = "transport cannot connect"
        steps: list[list[Change]] = []
        if name == "whatsapp":
            steps.append([self._env_set("WHATSAPP_ENABLED", "false", name, reason)])
        forcing = [k for k in FORCING_CREDENTIALS.get(name, ()) if k in self.snapshot.env.entries]
        if forcing:
            steps.append([Change(ENV, k, None, None, "disable", name, reason, is_secret_name(k)) for k in forcing])
        block = (name,) if isinstance(self.snapshot.yaml.mapping().get(name), dict) else ("platforms", name)
        steps.append([Change(YAML, ".".join(block + ("enabled",)), None, "false", platform=name, reason=reason)])
        chosen: list[Change] = []
        for step in steps:
            chosen = chosen + step
            try:
                after = self.simulate(self.changes + chosen)
            except ValueError:
                continue
            state = after.effective.platforms.get(name)
            if state is None or not state.enabled:
                return chosen
        return None

    def fix_open_policies(self, skip: set[str]) -> None:
        """Close each open value where it lives, re-judge, and repeat: closing one place can
        uncover a lower-precedence open value, and an open value in gateway.json is overridden."""
        for _ in range(3):
            current = self._judge()
            todo = [v for v in current.violations if v.platform not in skip]
            if not todo:
                return
            for violation in todo:
                before = len(self.changes)
                self._fix_violation(violation, current)
                try:
                    self.simulate(self.changes)
                except ValueError:  # e.g. a YAML edit the writer refuses: drop it, report below
                    del self.changes[before:]
        for violation in self._judge().violations:
            if violation.platform not in skip:
                self.unfixable.append(f"{violation.platform}: open policy set outside files this tool edits "
                                      "(managed /etc/hermes or the service environment)")

    def _fix_violation(self, violation, current: HomeReport) -> None:
        name, spec = violation.platform, PLATFORMS[violation.platform]
        if self.options.open_policy == "optin":
            self.changes.append(self._env_set(spec.gate.allow_all_env, "true", name, "explicit opt-in to open access"))
            self.notes.append(f"{name}: kept open, {spec.gate.allow_all_env}=true (anyone who can reach the bot "
                              "can use the agent)")
            return
        target = self.options.open_policy
        for side in violation.open_sides():
            short = side.split("_")[0]
            env_name = getattr(spec.gate, f"{short}_env")
            env_value = current.effective.environ.get(env_name or "", "")
            found = False
            if env_name and env_value.strip().lower() == "open":
                self.changes.append(self._env_set(env_name, target, name, "closing an open policy"))
                found = True
            data = current.snapshot.yaml.mapping()
            for path in yaml_paths(name, side, data):
                value = _lookup(data, path)
                if value is not None and str(value).strip().lower() == "open":
                    self.changes.append(Change(YAML, ".".join(path), str(value), target, platform=name,
                                               reason="closing an open policy"))
                    found = True
            if not found:  # open somewhere we do not edit (legacy gateway.json): override it on top
                self.changes.append(self._override(name, side, target))
            why = {"pairing": "no allow-all opt-in was set; pairing keeps strangers out",
                   "allowlist": f"only IDs listed in {spec.allowlist_env} or allow_from get in"}[target]
            self.notes.append(f"{name}: {side} open → {target} ({why})")

    def _judge(self) -> HomeReport:
        return self.simulate(self.changes) if self.changes else self.report

    def _override(self, name: str, side: str, target: str) -> Change:
        """The highest-precedence place we write: weixin and yuanbao copy their env policy over
        YAML; for the others the gate reads `extra` first, which config.yaml's `platforms` wins
        (when config.yaml does not parse, Hermes ignores it and only the env can help)."""
        env_name = getattr(PLATFORMS[name].gate, f"{side.split('_')[0]}_env")
        if env_name and (name in ("weixin", "yuanbao") or self.snapshot.yaml.error is not None):
            return self._env_set(env_name, target, name, "closing an open policy set in gateway.json")
        path = f"platforms.{name}.extra.{side}"
        before = _lookup(self.snapshot.yaml.mapping(), tuple(path.split(".")))
        return Change(YAML, path, None if before is None else str(before), target, platform=name,
                      reason="closing an open policy set in gateway.json")

    def fix_env_mode(self) -> None:
        env = self.snapshot.env
        if env.exists and env.error is None and env.mode is not None and env.mode & 0o077:
            self.changes.append(Change(ENV, "<mode>", f"{env.mode:04o}", "0600", "mode",
                                       reason="secrets readable by others"))
            self.notes.append(f".env: mode {env.mode:04o} → 0600 (it holds secrets)")


def _lookup(data, path):
    node = data
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
        if node is None:
            return None
    return node
