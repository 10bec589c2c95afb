"""Which Hermes versions are modelled, and how any version is judged.

A report is always judged by a *model* (one modelled version's rules).  For the installed
version that model is:
  - the version itself, when it is modelled exactly (`MODELLED`);
  - for any other version, the nearest modelled one — and the report says the version is
    not modelled; `check --gate` then lets the gateway start, so the gate never blocks a
    Hermes it does not understand;
  - versions before `FIRST_REFUSING` have no startup refusal at all (0.17.0 is modelled so, and the
    oldest model judges anything older): the refusal becomes an upgrade finding.
`--hermes-version X` replaces detection; `--target X` judges as X would (an upgrade preflight).

Contract: pure functions of version strings; `parse` never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hermes_wizard.core.values import Value

MODELLED: tuple[str, ...] = ("0.17.0", "0.18.0", "0.18.1", "0.18.2", "0.19.0", "0.20.1", "0.21.3")  # oldest first
FIRST_REFUSING = (0, 18, 0)  # the open-policy startup refusal arrived in 0.18.0
FIRST_REFUSING_NAME = ".".join(map(str, FIRST_REFUSING))  # as the explanations say it
NEWEST = MODELLED[-1]

# Compiled on first use (re's cache): a check on a host where no Hermes is found never reads a version.
_RELEASE = r"v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)\Z"


def parse(version: str | None) -> tuple[tuple[int, int, int], str] | None:
    """(release, rest) of a version string: "0.19.0rc1" → ((0, 19, 0), "rc1"); None if unreadable."""
    text = (version or "").strip()
    match = re.match(_RELEASE, text, re.I | re.S) if text else None  # "" has no release: no match either
    if not match:
        return None
    major, minor, micro, rest = match.groups()
    return (int(major), int(minor or 0), int(micro or 0)), rest


def is_modelled(version: str | None) -> bool:
    """Exactly one of the modelled releases (no pre-release, local or dev suffix)."""
    parsed = parse(version)
    return parsed is not None and not parsed[1] and _name(parsed[0]) in MODELLED


def nearest_model(version: str | None) -> str:
    """The modelled version whose rules judge `version` (the newest when unreadable)."""
    parsed = parse(version)
    if parsed is None:
        return NEWEST
    release = parsed[0]
    if _name(release) in MODELLED and not parsed[1]:
        return _name(release)
    older = [m for m in MODELLED if _release(m) <= release]
    return older[-1] if older else MODELLED[0]


def refuses_open_policies(version: str | None) -> bool:
    """Whether this version has the open-policy startup refusal (0.18.0 and later; unknown: yes)."""
    parsed = parse(version)
    return parsed is None or parsed[0] >= FIRST_REFUSING


def _release(name: str) -> tuple[int, int, int]:
    parsed = parse(name)
    assert parsed is not None
    return parsed[0]


def _name(release: tuple[int, int, int]) -> str:
    return ".".join(map(str, release))


@dataclass(frozen=True, eq=False, repr=False)
class Judgement(Value):
    """Which Hermes a report is for, how that was learnt, and which model judged it.

    `source`: "detected" (from the dist-info under `found_at`), "given" (--hermes-version),
    "assumed" (no Hermes found: the newest model), "target" (--target: a preflight).
    """

    version: str | None
    found_at: str | None
    source: str
    judged_as: str

    @property
    def modelled(self) -> bool:
        return is_modelled(self.version)

    @property
    def refuses(self) -> bool:
        return refuses_open_policies(self.version)

    def as_json(self) -> dict[str, object]:
        return {"version": self.version, "found_at": self.found_at, "modelled": self.modelled,
                "judged_as": self.judged_as}

    def sentence(self) -> str:
        """One line for text output: which Hermes, and how we know."""
        if self.source == "assumed":
            return (f"Hermes: not found; judged as {self.judged_as}, the newest version this tool models "
                    "(--hermes-python or --hermes-version to say which)")
        where = {"detected": f"from {self.found_at}", "given": "as given by --hermes-version",
                 "target": "--target: judged as this version would, before upgrading"}[self.source]
        line = f"Hermes {self.version} ({where})"
        if not self.modelled:
            line += (f"; this version is not modelled by hermes-wizard (it models {', '.join(MODELLED)}): "
                     f"judged by the rules of {self.judged_as}")
            if not self.refuses:
                line += ", without the startup refusal it does not have"
        return line


def judgement(version: str | None, found_at: str | None, source: str) -> Judgement:
    if version is None:
        return Judgement(None, None, "assumed", NEWEST)
    return Judgement(version, found_at, source, nearest_model(version))
