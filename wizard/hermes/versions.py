"""Which Hermes versions are modelled, and how any version is judged.

A report is always judged by a *model* (one modelled version's rules).  For the installed
version that model is:
  - the version itself, when it is modelled exactly (`MODELLED`);
  - for any other version, or a fork (another distribution name) whose deciding files are not those a model
    was verified against, the nearest modelled one words the report, but whether the gateway starts is
    asked of that Hermes itself (`Judgement.asked`: `check` and the gate run its own startup decision);
    judged by an older model only when the user says so (`--hermes-version`, `--target`);
  - versions before `FIRST_REFUSING` have no startup refusal at all (0.17.0 is modelled so, and the
    oldest model judges anything older): the refusal becomes an upgrade finding.
`--hermes-version X` replaces detection; `--target X` judges as X would (an upgrade preflight).

Contract: pure functions of version strings; `parse` never raises.
"""

from __future__ import annotations

import re

from hermes_wizard.core.values import Value, value_class

MODELLED: tuple[str, ...] = ("0.17.0", "0.18.0", "0.18.1", "0.18.2", "0.19.0", "0.20.1", "0.21.3")  # oldest first
FIRST_REFUSING = (0, 18, 0)  # the open-policy startup refusal arrived in 0.18.0
FIRST_REFUSING_NAME = ".".join(map(str, FIRST_REFUSING))  # as the explanations say it
NEWEST = MODELLED[-1]
UPSTREAM = "hermes-agent"  # upstream's own distribution name: any other is a repackaging or a fork

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


def _newer(version: str | None) -> bool:
    """Is `version` past the newest model?"""
    parsed = parse(version)
    return parsed is not None and parsed[0] > _release(NEWEST)


def _release(name: str) -> tuple[int, int, int]:
    parsed = parse(name)
    assert parsed is not None
    return parsed[0]


def _name(release: tuple[int, int, int]) -> str:
    return ".".join(map(str, release))


@value_class
class Judgement(Value):
    """Which Hermes a report is for, how that was learnt, and which model judged it.

    `source`: "detected" (from the install under `found_at`), "given" (--hermes-version),
    "assumed" (no Hermes found: the newest model), "target" (--target: a preflight).
    A detected Hermes that no model judges exactly (a version not modelled, or a fork under another
    distribution name whose deciding files are not a model's) is `asked`: its own startup decision is the
    verdict (wizard/hermes/verify.py), and `judged_as` only words the rest.  A version given or targeted is
    judged by its nearest model: the user asked for that.
    """

    version: str | None
    found_at: str | None
    source: str
    judged_as: str
    distribution: str | None = None  # as installed; UPSTREAM is upstream's own
    release_date: str | None = None
    verified_as: str | None = None  # a fork whose deciding files are those a model was verified against

    @property
    def fork(self) -> bool:
        return self.distribution is not None and self.distribution != UPSTREAM

    @property
    def modelled(self) -> bool:
        return self.verified_as is not None if self.fork else is_modelled(self.version)

    @property
    def asked(self) -> bool:
        """Hermes itself decides the start: detected, and no model judges it exactly."""
        return self.source == "detected" and self.version is not None and not self.modelled

    @property
    def refuses(self) -> bool:
        return refuses_open_policies(self.version)

    @property
    def named(self) -> str:
        """"Hermes 0.21.3 (2026.9.14)": the version and release date, as `hermes --version` says them."""
        return f"Hermes {self.version}" + (f" ({self.release_date})" if self.release_date else "")

    def as_json(self) -> dict[str, object]:
        return {"version": self.version, "found_at": self.found_at, "modelled": self.modelled,
                "judged_as": self.judged_as, "release_date": self.release_date, "distribution": self.distribution,
                "asked": self.asked}

    def sentence(self) -> str:
        """One line for text output: which Hermes, and how we know."""
        if self.source == "assumed":
            return (f"Hermes: not found; judged as {self.judged_as}, the newest version this tool models "
                    "(--hermes-python or --hermes-version to say which)")
        where = {"detected": f"from {self.found_at}", "given": "as given by --hermes-version",
                 "target": "--target: judged as this version would, before upgrading"}[self.source]
        line = f"{self.named} {where}"
        if self.fork:
            line += f", packaged as {self.distribution}"
            if self.verified_as is not None:
                return line + (f": its deciding files are those the {self.verified_as} model was verified against, "
                               f"so it is judged as {self.verified_as}")
            line += " (not upstream's release)"
        if self.asked:
            what = "a fork" if self.fork else "newer than every version" if _newer(self.version) else "a version"
            return line + (f"; {what} hermes-wizard does not model (it models {', '.join(MODELLED)}): whether its "
                           f"gateway starts is asked of Hermes itself; the rest follows the rules of {self.judged_as}, "
                           "the nearest model")
        if not self.modelled:
            line += (f"; this version is not modelled by hermes-wizard (it models {', '.join(MODELLED)}): "
                     f"judged by the rules of {self.judged_as}, as asked")
            if not self.refuses:
                line += ", without the startup refusal it does not have"
        return line


def judgement(version: str | None, found_at: str | None, source: str, *, distribution: str | None = None,
              release_date: str | None = None, verified_as: str | None = None) -> Judgement:
    if version is None:
        return Judgement(None, None, "assumed", NEWEST)
    return Judgement(version, found_at, source, verified_as or nearest_model(version), distribution, release_date,
                     verified_as)
