"""Text rendering of a HomeReport, in flutter-doctor's vocabulary: [✓] [!] [✗].

One block per enabled platform (then home-wide findings), every problem followed
by its fix.  Findings never carry secrets: checks quote keys and line numbers,
never values of secret variables.  Every string that can come from a home (the
path, messages, fixes, access words) is shown through `safetext.visible`, so a
control or bidi character in a file is printed as an escape, never obeyed.
"""

from __future__ import annotations

import re
import textwrap
from typing import TYPE_CHECKING

from hermes_wizard.core.kinds import Severity, Verdict
from hermes_wizard.core.safetext import visible
from hermes_wizard.judge.engine import HomeReport, PlatformRow

if TYPE_CHECKING:
    from collections.abc import Iterable

    from hermes_wizard.judge.checks import Finding

WIDTH = 100


def _wrap(text: str, indent: str) -> list[str]:
    lines = []
    for paragraph in _glue_quoted(text).splitlines() or [""]:
        lines.extend(textwrap.wrap(paragraph, WIDTH - len(indent), initial_indent=indent,
                                   subsequent_indent=indent + "  ", break_long_words=False) or [indent])
    return [line.replace("\x01", " ").replace("\x02", "-") for line in lines]


def _glue_quoted(text: str) -> str:
    """`text` with each printed command up to the home it names (`hermes-wizard doctor --home PATH`, shell-quoted
    or not, and `--profile NAME`) made one unbreakable word: a command read off two lines must still run.  \\x01
    and \\x02 stand for its spaces and hyphens while wrapping (`visible` has escaped any control character the text
    held)."""
    if "--home " not in text:
        return text
    return re.sub(r"hermes-wizard(?: [a-z-]+)+ --home (?:'[^'\n]*'|\S+)(?: --profile \S+)?",
                  lambda named: named.group(0).replace(" ", "\x01").replace("-", "\x02"), text)


def _headline(row: PlatformRow) -> str:
    words = {Verdict.REFUSES_START: "the gateway will refuse to start", Verdict.CANNOT_CONNECT: "cannot connect",
             Verdict.OPEN: "open", Verdict.OK: "", Verdict.DISABLED: "disabled"}[row.verdict]
    if row.verdict == Verdict.OPEN and row.access.startswith("open"):
        words = ""  # the access words say it ("open to everyone (…)"): never "open; open to everyone"
    return f"{visible(row.name)} — " + "; ".join(part for part in (words, visible(row.access)) if part)


def render_text(report: HomeReport) -> str:
    out = [f"Hermes home: {visible(report.home)}"
           + (f" (profile {visible(report.profile)})" if report.profile != "default" else ""),
           visible(report.hermes.sentence())]
    if report.decided_by_hermes is not None:
        out.append(f"Asked {visible(report.hermes.named)} itself, on a copy of the home: "
                   f"{visible(report.decided_by_hermes.verdict())}")
    elif report.hermes_answer is not None:
        told = report.hermes_answer
        agreement = "" if told.failure or any(f.code in ("HW160", "HW161") for f in report.findings) else (
            " — hermes-wizard agrees")
        out.append(f"Hermes itself, asked on a copy of the home: {visible(told.verdict())}{agreement}")
    by_platform: dict[str | None, list[Finding]] = {}
    for finding in report.findings:
        by_platform.setdefault(finding.platform, []).append(finding)
    # Refusing platforms first, in the order Hermes meets them (the one it names first), then the rest.
    met = {violation.platform: index for index, violation in enumerate(report.violations)}
    for row in sorted(report.rows, key=lambda row: met.get(row.name, len(met))):
        if not row.enabled and row.name not in by_platform:
            continue
        found = by_platform.pop(row.name, [])
        worst = Severity.ERROR if any(f.severity == Severity.ERROR for f in found) or \
            row.verdict == Verdict.REFUSES_START else (
                Severity.WARNING if any(f.severity == Severity.WARNING for f in found) or row.verdict != Verdict.OK
                else Severity.INFO)
        out.append(f"[{worst.block_mark}] {_headline(row)}")
        out.extend(_finding_lines(found))
    rest = [f for platform, found in by_platform.items() for f in found]
    if rest:
        worst = min((f.severity for f in rest), key=lambda severity: severity.rank)
        out.append(f"[{worst.block_mark}] home-wide")
        out.extend(_finding_lines(rest))
    if report.unjudged is None and not any(r.enabled for r in report.rows):
        out.append("[!] no messaging platform is enabled: the gateway runs for cron jobs only")
    out.append("")
    out.append(verdict_line(report))
    return "\n".join(out)


