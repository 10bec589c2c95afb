"""Plan: the one description of what a repair will change, shared by every face.

A Plan is a pure value: the home, the fingerprints of the files as they were read,
and a tuple of Changes.  `planned_contents` renders the new file contents in
memory (through the `.env` and YAML writers); `render_diff` shows them as a
per-file unified diff with secret values masked.  Only `wizard.apply` writes.
"""

from __future__ import annotations

import difflib
import re
from wizard.records import factory, record
from pathlib import Path

from wizard.envwriter import EnvEdit, apply_edits
from wizard.homefs import fingerprint_in, read_in_home
from wizard.yamlwriter import set_value

ENV, YAML = ".env", "config.yaml"
MASK = "••••••"
_SECRET_NAME = re.compile(r"(TOKEN|SECRET|PASSWORD|API_KEY|_KEY|PRIVATE|CREDENTIAL|ACCESS_TOKEN)", re.I)


def is_secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name)) and not name.upper().endswith(("_ALLOWED_USERS", "_POLICY"))


@record
class Change:
    """One edit.  `key` is an env name for `.env`, a dotted YAML path for config.yaml.

    `action`: "set" (to `after`), "disable" (comment an env line out, reversibly),
    "restore" (undo such a comment), "mode" (`after` is an octal file mode).
    """

    file: str
    key: str
    before: str | None
    after: str | None
    action: str = "set"
    platform: str | None = None
    reason: str = ""
    secret: bool = False


@record
class Plan:
    home: Path
    fingerprints: dict = factory(dict)  # file -> sha256 of what was read (None: absent)
    changes: tuple[Change, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.changes)

    @classmethod
    def of(cls, home: Path, changes) -> "Plan":
        """A plan for `home` as its files are now; one Change per key (the last
        one's value, the first one's `before`)."""
        merged: dict[tuple[str, str], Change] = {}
        for change in changes:
            first = merged.get((change.file, change.key))
            merged[(change.file, change.key)] = change if first is None else Change(
                change.file, change.key, first.before, change.after, change.action, change.platform, change.reason,
                change.secret)
        return cls(home, {ENV: fingerprint(home / ENV), YAML: fingerprint(home / YAML)}, tuple(merged.values()))

    def files(self) -> list[str]:
        return sorted({change.file for change in self.changes})


def fingerprint(path: Path) -> str | None:
    """sha256 of the file as the writer will see it (None: absent); never blocks or raises."""
    return fingerprint_in(path)


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes through the guarded reader (wizard.homefs): ApplyError for a FIFO,
    a device, a directory, a link loop or a huge file, never a hang."""
    return read_in_home(path)


def planned_contents(plan: Plan, current: dict[str, bytes | None] | None = None) -> dict[str, bytes]:
    """The new bytes of every file whose content the plan changes (mode-only excluded)."""
    current = current if current is not None else {name: read_bytes(plan.home / name) for name in (ENV, YAML)}
    out: dict[str, bytes] = {}
    env_edits = [_env_edit(c) for c in plan.changes if c.file == ENV and c.action != "mode"]
    if env_edits:
        old = current.get(ENV) or b""
        out[ENV] = apply_edits(old.decode("utf-8", "surrogateescape"), env_edits).encode("utf-8", "surrogateescape")
    yaml_changes = [c for c in plan.changes if c.file == YAML]
    if yaml_changes:
        text = (current.get(YAML) or b"").decode("utf-8")
        for change in yaml_changes:
            text = set_value(text, tuple(change.key.split(".")), _yaml_value(change.after))
        out[YAML] = text.encode("utf-8")
    return out


def _env_edit(change: Change) -> EnvEdit:
    if change.action == "disable":
        return EnvEdit(change.key, None)
    if change.action == "restore":
        return EnvEdit(change.key, "", restore=True)
    return EnvEdit(change.key, change.after or "")


def _yaml_value(text: str | None):
    """Changes carry text; YAML booleans are written as booleans."""
    return {"true": True, "false": False}.get(text, text)


def _mask_env_line(line: str, secret_keys: set[str]) -> str:
    match = re.match(r"(\s*(?:#hermes-wizard-off:\s*)?(?:export\s+)?)([A-Za-z_][A-Za-z0-9_.]*)(\s*=\s*)(.*)", line)
    if match and (match.group(2) in secret_keys or is_secret_name(match.group(2))) and match.group(4).strip():
        return f"{match.group(1)}{match.group(2)}{match.group(3)}{MASK}\n"
    return line


def _mask_yaml_line(line: str) -> str:
    match = re.match(r"(\s*-?\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*:\s*)(\S.*)", line)
    if match and is_secret_name(match.group(2)):
        return f"{match.group(1)}{match.group(2)}{match.group(3)}{MASK}\n"
    return line


def render_diff(plan: Plan, current: dict[str, bytes | None] | None = None) -> str:
    """Per-file unified diff of the plan, secrets masked on both sides."""
    current = current if current is not None else {name: read_bytes(plan.home / name) for name in (ENV, YAML)}
    new = planned_contents(plan, current)
    secret_keys = {c.key for c in plan.changes if c.secret}
    chunks = []
    for name, after in sorted(new.items()):
        before = (current.get(name) or b"").decode("utf-8", "replace").splitlines(keepends=True)
        after_lines = after.decode("utf-8", "replace").splitlines(keepends=True)
        mask = (lambda line: _mask_env_line(line, secret_keys)) if name == ENV else _mask_yaml_line
        diff = difflib.unified_diff([mask(_eol(x)) for x in before], [mask(_eol(x)) for x in after_lines],
                                    f"{name}", f"{name}", n=0)
        chunks.append("".join(diff))
    for change in plan.changes:
        if change.action == "mode":
            chunks.append(f"--- {change.file} mode {change.before}\n+++ {change.file} mode {change.after}\n")
    return "".join(chunks)


def _eol(line: str) -> str:
    return line.rstrip("\r\n") + "\n"
