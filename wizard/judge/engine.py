"""The engine: Snapshot → Effective → Findings → HomeReport, for one home or many.

`evaluate(home)` is what every face calls; `HomeReport.as_json()` is the `check
--format json` contract (ARCHITECTURE.md, "Contracts").  A home is judged with the model of the Hermes version it is
judged as (`models.model_for`): its resolver, its startup rule, its platforms; `HomeReport.model` hands
that model to whatever reads the report (plan, checks, faces), so no layer above names a version.

A Hermes that no model judges exactly (`Judgement.asked`: a newer version, a fork) is asked: its own startup
decision, run on a copy of the home on disk (wizard/hermes/verify.py), is the report's verdict (`would_start`,
`refusal`, the exit code); the nearest model words the rest, and keeps only the refusal Hermes confirms.  Where
it cannot be asked the report has no verdict (`unjudged`), never the model's guess.  Planned contents
(`overrides`) are not on disk to ask about: they are judged by the nearest model, and say so.

Contract: read-only; never raises for anything found on disk.  `check` loads this module; asking the installed
Hermes itself (a subprocess) is imported lazily, only for `--verify` or an asked Hermes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.frozenmap import FrozenMap
from hermes_wizard.core.homeroot import home_owner
from hermes_wizard.core.kinds import Severity, TransportState, Verdict
from hermes_wizard.core.safetext import policy_word
from hermes_wizard.core.smallfile import reading_for
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.loader import gate
from hermes_wizard.hermes.loader.credentials import Transport, transport_for
from hermes_wizard.hermes.loader.inputs import Snapshot
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.hermes.loader.state import Effective
from hermes_wizard.hermes.loader.yamlfile import ParsedYaml
from hermes_wizard.hermes.models import model_for, refuses_at_start
from hermes_wizard.hermes.versions import Judgement, judgement
from hermes_wizard.judge.checks import Context, Finding, run_checks
from hermes_wizard.judge.commands import home_words, naming_the_home
from hermes_wizard.read.snapshot import take_snapshot
from hermes_wizard.service.scope import ServiceScope

if TYPE_CHECKING:
    from hermes_wizard.hermes.loader.catalog import Spec
    from hermes_wizard.hermes.model import Model
    from hermes_wizard.hermes.verify import HermesAnswer


@value_class
class PlatformRow(Value):
    """One platform's line in the report: its policies, transport and verdict."""

    name: str
    enabled: bool
    dm_policy: str | None
    group_policy: str | None
    opted_in: bool
    transport: TransportState
    verdict: Verdict
    access: str = ""  # plain words for text output (not part of the JSON contract)

    def as_json(self) -> dict[str, object]:
        return {"name": self.name, "enabled": self.enabled, "dm_policy": self.dm_policy,
                "group_policy": self.group_policy, "opted_in": self.opted_in, "transport": self.transport,
                "verdict": self.verdict}


