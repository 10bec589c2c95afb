"""The wizard's session: the answers given so far, the Plan they make, and the engine's report of the
home as it will be — one model under every face (the TUI, the plain prompts, an answers file).

Reconciled per platform, whatever order the answers came in:
  * typed credentials are kept as typed (a draft survives a revisit and Esc); one that cannot be right
    (hermes_wizard.plan.answers.credential_error) never reaches the plan;
  * a platform's own access answer replaces every other access decision for that platform, the
    doctor's repair included (its policy changes and its disabling of a dead transport): pairing or
    allowlist takes that platform's allow-all away; open needs the platform's name typed, in every
    face, the repair's opt-in too; the global GATEWAY_ALLOW_ALL_USERS is never set (the repair may only
    comment it out: a UTF-16 `.env` converted for 0.18 keeps a key Hermes never read unread);
  * a group policy (`set_group`, the platforms with their own gate only) is written where Hermes reads
    it, and a group allowlist's chats where its adapter reads its group list (the catalog's Spec); a group
    open to everyone needs the platform's name typed too, and sets that platform's own allow-all, which
    Hermes's startup rule demands for an open group as for open DMs;
  * the repair applies to every platform the user did not answer for;
  * `secrets_in_keyring` keeps every platform secret the answers would write to `.env` in the OS keyring
    instead (wizard/plan/keyring_steps.py `keep_in_keyring`): the same answers, no plaintext secret.
`outlook()` is the report `check` would give the written files (the engine's own preview), every
finding included; a face says that, never a friendlier story.

A face may ask for `plan()` and `outlook()` as often as it redraws: the plan is built once per change of the
answers, and each planned state is judged once (`judged` holds those judgements, and the doctor's repair
puts in the one it made already: wizard/cases/fixing.py).

Contract: pure — nothing here writes; only hermes_wizard.write.apply does, with `plan()`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hermes_wizard.hermes.loader.envrules import ALLOW_ALL_TRUE
from hermes_wizard.plan.actions import ChangeAction
from hermes_wizard.plan.answers import (
    ACCESS_MODES,
    EMPTY_ALLOWLIST,
    EMPTY_GROUP_ALLOWLIST,
    GROUP_POLICIES,
    access_changes,
    build_plan,
    chat_problems,
    credential_changes,
    credential_error,
    enable_changes,
    group_chat_changes,
    opt_in_changes,
    policy_changes,
    preview,
    unmatchable_ids,
)
from hermes_wizard.plan.changes import Change, Plan
from hermes_wizard.plan.keyring_steps import keep_in_keyring, platform_secrets

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from hermes_wizard.hermes.loader.catalog import Spec
    from hermes_wizard.judge.engine import HomeReport
    from hermes_wizard.plan.service_steps import ServiceStep

# YAML keys that decide who gets in (the env names come from each platform's catalog entry)
_ACCESS_YAML_LEAVES = ("dm_policy", "group_policy", "allow_from", "allowed_users", "allow_all_users")


class AnswerError(ValueError):
    """An answer the session refuses, in words for the user (an allowlist of nobody, an unconfirmed open)."""


@dataclass
class PlatformAnswer:
    typed: dict[str, str] = field(default_factory=dict)  # credential drafts, exactly as typed
    access: str | None = None  # one of ACCESS_MODES; None: not answered
    ids: list[str] = field(default_factory=list)
    group: str | None = None  # one of GROUP_POLICIES; None: not answered
    chats: list[str] = field(default_factory=list)  # the group chats a group allowlist names
    # a screen's unkept choices (Esc keeps them): never in the plan
    drafts: dict[str, str] = field(default_factory=dict)


class Session:
    def __init__(self, report: HomeReport, mode: str = "setup") -> None:
        self.report, self.mode = report, mode
        self.platforms: dict[str, PlatformAnswer] = {}
        self.repair: list[Change] = []
        self.repair_confirmed: set[str] = set()  # platforms whose name was typed to let the repair open them
        # every face asks once where typed secrets go (`keyring_store.usable()` says if it can):
        # True keeps them in the OS keyring — the Plan stores them there and writes none to .env
        self.secrets_in_keyring = False
        self._planned: tuple[tuple[object, ...], Plan] | None = None  # the answers last planned, and their plan
        self.judged: dict[tuple[object, ...], HomeReport] = {}  # planned state -> its report (this report's only)

    # -- answers ---------------------------------------------------------------------------------------------

    def answer(self, platform: str) -> PlatformAnswer:
        return self.platforms.setdefault(platform, PlatformAnswer())

    def type_value(self, platform: str, key: str, value: str) -> str | None:
        """Keep a typed credential as a draft; the reason it cannot be right, or None."""
        self.answer(platform).typed[key] = value
        return credential_error(key, value) if value else None

    def keep_draft(self, platform: str, **fields: str) -> None:
        """What a screen showed when the user left it without keeping it (a choice, typed IDs): shown again
        on the way back, never planned."""
        self.answer(platform).drafts.update(fields)

    def typed_anything(self) -> bool:
        """Whether anything was typed or chosen that quitting would lose (an invalid draft included)."""
        return any(any(v for v in a.typed.values()) or a.drafts or a.access or a.group
                   for a in self.platforms.values())

    def credential_problems(self, platform: str) -> dict[str, str]:
        typed = self.answer(platform).typed
        return {key: problem for key, value in typed.items() if value and (problem := credential_error(key, value))}

    def set_access(self, platform: str, mode: str, ids: Iterable[str] = (), confirm: str = "") -> None:
        """Answer who may use `platform`; AnswerError for an allowlist of nobody or an unconfirmed open."""
        if mode not in ACCESS_MODES:
            raise AnswerError(f"unknown access mode {mode!r}")
        ids = [i for i in ids if i.strip()]
        if mode == "allowlist" and not ids:
            raise AnswerError(EMPTY_ALLOWLIST)
        spec = self.report.model.platforms().get(platform)  # None: no ID shape to check (never a KeyError)
        if mode in ("allowlist", "pairing") and spec is not None and (wrong := unmatchable_ids(spec, ids)):
            raise AnswerError("; ".join(wrong) + ".")
        if mode == "open":
            self.confirm_open(platform, confirm)
        answer = self.answer(platform)
        answer.access, answer.ids = mode, list(ids)
        answer.drafts.clear()

    def set_group(self, platform: str, policy: str, confirm: str = "", chats: Sequence[str] = ()) -> None:
        """Answer what `platform` does with group chats, and with `allowlist` the group chats its adapter answers
        (`chats`, written where the adapter reads its group list); AnswerError for a platform without a group
        policy in Hermes, an unknown policy, an unconfirmed open, an allowlist of no chat, chats with another
        policy, or a chat ID that cannot be written as one entry of that list."""
        spec = self.report.model.platforms().get(platform)
        if spec is None or spec.gate is None:
            raise AnswerError(f"{platform} has no group policy in Hermes")
        if policy not in GROUP_POLICIES:
            raise AnswerError(f"unknown group policy {policy!r}")
        if policy == "allowlist" and not chats:
            raise AnswerError(EMPTY_GROUP_ALLOWLIST)
        if policy != "allowlist" and chats:
            raise AnswerError(f"group chats are listed only with the group policy allowlist, not {policy}")
        if wrong := chat_problems(spec, chats):
            raise AnswerError("; ".join(wrong) + ".")
        if policy == "open":
            self.confirm_open(platform, confirm)
        answer = self.answer(platform)
        answer.group, answer.chats = policy, list(dict.fromkeys(chats))

    def confirm_open(self, platform: str, typed: str) -> None:
        """AnswerError unless `typed` is the platform's name (what every face asks before opening one)."""
        if typed.strip() != platform:
            raise AnswerError(f"Type {platform} to confirm that anyone who can reach it may use the agent.")

    def set_repair(self, changes: Iterable[Change], confirmed: Iterable[str] = ()) -> None:
        """The doctor's repair; an opt-in in it counts only for the platforms in `confirmed` (names typed)."""
        self.repair = list(changes)
        self.repair_confirmed = {name.strip() for name in confirmed}

    def needs_confirming(self) -> list[str]:
        """Platforms the repair would open to everyone that nobody confirmed by typing their name."""
        specs = self.report.model.platforms()
        return sorted({c.platform for c in self.repair if _opens(c, specs) and c.platform
                       and c.platform not in self.repair_confirmed and self._answered(c.platform) is None})

    # -- what they make --------------------------------------------------------------------------------------

    def changes(self) -> list[Change]:
        specs = self.report.model.platforms()  # the judged version's platforms and variable names
        out = [c for c in self.repair if not (c.platform and self._answered(c.platform) is not None
                                              and (_decides_access(c, specs) or _decides_enabled(c)))
               and not (_opens(c, specs) and c.platform not in self.repair_confirmed)
               and not (c.platform in self.platforms and self.platforms[c.platform].group and _decides_group(c, specs))]
        for platform, answer in self.platforms.items():
            problems = self.credential_problems(platform)
            good = {k: v for k, v in answer.typed.items() if k not in problems}
            out += credential_changes(self.report, platform, good)
            if answer.access is not None:
                access = access_changes(self.report, platform, answer.access, answer.ids)
                if answer.access != "disabled":
                    access = enable_changes(self.report, platform, True) + access
                out += access
            if answer.group is not None:
                out += policy_changes(self.report, platform, "group", answer.group)
                out += group_chat_changes(self.report, platform, answer.chats) if answer.chats else []
                if answer.group == "open":  # Hermes refuses an open group without the platform's own opt-in
                    allow_all = specs[platform].allow_all_env
                    out = [c for c in out if not (c.platform == platform and c.key == allow_all)]
                    out += opt_in_changes(self.report, platform)
        return [c for c in out if c.key != "GATEWAY_ALLOW_ALL_USERS" or c.action == ChangeAction.DISABLE]

    def typed_secrets(self) -> list[str]:
        """The platform secrets typed so far (what "keep the secrets in the OS keyring" would keep)."""
        secrets = set(platform_secrets(self.report.model.platforms()))
        return sorted({key for answer in self.platforms.values() for key, value in answer.typed.items()
                       if value and key in secrets})

    def plan(self) -> Plan:
        """The plan the answers make, built once per change of the answers."""
        answers = self._answers()
        if self._planned is None or self._planned[0] != answers:
            self._planned = (answers, self._build_plan())
        return self._planned[1]

    def _build_plan(self) -> Plan:
        changes = self.changes()
        if not self.secrets_in_keyring:
            return build_plan(self.report, changes)
        changes, steps = keep_in_keyring(self.report, changes)
        return build_plan(self.report, changes).with_keyring(steps)

    def _answers(self) -> tuple[object, ...]:
        """Everything `plan()` depends on besides the report (a new report forgets the plan): every kept answer
        (drafts are never planned), the repair and its confirmations, where secrets go."""
        kept = tuple((name, tuple(a.typed.items()), a.access, tuple(a.ids), a.group, tuple(a.chats))
                     for name, a in sorted(self.platforms.items()))
        return (kept, tuple(self.repair), frozenset(self.repair_confirmed), self.secrets_in_keyring)

    def pending(self) -> int:
        return len(self.plan().changes)

    def outlook(self, service_steps: Sequence[ServiceStep] = ()) -> HomeReport:
        """The HomeReport of the home as it will be once `plan()` is applied (the report itself when nothing is);
        with `service_steps`, their drop-ins read as written too (wizard/service/scope.py `with_planned`).
        Each planned state is judged once."""
        plan = self.plan()
        dropins = tuple((step.unit_path, step.variant, step.text) for step in service_steps if step.variant)
        if not (plan or dropins):
            return self.report
        key = (plan, dropins)
        if key not in self.judged:
            self.judged[key] = preview(self.report, plan, service_steps)
        return self.judged[key]

    def judged_already(self, plan: Plan, report: HomeReport) -> None:
        """`report` is the home as `plan` leaves it, judged elsewhere (the doctor's repair judged its own plan):
        `outlook()` gives it for that plan without judging it again."""
        self.judged.setdefault((plan, ()), report)

    def reread(self, report: HomeReport) -> None:
        """The home changed under the session (Hermes's own login wrote creds.json and .env): judge from
        `report` now, keeping every answer (the plan is made anew against the files as they are)."""
        self.report, self.judged, self._planned = report, {}, None

    def applied(self, report: HomeReport) -> None:
        """After apply: the written home is the new starting point; the answers are spent."""
        self.report, self.platforms, self.repair, self.repair_confirmed = report, {}, [], set()
        self.judged, self._planned = {}, None

    def _answered(self, platform: str) -> str | None:
        answer = self.platforms.get(platform)
        return answer.access if answer is not None else None


