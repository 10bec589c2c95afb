"""Hermes's own pairing store, used by HERMES'S Python as the home's owner (never imported by hermes-wizard).

Usage (by `hermes_wizard.hermes.pairing_run`; the text travels as `-c`, so the owner needs no access to this
installation):
    <hermes-python> -I -c <this file's text> ACTION [PLATFORM [ARG]]

The process already runs as the home's owner, in a session of its own with no terminal, with
HERMES_HOME set to the home (wizard/core/confined.py).  It does what `hermes pairing` does at start
(loads the home's `.env`: approving mirrors the user into a configured allowlist, which Hermes reads from
the environment) and then calls Hermes's own code only:
    list                     PairingStore.list_pending() / list_approved(), and the live lockouts
    preview PLATFORM CODE    which pending request CODE matches (PairingStore._hash_code), changing nothing
    approve PLATFORM CODE    hermes_cli.pairing._cmd_approve (its words), the approved users before and after
    revoke PLATFORM USER_ID  hermes_cli.pairing._cmd_revoke (its words), the approved users before and after
Prints one JSON line: {"pending", "approved", "lockouts", "match", "before", "after", "said", "locked"}
(the keys the action fills) or {"failure": "Type: message"}.  Hermes's own modules are imported lazily,
inside the functions: they exist only in Hermes's venv, and the `.env` load must come first.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import secrets
import sys
import time
from typing import Any


def _store() -> Any:  # Hermes's PairingStore: its code is not importable where this is checked
    from hermes_cli.env_loader import load_hermes_dotenv
    from hermes_constants import get_hermes_home

    load_hermes_dotenv(hermes_home=get_hermes_home())
    from gateway.pairing import PairingStore

    return PairingStore()


def _lockouts(store: Any) -> dict[str, int]:
    limits = store._load_json(store._rate_limit_path())
    now = time.time()
    return {key.split(":", 1)[1]: int(until - now) for key, until in limits.items()
            if isinstance(key, str) and key.startswith("_lockout:") and isinstance(until, (int, float)) and until > now}


def _match(store: Any, platform: str, code: str) -> dict[str, object] | None:
    """The pending request `code` would approve, found as approve_code finds it (without approving)."""
    store._cleanup_expired(platform)  # approve_code does this first, too
    code = code.upper().strip()
    for entry in store._load_json(store._pending_path(platform)).values():
        if not isinstance(entry, dict) or "salt" not in entry or "hash" not in entry:
            continue
        try:
            salt = bytes.fromhex(entry["salt"])
        except ValueError:
            continue
        if secrets.compare_digest(store._hash_code(code, salt), entry["hash"]):
            created = entry.get("created_at")
            return {"user_id": entry.get("user_id", ""), "user_name": entry.get("user_name", ""),
                    "age_minutes": int((time.time() - created) / 60) if isinstance(created, (int, float)) else None}
    return None


def main(argv: list[str]) -> dict[str, object]:
    action, rest = argv[0], argv[1:]
    store = _store()
    import hermes_cli.pairing as cli

    out: dict[str, object] = {"lockouts": _lockouts(store)}
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        if action == "list":
            out["pending"], out["approved"] = store.list_pending(), store.list_approved()
        elif action == "preview":
            platform = rest[0].lower().strip()
            out["match"], out["locked"] = _match(store, platform, rest[1]), store._is_locked_out(platform)
        elif action in ("approve", "revoke"):
            platform = rest[0].lower().strip()
            out["before"] = store.list_approved(platform)
            (cli._cmd_approve if action == "approve" else cli._cmd_revoke)(store, platform, rest[1])
            out["after"], out["locked"] = store.list_approved(platform), store._is_locked_out(platform)
        else:
            raise ValueError(f"no action {action!r}")
    out["said"] = said.getvalue()
    return out


if __name__ == "__main__":
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # whatever Hermes prints on import stays off our answer
    logging.disable(logging.CRITICAL)
    try:
        answer = main(sys.argv[1:])
    except Exception as exc:
        answer = {"failure": f"{type(exc).__name__}: {exc}"}
    real_stdout.write(json.dumps(answer, default=str) + "\n")
    real_stdout.flush()
    os._exit(0)