@value_class
class HomeReport(Value):
    """What `check` says about one home: a value, equal to another report judged alike, and hashable.

    The verdict (violations, findings, rows, the Hermes answer) is tuples of frozen values. The evidence it was
    judged from, `snapshot` (the files as read, Hermes's parsed YAML included), `effective` (Hermes's state
    resolved from them) and `facts` (the host as detected), belongs to the readers, which build it as they
    read: it takes part in equality but not in the hash (equal reports still hash alike), and nothing in
    the report writes to it."""

    home: Path
    profile: str
    snapshot: Snapshot = field(hash=False)
    effective: Effective = field(hash=False)
    violations: tuple[gate.Violation, ...]
    findings: tuple[Finding, ...]
    transports: Mapping[str, Transport] = field(default_factory=FrozenMap)  # enabled platform -> its transport
    rows: tuple[PlatformRow, ...] = ()
    facts: HostFacts | None = field(default=None, hash=False)  # judged with these (reused by simulations)
    # the service units looked at (reused by simulations: a preview reads the units this judgement read)
    service: ServiceScope = field(default_factory=ServiceScope, hash=False, compare=False, repr=False)
    # the parses of config.yaml made so far (reused by simulations of the same bytes)
    parsed: ParsedYaml = field(default_factory=ParsedYaml, hash=False, compare=False, repr=False)
    # A version without the startup refusal (before 0.18) starts anyway: what it would refuse
    # after an upgrade is kept here, not in `violations` (today's truth decides the exit code).
    upgrade_violations: tuple[gate.Violation, ...] = ()
    hermes_answer: HermesAnswer | None = None  # the installed Hermes's own verdict (`--verify`), when asked

    def naming_this_home(self, text: str) -> str:
        """`text` with this home named on each of our commands in it, where a command run as printed would find
        another (wizard/judge/commands.py)."""
        default = self.facts.default_home if self.facts is not None else None
        return naming_the_home(text, home_words(self.home, self.profile, default))

    @property
    def hermes(self) -> Judgement:
        judged = self.facts.hermes if self.facts is not None else None
        return judged if judged is not None else judgement(None, None, "assumed")

    @property
    def model(self) -> Model:
        """The model of the version this report was judged as: ask it for that Hermes's facts."""
        return model_for(self.hermes)

    @property
    def decided_by_hermes(self) -> HermesAnswer | None:
        """Hermes's own answer where it is the verdict (an asked Hermes, asked about the home on disk)."""
        told = self.hermes_answer
        return told if told is not None and self.hermes.asked else None

    @property
    def unjudged(self) -> str | None:
        """Why there is no verdict: a file more than this tool judges (HW024), or an asked Hermes that gave none."""
        if self.effective.unjudged is not None:
            return self.effective.unjudged
        told = self.decided_by_hermes
        if told is not None and not told.decided:
            return f"{self.hermes.named} is not modelled and could not be asked: {told.verdict()}"
        return None

    @property
    def would_start(self) -> bool:
        told = self.decided_by_hermes
        if told is not None:
            return told.starts or not told.decided  # no answer: no verdict (`unjudged`), never an obstacle
        return self.effective.crash is None and not self.violations

    @property
    def crash(self) -> str | None:
        """Why the gateway would crash at start (the asked Hermes's own error, else the model's), or None."""
        told = self.decided_by_hermes
        return (told.error if told.decided else None) if told is not None else self.effective.crash

    @property
    def refusal(self) -> dict[str, str | None] | None:
        told = self.decided_by_hermes
        if told is not None:
            if told.starts or not told.decided:
                return None
            if told.error:
                return {"platform": None, "reason": told.error}
            return {"platform": told.refusal_platform, "reason": told.refusal_reason}
        if self.effective.crash is not None:
            return {"platform": None, "reason": self.effective.crash}
        if self.violations:
            first = self.violations[0]
            return {"platform": first.platform, "reason": first.reason}
        return None

    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == Severity.ERROR]

    def exit_code(self) -> ExitCode:
        told = self.hermes_answer  # --verify: Hermes's refusal counts even where the model says it starts
        if not self.would_start or (told is not None and told.decided and not told.starts):
            return ExitCode.CONFIG
        return ExitCode.PROBLEMS if self.errors() else ExitCode.OK

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "home": str(self.home), "profile": self.profile, "hermes": self.hermes.as_json(),
            "would_start": None if self.unjudged else self.would_start,  # null: cannot judge (HW024, HW162)
            "refusal": self.refusal, "platforms": [row.as_json() for row in self.rows],
            "findings": [f.as_json() for f in self.findings]}
        return out | ({"verified_by_hermes": self.hermes_answer.as_json()} if self.hermes_answer else {})


def evaluate(home: Path, profile: str = "default", *, base_env: Mapping[str, str] | None = None,
             facts: HostFacts | None = None, overrides: dict[str, bytes] | None = None,
             verify: bool = False, keyring_planned: dict[str, str] | None = None,
             service: ServiceScope | None = None, parsed: ParsedYaml | None = None,
             modes: Mapping[str, int] | None = None) -> HomeReport:
    """Judge one home; `overrides` ({".env": bytes, ...}) judges planned contents instead, and
    `keyring_planned` ({VARIABLE: secret}) keyring entries a plan will store, and `modes` ({".env": 0o600}) the
    modes it sets (the files judged with the modes and owners the writer leaves them);
    `verify` also asks the installed Hermes itself (on a copy of the home on disk); `service` is the units
    looked at (default: the machine's unit files, systemd not asked); `parsed` the session's parses of config.yaml
    (a judgement of the same bytes parses them once; the report carries it, or a new one, to its simulations)."""
    facts = facts or HostFacts.detect(home, environ=base_env)
    service = service if service is not None else ServiceScope()
    # root judging a user's home reads what its gateway (the user) could; whose it is comes from the folder
    # itself (a profile: through its root), never from where a link leads
    model = model_for(facts.hermes)
    with reading_for(home_owner(home)):
        snapshot = take_snapshot(home, profile, base_env, overrides, model, keyring_planned=keyring_planned,
                                 parsed=parsed, modes=modes)  # parsed None (check, the gate): nothing kept
        effective = model.resolve(snapshot, facts)
        transports = {name: transport_for(name, home, state, effective.environ)
                      for name, state in effective.platforms.items() if state.enabled}
    violations = model.open_policy_violations(effective)
    upgrade: list[gate.Violation] = []
    if not refuses_at_start(facts.hermes):
        violations, upgrade = [], violations
    answer = None
    asked = (facts.hermes is not None and facts.hermes.asked and overrides is None and keyring_planned is None
             and not modes)
    if verify or asked:
        from hermes_wizard.hermes.verify import ask_installed  # only --verify and an asked Hermes ask it

        answer = ask_installed(home, facts.site_packages, base_env)
    if asked and answer is not None:
        violations = confirmed_by(answer, violations)
    refusals, refusals_after_upgrade, by_platform = tuple(violations), tuple(upgrade), FrozenMap(transports)
    findings = run_checks(Context(snapshot, effective, refusals, by_platform, facts, refusals_after_upgrade, answer,
                                  service))
    named = home_words(home, profile, facts.default_home)
    if named:  # run as printed, each command of a finding acts on this home, not the one it would find itself
        findings = [replace(f, message=naming_the_home(f.message, named), fix=naming_the_home(f.fix, named))
                    for f in findings]
    return HomeReport(home, profile, snapshot, effective, refusals, tuple(findings), by_platform,
                      tuple(_rows(effective, refusals, by_platform, refusals_after_upgrade, model.platforms())),
                      facts=facts, service=service, parsed=parsed if parsed is not None else ParsedYaml(),
                      upgrade_violations=refusals_after_upgrade, hermes_answer=answer)




