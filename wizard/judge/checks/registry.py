"""The check registry: `@check` registers a check function under its code; `run_checks`, `get_check` and
`all_checks` read what is registered.  The check modules import this module; the package
(wizard/judge/checks/__init__.py) imports every check module, so importing the package registers them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.kinds import Severity
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.loader.credentials import Transport
from hermes_wizard.hermes.loader.gate import Violation
from hermes_wizard.hermes.loader.inputs import Snapshot
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.hermes.loader.state import Effective
from hermes_wizard.hermes.models import model_for
from hermes_wizard.service.scope import ServiceScope

if TYPE_CHECKING:
    from hermes_wizard.hermes.model import Model
    from hermes_wizard.hermes.verify import HermesAnswer


@value_class
class Finding(Value):
    """One problem a check found: its stable code and name, severity, platform, message and fix."""

    code: str
    name: str
    severity: Severity
    platform: str | None
    message: str
    fix: str = ""

    def as_json(self) -> dict[str, object]:
        return {"code": self.code, "name": self.name, "severity": self.severity, "platform": self.platform,
                "message": self.message, "fix": self.fix}


@value_class
class Hit(Value):
    """What a check function yields; the registry turns it into a Finding."""

    platform: str | None
    message: str
    fix: str = ""
    severity: str | None = None  # overrides the check's default severity


@value_class
class Check(Value):
    """A registered check: its code, name, default severity, `explain` texts and function."""

    code: str
    name: str
    severity: str
    summary: str
    what: str
    why: str
    fix: str
    run: Callable[[Context], Iterable[Hit]]
    unjudged_too: bool = False  # runs on a home whose files are more than this tool judges

    def finding(self, hit: Hit) -> Finding:
        return Finding(self.code, self.name, Severity(hit.severity or self.severity), hit.platform, hit.message,
                       hit.fix)


@value_class
class Context(Value):
    """What every check reads: the snapshot, the resolved state, the gate's verdict and the host."""

    snapshot: Snapshot
    effective: Effective
    violations: tuple[Violation, ...]
    transports: Mapping[str, Transport]  # a FrozenMap: enabled platform -> its transport
    facts: HostFacts
    upgrade_violations: tuple[Violation, ...] = ()  # refusals of a newer Hermes, not of this one
    hermes_answer: HermesAnswer | None = None  # the installed Hermes's own verdict, when asked (--verify)
    service: ServiceScope = field(default_factory=ServiceScope)  # the service units looked at

    @property
    def home(self) -> Path:
        return self.snapshot.home

    @property
    def model(self) -> Model:
        """The model of the Hermes version judged: its platforms and variable names, never a fixed version's."""
        return model_for(self.facts.hermes)


REGISTRY: dict[str, Check] = {}
CheckRun = Callable[[Context], Iterable[Hit]]  # a check: what it finds in one judged home


def check(code: str, name: str, severity: str, summary: str, *, what: str, why: str,
          fix: str, unjudged_too: bool = False) -> Callable[[CheckRun], CheckRun]:
    def register(fn: CheckRun) -> CheckRun:
        if code in REGISTRY:
            raise RuntimeError(f"check code {code} registered twice")
        REGISTRY[code] = Check(code, name, Severity(severity), summary, what.strip(), why.strip(), fix.strip(), fn,
                               unjudged_too)
        return fn
    return register


def run_checks(ctx: Context) -> list[Finding]:
    """Every check's findings; for a home more than this tool judges (`Effective.unjudged`) only those of the
    checks that say so: the rest would judge a state built from files not read."""
    findings: list[Finding] = []
    unjudged = ctx.effective.unjudged is not None
    for registered in REGISTRY.values():
        if unjudged and not registered.unjudged_too:
            continue
        try:
            findings.extend(registered.finding(hit) for hit in registered.run(ctx))
        except Exception as exc:  # a broken check must not hide the others
            findings.append(Finding("HW000", "check-crashed", Severity.WARNING, None,
                                    f"check {registered.code} {registered.name} crashed: "
                                    f"{type(exc).__name__}: {exc}",
                                    "report this as a hermes-wizard bug"))
    findings.sort(key=lambda f: (f.severity.rank, f.code, f.platform or ""))
    return findings


def get_check(code: str) -> Check | None:
    code = code.strip()
    for registered in REGISTRY.values():
        if code.upper() == registered.code or code.lower() == registered.name:
            return registered
    return None


def all_checks() -> list[Check]:
    return sorted(REGISTRY.values(), key=lambda c: c.code)