def _finding_lines(found: Iterable[Finding]) -> list[str]:
    lines = []
    for finding in found:
        lines.extend(_wrap(f"{finding.severity.glyph} {finding.code} {finding.name}: {visible(finding.message)}",
                           "    "))
        if finding.fix:
            lines.extend(_wrap(f"Fix: {visible(finding.fix)}", "      "))
    return lines


def verdict_clause(report: HomeReport, will: str = "will") -> str:
    """What Hermes would do at start-up, as one clause in lower case: the one wording every face uses (each
    adds its own prefix: "Verdict: ", "After these changes: ", a mark on screen).  `will`: the modal verb
    ("would then" for a question about a step not taken yet).  An asked Hermes's verdict says it is its own."""
    if report.unjudged is not None:
        return f"cannot judge whether the gateway {will} start: {visible(report.unjudged)}"
    obstacle = start_obstacle(report)
    if obstacle is not None and report.crash is not None:
        return f"the gateway {will} not start: {obstacle}"
    if obstacle is not None:
        return f"the gateway {will} refuse to start — {obstacle}"
    told, by = report.decided_by_hermes, _said_by(report)
    enabled = list(told.enabled) if told is not None else [r.name for r in report.rows if r.enabled]
    aside = f", setting {visible(' and '.join(told.set_aside))} aside" if told is not None and told.set_aside else ""
    return f"the gateway {will} start ({visible(', '.join(enabled)) or 'no platforms'}){aside}{by}"


def start_obstacle(report: HomeReport) -> str | None:
    """Why the gateway does not start, without the verdict's own opening: the crash Hermes meets, or where it
    stops refusing (and what its service then does), and who says so; None when it starts (or cannot be
    judged).  The verdict clause and `access`'s "nobody: the gateway does not start — …" both end with it."""
    if report.unjudged is not None or report.would_start:
        return None
    told, by = report.decided_by_hermes, _said_by(report)
    if report.crash is not None:
        return f"{visible(report.crash)}{by}"
    first = report.refusal or {}
    platform = first.get("platform") or "?"
    more = f" ({len(report.violations) - 1} more after it)" if len(report.violations) > 1 else ""
    return (f"Hermes stops at {visible(platform)}{more}, "
            f"{_after_refusal(report, told.refusal_exit if told is not None else None)}{by}")


def _said_by(report: HomeReport) -> str:
    """Who reached the verdict, when it is not this tool's model alone: the asked Hermes, or a model standing in
    for a Hermes that was not asked yet."""
    if report.decided_by_hermes is not None:
        return f"; so says {visible(report.hermes.named)} itself, asked on a copy of the home"
    return (f"; by the rules of {report.hermes.judged_as}, until {visible(report.hermes.named)} itself is asked "
            "about the files on disk" if report.hermes.asked else "")


def _after_refusal(report: HomeReport, status: int | None) -> str:
    """How Hermes exits after refusing, and what its service then does.  Exit 0 everywhere the models know; an
    asked Hermes says its own (78 where upstream's fix, PR #57487, landed).  A loop is claimed only where this
    home's service loops (HW401, HW402 for 78, HW404 as an error): never one a gate stops, nor one systemd
    could not be asked about (HW404 then only informs)."""
    codes = {f.code for f in report.findings if f.code != "HW404" or f.severity == Severity.ERROR}
    if status == 78:
        return ("exits 78, and its service restarts it anyway (no RestartPreventExitStatus=78), forever"
                if codes & {"HW402", "HW404"} else
                "exits 78, which a service with RestartPreventExitStatus=78 (Hermes's own unit) does not restart")
    return f"exits {status or 0}, " + ("and its service restarts it forever" if codes & {"HW401", "HW404"}
                                       else "which a service that restarts on success (Hermes's own unit) restarts "
                                       "forever")


def verdict_line(report: HomeReport) -> str:
    """The last line `check` prints ("Verdict: …"): every face's outcome sentence is built from it
    (wizard/faces/outcome.py), so no face tells a friendlier story than `check`."""
    if not report.would_start:
        return report.naming_this_home(f"Verdict: {verdict_clause(report)}. → hermes-wizard doctor")
    errors = len(report.errors())
    tail = {0: "", 1: "; 1 problem needs attention"}.get(errors, f"; {errors} problems need attention")
    return f"Verdict: {verdict_clause(report)}{tail}."
