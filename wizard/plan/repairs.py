"""Safe repairs: findings → a Plan, checked by simulating Hermes on the planned files.

Safe means failing toward safety (ARCHITECTURE.md, "Contracts"): an open policy without opt-in
becomes `pairing` where the open value lives (never an automatic allow-all, never
`*`); a dead transport is disabled without deleting its credentials; an allow-all
spelled in a way Hermes ignores (`on`, ` true`) is respelled only with
`--open-policy optin` (otherwise it is reported, and the platform closed); `.env`
gets mode 0600.  Every candidate plan is judged by the same
resolver as `check` (`evaluate(..., overrides=planned files)`), so a repair is
only proposed when Hermes would actually see it.

Contract: pure (reads files, writes nothing); `plan_repairs` returns the Plan and
one plain-words line per repair.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.loader.envfile import read_env_file
from hermes_wizard.hermes.loader.envrules import ALLOW_ALL_TRUE, TRUTHY
from hermes_wizard.hermes.loader.yamlfile import lookup
from hermes_wizard.judge.engine import HomeReport, evaluate
from hermes_wizard.judge.provenance import platform_blocks, yaml_paths
from hermes_wizard.plan.actions import ChangeAction
from hermes_wizard.plan.changes import (
    ENV,
    GATEWAY_JSON,
    YAML,
    Change,
    Plan,
    is_secret_name,
    plan_files,
    planned_contents,
    planned_modes,
    read_bytes,
)

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from hermes_wizard.hermes.loader.gate import Violation

MAX_CRASH_REMOVALS = 8  # values Hermes crashes on, removed one after another, at most


@value_class
class RepairOptions(Value):
    open_policy: str = "pairing"
    dead_transport: str = "disable"


@value_class
class Repair(Value):
    plan: Plan
    notes: tuple[str, ...]  # each repair as planned (future: "whatsapp: will be disabled (...)")
    unfixable: tuple[str, ...]
    after: HomeReport  # the simulated verdict once the plan is applied (the report itself without a plan)
    done: tuple[str, ...] = ()  # the same repairs as made, for after the apply ("whatsapp: disabled (...)")


def plan_repairs(report: HomeReport, options: RepairOptions = RepairOptions(), *,
                 judged: dict[tuple[Change, ...], HomeReport] | None = None) -> Repair:
    """The safe repair of `report`'s home for these options.  `judged` keeps each candidate's judgement (a set
    of changes -> the home judged with them) across calls for the same report: repairs for other options
    share most of their candidates."""
    builder = _Builder(report, options, {} if judged is None else judged)
    builder.fix_env_encoding()  # first: every later candidate is judged as written in UTF-8
    builder.remove_crashing_values()  # a home that crashes at start shows no refusal to fix
    builder.fix_allow_all_spelling()
    disabled = builder.disable_dead_transports()
    builder.fix_open_policies(skip=disabled)
    builder.fix_env_mode()
    plan = builder.without_no_ops(builder.plan())
    after = builder.simulate(plan.changes) if plan else report
    named = report.naming_this_home  # the notes' commands act on this home, run as printed
    return Repair(plan, tuple(dict.fromkeys(map(named, builder.notes))), tuple(map(named, builder.unfixable)), after,
                  tuple(dict.fromkeys(map(named, builder.done))))


class _Builder:
    def __init__(self, report: HomeReport, options: RepairOptions,
                 simulated: dict[tuple[Change, ...], HomeReport]) -> None:
        self.report, self.options = report, options
        self.snapshot = report.snapshot
        self.model = report.model  # the Hermes the repairs are judged for
        self.platforms = self.model.platforms()
        self.changes: list[Change] = []
        self.notes: list[str] = []
        self.done: list[str] = []  # `notes` in the past tense (a note without a verb is the same in both)
        self.unfixable: list[str] = []
        self.refused: str | None = None  # why the writers refused the last change set (the true reason)
        self.simulated = simulated  # each candidate judged once

    def _note(self, text: str) -> None:
        """A note that reads the same before and after the apply (an arrow, no verb)."""
        self.notes.append(text)
        self.done.append(text)

    def plan(self, changes: Sequence[Change] | None = None) -> Plan:
        return Plan.of(self.report.home, self.changes if changes is None else changes)

    def without_no_ops(self, plan: Plan) -> Plan:
        """Drop changes to files whose bytes would not change (a second run must write nothing)."""
        if not plan:
            return plan
        current = {name: read_bytes(plan.home / name) for name in plan_files(plan)}
        contents = planned_contents(plan, current, self.model)
        kept = [c for c in plan.changes if c.action in (ChangeAction.MODE, ChangeAction.REENCODE)
                or contents.get(c.file) != current.get(c.file)]
        return Plan(plan.home, plan.fingerprints, tuple(kept))

    def simulate(self, changes: Sequence[Change]) -> HomeReport:
        """The home judged as `changes` would leave it, once per distinct set of changes (the last candidate
        tried is often the plan itself)."""
        key = tuple(changes)
        if key not in self.simulated:
            plan = self.plan(changes)
            self.simulated[key] = evaluate(
                self.report.home, self.report.profile, base_env=self.snapshot.base_env, facts=self.report.facts,
                overrides=planned_contents(plan, model=self.model), service=self.report.service,
                parsed=self.report.parsed, modes=planned_modes(plan))
        return self.simulated[key]

    def _try(self, changes: list[Change]) -> HomeReport | None:
        """The simulated verdict of `changes`, or None (remembering why) when a writer
        refuses them: a YAML edit it cannot make safely, a `.env` it cannot write so
        Hermes reads the planned values."""
        try:
            return self.simulate(changes)
        except ValueError as exc:
            self.refused = str(exc)
            return None

    def _judge(self) -> HomeReport:
        return self.simulate(self.changes) if self.changes else self.report

    def _env_set(self, key: str, value: str, platform: str | None, reason: str) -> Change:
        before = self.snapshot.env.entries.get(key)
        return Change(ENV, key, before.value if before else None, value, platform=platform, reason=reason,
                      secret=is_secret_name(key))

    # -- repairs -------------------------------------------------------------------------------------------
    def remove_crashing_values(self) -> None:
        """A value Hermes crashes on at start (HW021: in gateway.json a `sessions_dir` that is no path, a
        `notify_exclude_platforms` or `profile_routes` that is no list, 0.18's `streaming: true`; in gateway.json
        or config.yaml a session-reset `bg_process_max_age_hours` that is no number) never worked: it is
        removed, so Hermes uses its own default — only when the simulated home then no longer crashes on it.
        Repeated while a removal reveals the next such value."""
        for _ in range(MAX_CRASH_REMOVALS):
            effective = self._judge().effective
            key, file = effective.crash_key, effective.crash_file
            if key is None or file not in (GATEWAY_JSON, YAML) or any("." in part for part in key):
                return
            dotted = ".".join(key)
            change = Change(file, dotted, None, None, ChangeAction.REMOVE,
                            reason="Hermes crashes at start on this value")
            after = self._try(self.changes + [change])
            if after is None or (after.effective.crash_key, after.effective.crash_file) == (key, file):
                why = self.refused or "removing it does not end the crash"
                self.unfixable.append(f"{file}: {dotted}, which Hermes crashes on, is left as it is: {why}")
                return
            self.changes.append(change)
            self._note(f"{file}: {dotted} removed (Hermes crashed at start on it; its default applies)")

    def fix_allow_all_spelling(self) -> None:
        """Per-platform opt-ins only: respelling GATEWAY_ALLOW_ALL_USERS would open every platform."""
        gateway = self.snapshot.env.values.get("GATEWAY_ALLOW_ALL_USERS")
        if gateway is not None and gateway.lower() not in ALLOW_ALL_TRUE and gateway.strip().lower() in TRUTHY:
            self.unfixable.append(f"GATEWAY_ALLOW_ALL_USERS is {gateway!r}, which Hermes ignores; left as it is, "
                                  "since the spelling Hermes accepts would open every platform to everyone")
        names = [s.allow_all_env for s in self.platforms.values() if s.allow_all_env]
        for key in dict.fromkeys(names):
            entry = self.snapshot.env.entries.get(key)
            value = self.snapshot.env.values.get(key)
            if entry is None or value is None or value.lower() in ALLOW_ALL_TRUE:
                continue
            if value.strip().lower() not in TRUTHY:
                continue
            if self.options.open_policy != "optin":
                # Hermes reads this platform as closed: respelling would open it to everyone, which only
                # an explicit choice may do (--yes never opens access).  Said when its open policy is being
                # closed now (a second run has nothing to say).
                refusing = {v.platform for v in self.report.violations}
                if any(spec.allow_all_env == key and name in refusing for name, spec in self.platforms.items()):
                    self._note(f"{key}: {value!r} is not read by Hermes (it accepts only true/1/yes, unpadded), "
                                      "so it does not open anything; an open policy is closed to "
                                      f"{self.options.open_policy} instead. To keep it open on purpose: "
                                      "hermes-wizard doctor --fix --open-policy optin")
                continue
            change = self._env_set(key, "true", None, "spelled so Hermes accepts it")
            if self._try(self.changes + [change]) is None:
                self.unfixable.append(f"{key}: {value!r} left as it is: {self.refused}")
                continue
            self.changes.append(change)
            self._note(f"{key}: {value!r} → true (--open-policy optin; Hermes accepts only true/1/yes, "
                              "unpadded)")

    def disable_dead_transports(self) -> set[str]:
        disabled: set[str] = set()
        if self.options.dead_transport != "disable":
            return disabled
        for name, state in self.report.effective.platforms.items():
            transport = self.report.transports.get(name)
            if not state.enabled or transport is None or not transport.dead:
                continue
            self.refused = None
            candidate = self._disable(name)
            if candidate is None:
                self.unfixable.append(f"{name}: cannot connect, and no change this tool makes disables it"
                                      f"{self._why_unreachable(name)}")
                continue
            self.changes.extend(candidate)
            disabled.add(name)
            why = f"({transport.detail}: it cannot connect under any policy); credentials kept"
            self.notes.append(f"{name}: will be disabled {why}, `hermes-wizard undo` restores")
            self.done.append(f"{name}: disabled {why}; `hermes-wizard undo` restores")
        return disabled

    def _disable(self, name: str) -> list[Change] | None:
        reason = "transport cannot connect"
        steps: list[list[Change]] = []
        switch = self.platforms[name].enabled_env if name in self.platforms else None
        if switch:  # WhatsApp's WHATSAPP_ENABLED
            steps.append([self._env_set(switch, "false", name, reason)])
        forcing = [k for k in self.model.forcing_credentials(name) if k in self.snapshot.env.entries]
        if forcing:
            steps.append([Change(ENV, k, None, None, ChangeAction.DISABLE, name, reason, is_secret_name(k))
                          for k in forcing])
        steps.append([Change(YAML, ".".join(block + ("enabled",)), None, "false", platform=name, reason=reason)
                      for block in platform_blocks(self.snapshot.yaml.mapping(), name)])
        chosen: list[Change] = []
        for step in steps:
            after = self._try(self.changes + chosen + step)
            if after is None:  # a writer refuses this step: try the next one without it
                continue
            chosen = chosen + step
            state = after.effective.platforms.get(name)
            if state is None or not state.enabled:
                return chosen
        return None

    def _why_unreachable(self, name: str, policy: bool = False) -> str:
        if self.snapshot.yaml.error is not None or self.report.effective.yaml_fallback:
            return ": Hermes ignores config.yaml (see HW020); fix it, then run doctor again"
        if self.refused:  # the writer's own words: why the edit that would reach Hermes was not made
            return f": {self.refused}"
        gateway_json = self.snapshot.gateway_json.data
        if isinstance(gateway_json, dict) and name in (gateway_json.get("platforms") or {}):
            return (": it is configured in the legacy gateway.json, where this tool only closes an open policy and "
                    "removes values Hermes crashes on")
        return " (managed /etc/hermes or the service environment)" if policy else "; edit its settings by hand"

    def fix_open_policies(self, skip: set[str]) -> None:
        """For each refusing platform, try ever stronger change sets — close the open value where
        it lives; then override it from .env; then from config.yaml's `platforms` (which beats the
        legacy gateway.json) — and keep the first that Hermes, re-judged, no longer refuses.  A
        platform nothing reaches gets no change at all, only a `not fixed` line."""
        current = self._judge()
        for violation in [v for v in current.violations if v.platform not in skip]:
            if self.options.open_policy == "allowlist" and not _listed_ids(violation.platform, current):
                spec = self.platforms[violation.platform]
                self.unfixable.append(f"{violation.platform}: --open-policy allowlist, but no IDs are listed"
                                      f"{f' in {spec.allowlist_env}' if spec.allowlist_env else ''} or allow_from: "
                                      "an allowlist of nobody is pairing; use --open-policy pairing (or list the "
                                      "IDs first)")
                continue
            kept, self.refused = len(self.changes), None
            for attempt in self._policy_attempts(violation, current):
                self.changes[kept:] = attempt
                after = self._try(self.changes)
                if after is None:
                    continue
                if violation.platform not in {v.platform for v in after.violations}:
                    self.notes.extend(self._policy_notes(violation))
                    self.done.extend(self._policy_notes(violation, done=True))
                    break
            else:
                del self.changes[kept:]
                self.unfixable.append(f"{violation.platform}: open policy set where no change this tool makes "
                                      f"reaches Hermes{self._why_unreachable(violation.platform, True)}")

    def _policy_attempts(self, violation: Violation, current: HomeReport) -> Iterator[list[Change]]:
        name, spec = violation.platform, self.platforms[violation.platform]
        assert spec.gate is not None  # a violation of the startup gate names a gated platform
        if self.options.open_policy == "optin":
            yield [self._env_set(spec.gate.allow_all_env, "true", name, "explicit opt-in to open access")]
            return
        target, data = self.options.open_policy, current.snapshot.yaml.mapping()
        where_it_lives: list[Change] = []
        env_overrides: list[Change] = []
        yaml_overrides: list[Change] = []
        for side in violation.open_sides():
            env_name = getattr(spec.gate, f"{side.split('_')[0]}_env")
            if env_name:
                change = self._env_set(env_name, target, name, "closing an open policy")
                if current.effective.environ.get(env_name, "").strip().lower() == "open":
                    where_it_lives.append(change)
                else:
                    env_overrides.append(change)
            for path in yaml_paths(name, side, data):
                value = lookup(data, path)
                if value is not None and str(value).strip().lower() == "open":
                    where_it_lives.append(Change(YAML, ".".join(path), str(value), target, platform=name,
                                                 reason="closing an open policy"))
            legacy = lookup(current.snapshot.gateway_json.data, ("platforms", name, "extra", side))
            if isinstance(legacy, str) and legacy.strip().lower() == "open":  # gateway.json's extra: read first
                where_it_lives.append(Change(GATEWAY_JSON, f"platforms.{name}.extra.{side}", legacy, target,
                                             platform=name, reason="closing an open policy"))
            path = ("platforms", name, "extra", side)
            before = lookup(data, path)
            yaml_overrides.append(Change(YAML, ".".join(path), None if before is None else str(before), target,
                                         platform=name, reason="overriding an open policy set elsewhere"))
        yield where_it_lives
        yield where_it_lives + env_overrides
        yield where_it_lives + env_overrides + yaml_overrides

    def _policy_notes(self, violation: Violation, done: bool = False) -> list[str]:
        name, spec = violation.platform, self.platforms[violation.platform]
        assert spec.gate is not None  # a violation of the startup gate names a gated platform
        if self.options.open_policy == "optin":
            stays = "kept" if done else "will stay"
            return [f"{name}: {stays} open, {spec.gate.allow_all_env}=true (anyone who can reach the bot can use "
                    "the agent)"]
        target = self.options.open_policy
        why = {"pairing": "no allow-all opt-in was set; pairing keeps strangers out",
               "allowlist": f"only IDs listed in {spec.allowlist_env} or allow_from get in"}[target]
        return [f"{name}: {side} open → {target} ({why})" for side in violation.open_sides()]

    def fix_env_encoding(self) -> None:
        """A UTF-16 `.env` under a Hermes that reads it as UTF-8 (0.18) loses its first key (and, with CRLF
        line ends, reads more lines oddly), and Hermes rewrites the file that way for good at its next start.
        It is written as UTF-8 — so later edits reach Hermes — but the conversion alone must not change what
        Hermes reads: every key it would newly read is commented out (`#hermes-wizard-off:`, reversible); if
        a value it reads would change, the file is left as it is and the note says why."""
        env = self.snapshot.env
        model = self.model
        if env.encoding == "utf-32" and env.blocks_start:
            self._reencode_crashing_env()
            return
        if env.encoding not in ("utf-16", "utf-32") or model.reads_utf16_env:
            return
        version = self.report.hermes.judged_as
        reencode = Change(ENV, "<encoding>", env.encoding, "utf-8", ChangeAction.REENCODE,
                          reason=f"this Hermes reads a {env.encoding.upper()} .env as UTF-8")
        converted = planned_contents(self.plan([reencode]), {ENV: read_bytes(self.report.home / ENV), YAML: None},
                                     model)
        after = read_env_file(Path(ENV), {}, content=converted[ENV], model=model).values
        before = env.values
        changed = [k for k in after if k in before and after[k] != before[k]]
        if changed:
            self.unfixable.append(f".env: kept as UTF-16: converting it would change how Hermes {version} reads "
                              f"{changed[0]} (it reads the file as UTF-8); convert it yourself if you mean that: "
                              "iconv -f UTF-16 -t UTF-8 .env > .env.new && mv .env.new .env")
            return
        unread = [k for k in after if k not in before]
        self.changes[:0] = [reencode] + [Change(ENV, k, None, None, ChangeAction.DISABLE, None,
                                                f"Hermes {version} never read it", is_secret_name(k)) for k in unread]
        words = f"Hermes {version} reads it as UTF-8"
        if unread:
            words += (f"; {', '.join(unread)}, which Hermes never read, stay{'s' if len(unread) == 1 else ''} "
                      "unread: commented out with #hermes-wizard-off: (remove the marker to use it)")
        self._note(f".env: {env.encoding.upper()} → UTF-8 ({words})")

    def _reencode_crashing_env(self) -> None:
        """A UTF-32 `.env` that crashes Hermes 0.19 at start (its sanitizer leaves UTF-32, python-dotenv reads
        it as latin-1 and puts NUL bytes into the environment): written as UTF-8, Hermes reads what it says.
        The gateway never ran with it, so there is no running behaviour to keep: the repairs after this one
        judge the converted file (an open policy in it is closed like any other)."""
        version = self.report.hermes.judged_as
        reencode = Change(ENV, "<encoding>", "utf-32", "utf-8", ChangeAction.REENCODE,
                          reason=f"Hermes {version} crashes at start on a UTF-32 .env")
        after = self._try([reencode])
        if after is None or after.snapshot.env.blocks_start:
            why = self.refused or "the converted file still crashes Hermes"
            self.unfixable.append(f".env: kept as UTF-32 ({why}); convert it yourself: "
                                  "iconv -f UTF-32 -t UTF-8 .env > .env.new && mv .env.new .env")
            return
        self.changes[:0] = [reencode]
        self._note(f".env: UTF-32 → UTF-8 (Hermes {version} crashed at start reading it as latin-1)")

    def fix_env_mode(self) -> None:
        env = self.snapshot.env
        if env.exists and env.error is None and env.mode is not None and env.mode & 0o077:
            self.changes.append(Change(ENV, "<mode>", f"{env.mode:04o}", "0600", ChangeAction.MODE,
                                       reason="secrets readable by others"))
            self._note(f".env: mode {env.mode:04o} → 0600 (it holds secrets)")


def _listed_ids(name: str, report: HomeReport) -> list[str]:
    """The IDs Hermes would allow on `name` (its env allowlist, else YAML allow_from), '*' excluded."""
    spec, state = report.model.platforms()[name], report.effective.platforms.get(name)
    listed = report.effective.environ.get(spec.allowlist_env or "", "").split(",")
    allow_from = state.extra.get("allow_from") if state is not None else None
    listed += allow_from if isinstance(allow_from, list) else str(allow_from or "").split(",")
    return [str(item).strip() for item in listed if str(item).strip() not in ("", "*")]


