"""The check registry: small functions with stable codes, names and docs.

A check is a function `(Context) -> Iterable[Hit]` registered with `@check`.
Codes are never reused; the docstring-like `what/why/fix` texts feed
`hermes-wizard explain CODE`.  A check that raises becomes one `HW000
check-crashed` finding naming it, never a traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.kinds import Severity
from hermes_wizard.hermes.loader.credentials import Transport
from hermes_wizard.hermes.loader.gate import Violation
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.hermes.loader.state import Effective
from hermes_wizard.hermes.models import model_for
from hermes_wizard.read.snapshot import Snapshot

if TYPE_CHECKING:
    from hermes_wizard.hermes.model import Model
    from hermes_wizard.hermes.verify import HermesAnswer

@dataclass(frozen=True)
class Finding:
    code: str
    name: str
    severity: Severity
    platform: str | None
    message: str
    fix: str = ""

    def as_json(self) -> dict[str, object]:
        return {"code": self.code, "name": self.name, "severity": self.severity, "platform": self.platform,
                "message": self.message, "fix": self.fix}


@dataclass(frozen=True)
class Hit:
    """What a check function yields; the registry turns it into a Finding."""

    platform: str | None
    message: str
    fix: str = ""
    severity: str | None = None  # overrides the check's default severity


@dataclass(frozen=True)
class Check:
    code: str
    name: str
    severity: str
    summary: str
    what: str
    why: str
    fix: str
    run: Callable[[Context], Iterable[Hit]]

    def finding(self, hit: Hit) -> Finding:
        return Finding(self.code, self.name, Severity(hit.severity or self.severity), hit.platform, hit.message,
                       hit.fix)


@dataclass(frozen=True)
class Context:
    snapshot: Snapshot
    effective: Effective
    violations: list[Violation]
    transports: dict[str, Transport]
    facts: HostFacts
    upgrade_violations: list[Violation] = field(default_factory=list)  # refusals of a newer Hermes, not of this one
    hermes_answer: HermesAnswer | None = None  # the installed Hermes's own verdict, when asked (--verify)

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
          fix: str) -> Callable[[CheckRun], CheckRun]:
    def register(fn: CheckRun) -> CheckRun:
        if code in REGISTRY:
            raise RuntimeError(f"check code {code} registered twice")
        REGISTRY[code] = Check(code, name, Severity(severity), summary, what.strip(), why.strip(), fix.strip(), fn)
        return fn
    return register


def _load_all() -> None:
    from hermes_wizard.judge.checks import (  # noqa: F401  (registration)
        access,
        files,
        reach,
        runtime,
        secrets,
        service,
        transport,
        versions,
    )


def run_checks(ctx: Context) -> list[Finding]:
    _load_all()
    findings: list[Finding] = []
    for registered in REGISTRY.values():
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
    _load_all()
    code = code.strip()
    for registered in REGISTRY.values():
        if code.upper() == registered.code or code.lower() == registered.name:
            return registered
    return None


def all_checks() -> list[Check]:
    _load_all()
    return sorted(REGISTRY.values(), key=lambda c: c.code)