def confirmed_by(told: HermesAnswer, violations: list[gate.Violation]) -> list[gate.Violation]:
    """The model's refusals that an asked Hermes's own verdict confirms: all of them when it stops at the same
    platform first, only that platform's when it stops elsewhere, none when it starts, crashes or gave no
    answer (the verdict is its own; the model only words it)."""
    if not told.decided or told.starts or told.error:
        return []
    if violations and violations[0].platform == told.refusal_platform:
        return violations
    return [v for v in violations if v.platform == told.refusal_platform]


def _rows(effective: Effective, violations: Sequence[gate.Violation], transports: Mapping[str, Transport],
          upgrade: Sequence[gate.Violation], platforms: dict[str, Spec]) -> list[PlatformRow]:
    refusing = {v.platform for v in violations}
    open_today = {v.platform for v in upgrade}  # open, and not refused by this (pre-0.18) Hermes
    rows = []
    for name, state in effective.platforms.items():
        spec = platforms.get(name)
        if spec is None:
            continue
        seen = gate.policies(name, state, effective.environ, platforms)
        transport = transports.get(name)
        opted = gate.opted_in(name, effective.environ, platforms)
        if not state.enabled:
            verdict = Verdict.DISABLED
        elif name in refusing:
            verdict = Verdict.REFUSES_START
        elif transport is not None and transport.dead:
            verdict = Verdict.CANNOT_CONNECT
        elif opted or name in open_today or (seen is not None and "open" in (seen.dm, seen.group)):
            verdict = Verdict.OPEN
        else:
            verdict = Verdict.OK
        # A policy is shown as a plain word or by its size: an unsplit glued line can carry a token.
        rows.append(PlatformRow(name, state.enabled, _shown_policy(spec, seen, "dm", effective.environ),
                                _shown_policy(spec, seen, "group", effective.environ),
                                opted, transport.state if transport else TransportState.UNCHECKED, verdict,
                                _access_words(spec, seen, opted, effective.environ, name in open_today)))
    rows.sort(key=lambda r: (not r.enabled, r.name))
    return rows


def _shown_policy(spec: Spec, seen: gate.Policies | None, side: str, environ: dict[str, str]) -> str | None:
    """The policy the platform's adapter applies: the gate reads an unset policy as pairing, but an
    adapter has its own default (Weixin groups: disabled, gateway/platforms/weixin.py)."""
    if seen is None:
        return None
    env_name = getattr(spec.gate, f"{side}_env") if spec.gate else None
    if not getattr(seen, f"{side}_from_extra") and not (env_name and str(environ.get(env_name) or "").strip()):
        return policy_word(getattr(spec, f"{side}_default"))
    return policy_word(getattr(seen, side))


def _access_words(spec: Spec, seen: gate.Policies | None, opted: bool, environ: dict[str, str],
                  open_unrefused: bool = False) -> str:
    if spec.always_authorized:
        return "no per-user access control"
    if opted:
        return "open to everyone (allow-all opt-in)"
    if open_unrefused:  # 0.17: the adapter forwards every sender; the gateway's authorization still decides
        return "open policy: every stranger reaches the gateway and is offered pairing (no startup refusal here)"
    listed = [item.strip() for item in environ.get(spec.allowlist_env or "", "").split(",") if item.strip()]
    if "*" in listed:
        return "open to everyone ('*' in the allowlist)"
    if listed:
        return f"allowlist ({len(listed)} user{'s' if len(listed) != 1 else ''})"
    if seen is not None:
        # the policies the adapter applies, as the row and JSON show them (not the gate's reading of an unset one)
        return (f"dm {_shown_policy(spec, seen, 'dm', environ)}, "
                f"groups {_shown_policy(spec, seen, 'group', environ)}")
    return "pairing (no allowlist)"