def open_to_everyone(report: HomeReport) -> list[str]:
    """Enabled platforms where anyone who can reach the bot gets in (the report's own verdict words)."""
    return [row.name for row in report.rows if row.enabled and row.verdict == "open"]


def _decides_access(change: Change, specs: dict[str, Spec]) -> bool:
    spec = specs.get(change.platform or "")
    if spec is None:
        return False
    names = {spec.allow_all_env, spec.allowlist_env, spec.adapter_allowlist_env}
    if spec.gate:
        names |= {spec.gate.dm_env, spec.gate.group_env, spec.gate.allow_all_env}
    return change.key in names or change.key.rsplit(".", 1)[-1] in _ACCESS_YAML_LEAVES


def _decides_enabled(change: Change) -> bool:
    """A change that turns a platform on or off (the doctor disabling a dead transport): "disabled" is one of
    the access answers, so a platform's own answer replaces it too (pairing chosen for an unpaired WhatsApp
    keeps it enabled, as the user said)."""
    return change.action == ChangeAction.DISABLE or change.key.rsplit(".", 1)[-1] == "enabled" \
        or change.key.endswith("_ENABLED")


def _decides_group(change: Change, specs: dict[str, Spec]) -> bool:
    spec = specs.get(change.platform or "")
    return spec is not None and spec.gate is not None and (
        change.key in (spec.gate.group_env, spec.group_chats_env)
        or change.key.rsplit(".", 1)[-1] in ("group_policy", spec.group_chats_key))


def _opens(change: Change, specs: dict[str, Spec]) -> bool:
    """A change that sets a platform's allow-all opt-in (open to everyone)."""
    spec = specs.get(change.platform or "")
    return (spec is not None and change.key == spec.allow_all_env
            and (change.after or "").strip().lower() in ALLOW_ALL_TRUE)
