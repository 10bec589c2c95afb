"""Run our ``check`` in-process and hold it to the oracle's answer (for one Hermes version).

With a ``version``, our side judges the home for that Hermes
(``check --hermes-version <version>``), as the oracle of that version does.

What must agree (the rest of ``check``'s output is ours to design):

* ``would_start``;
* ``refusal.platform`` == the oracle's ``refusal_platform`` (Hermes names the
  first violating platform in its own config order);
* the set of platforms with ``enabled: true`` == the oracle's ``enabled``;
* the exit code: 78 exactly when Hermes would not start, else 0 or 1.

When Hermes crashes while loading its config (``error``), only "does not start"
(``would_start`` false, exit 78) is required. On any disagreement the message
shows the home's files byte-exact and both answers.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import stat
from pathlib import Path

from . import model_version
from .fork_differences import set_aside


@contextlib.contextmanager
def _environ(overrides: dict | None):
    saved = {k: os.environ.get(k) for k in overrides or {}}
    os.environ.update(overrides or {})
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run_ours(home: Path, host_env: dict | None = None, version: str | None = None) -> tuple[int, dict | None, str]:
    """``python -m hermes_wizard check --home HOME --format json [--hermes-version VERSION]``, in-process.

    *host_env* (``Oracle.host_env()``) describes the same host the oracle ran on:
    PATH with its node shim, and the Hermes Python whose SDKs decide plugin
    ``check_fn``s. Host facts, not home contents.
    """
    from hermes_wizard.faces.cli import main  # the engine under test

    out, err = io.StringIO(), io.StringIO()
    with _environ(host_env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(["check", "--home", str(home), "--format", "json", *version_args(version)])
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    text = out.getvalue()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    return rc if rc is not None else 0, data, text + err.getvalue()


def version_args(version: str | None) -> list[str]:
    """The CLI arguments that make our side judge for Hermes *version* (none: the detected/newest one)."""
    return ["--hermes-version", model_version(version)] if version else []


def _enabled(ours: dict) -> set[str]:
    return {p.get("name") for p in ours.get("platforms") or [] if p.get("enabled") is True}


def mismatches(rc: int, ours: dict | None, oracle: dict) -> list[str]:
    """Every way our answer differs from Hermes's (empty when they agree)."""
    if ours is None:
        return ["check did not print one JSON object"]
    problems = []
    if oracle.get("error"):
        if ours.get("would_start") is not False:
            problems.append(f"Hermes crashes loading this home ({oracle['error']}); we say would_start="
                            f"{ours.get('would_start')!r}")
        if rc != 78:
            problems.append(f"Hermes would not start; exit code {rc}, expected 78")
        return problems
    if ours.get("would_start") is not oracle["would_start"]:
        problems.append(f"would_start: ours {ours.get('would_start')!r}, Hermes {oracle['would_start']!r}")
    refusal = ours.get("refusal") or {}
    if refusal.get("platform") != oracle["refusal_platform"]:
        problems.append(f"refusal platform: ours {refusal.get('platform')!r}, Hermes {oracle['refusal_platform']!r}")
    theirs = set(oracle["enabled"])
    if _enabled(ours) != theirs:
        problems.append(f"enabled: ours {sorted(_enabled(ours))}, Hermes {sorted(theirs)} "
                        f"(only ours: {sorted(_enabled(ours) - theirs)}, "
                        f"only Hermes: {sorted(theirs - _enabled(ours))})")
    expected_rc = "78" if not oracle["would_start"] else "0 or 1"
    if (rc == 78) != (not oracle["would_start"]) or rc not in (0, 1, 78):
        problems.append(f"exit code {rc}, expected {expected_rc}")
    return problems


def dump_home(home: Path, limit: int = 4000) -> str:
    """Every file of *home* with its mode, text shown with repr() per line (CRLF, BOM, padding visible)."""
    lines = []
    for path in sorted(Path(home).rglob("*")):
        if path.is_dir():
            continue
        rel = path.relative_to(home)
        mode = stat.filemode(path.stat().st_mode)
        data = path.read_bytes()
        lines.append(f"--- {rel} ({mode}, {len(data)} bytes)")
        if rel.suffix in (".json", ".log") and len(data) > 400:
            lines.append(f"    {data[:400]!r}...")
            continue
        for raw in data.splitlines(keepends=True):
            lines.append(f"    {raw.decode('utf-8', 'replace')!r}")
    text = "\n".join(lines) or "(empty home)"
    return text if len(text) <= limit else text[:limit] + "\n... (truncated)"


def report(home: Path, rc: int, ours: dict | None, raw: str, oracle: dict, problems: list[str], label: str = "",
           version: str | None = None) -> str:
    shown = {k: oracle.get(k)
             for k in ("would_start", "refusal_platform", "refusal_reason", "enabled", "order", "error")}
    parts = [
        f"our check disagrees with Hermes {version or '0.19.0'} on {label or home}:",
        *[f"  - {p}" for p in problems],
        "home files:",
        dump_home(home),
        "Hermes (oracle): " + json.dumps(shown, sort_keys=True),
        "Hermes debug:    " + json.dumps(oracle.get("debug"), sort_keys=True, default=str),
        f"ours (exit {rc}): " + (json.dumps({k: ours.get(k) for k in ("would_start", "refusal", "platforms")},
                                            sort_keys=True) if ours else raw[-2000:]),
    ]
    return "\n".join(parts)


def assert_conforms(home: Path, oracle_answer: dict, label: str = "", host_env: dict | None = None,
                    version: str | None = None) -> None:
    rc, ours, raw = run_ours(home, host_env, version)
    problems = mismatches(rc, ours, oracle_answer)
    if problems and version is not None and set_aside(version, home) is not None:
        return  # a fork deciding otherwise than upstream's text, named and counted (fork_differences.py)
    if problems:
        raise AssertionError(report(home, rc, ours, raw, oracle_answer, problems, label, version))


def env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes"}
