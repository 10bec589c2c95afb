"""Transport state on disk: can an enabled platform connect at all, under any policy?

WhatsApp (Baileys) needs a paired session: `creds.json` in the session directory,
which is `extra.session_path`, else the legacy `whatsapp/session/` when it has any
content, else `platforms/whatsapp/session/` (hermes_constants.get_hermes_dir).
Weixin needs an account ID and a token, the token possibly from
`weixin/accounts/<account_id>.json` written by the QR login.  Matrix keeps its E2EE
store on disk (reported, never fatal).

Contract: read-only; `Transport.dead` is True only when Hermes's adapter would fail
to connect with a non-retryable error (or the bridge could never log in).
"""

from __future__ import annotations

import json
from pathlib import Path

from hermes_wizard.core.kinds import TransportState
from hermes_wizard.core.smallfile import read_as_stated, read_regular
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.loader.state import PlatformState

MAX_CREDS_BYTES = 1024 * 1024


@value_class
class Transport(Value):
    """Whether a platform's on-disk connection state (a session, a token) lets it connect."""

    state: TransportState
    detail: str  # plain words
    dead: bool = False
    path: Path | None = None
    owner: str | None = None  # the account's own ID (WhatsApp number), when known


UNKNOWN = Transport(TransportState.UNCHECKED, "no on-disk state to check for this platform")


def _has_content(path: Path) -> bool:
    """hermes_constants._legacy_path_has_content."""
    try:
        if path.is_symlink() and not path.exists():
            return False
        if path.is_dir():
            return any(path.iterdir())
        return path.exists()
    except FileNotFoundError:
        return False
    except OSError:
        return True


def whatsapp_session_dir(home: Path, state: PlatformState | None) -> Path:
    if state is not None and state.extra.get("session_path"):
        return Path(str(state.extra["session_path"]))
    legacy = home / "whatsapp" / "session"
    return legacy if _has_content(legacy) else home / "platforms" / "whatsapp" / "session"


def whatsapp_transport(home: Path, state: PlatformState | None) -> Transport:
    session = whatsapp_session_dir(home, state)
    creds = session / "creds.json"
    if not creds.exists():
        elsewhere = [p for p in (home / "whatsapp" / "session" / "creds.json",
                                 home / "platforms" / "whatsapp" / "session" / "creds.json")
                     if p != creds and p.is_file()]
        if elsewhere:
            return Transport(TransportState.WRONG_SESSION_DIR,
                             f"creds.json is in {elsewhere[0].parent}, but Hermes reads {session} (a legacy session "
                             "directory with content wins)", True, creds)
        return Transport(TransportState.NOT_PAIRED, f"no creds.json in {session}: WhatsApp is not paired", True, creds)
    if not creds.is_file():
        return Transport(TransportState.INVALID_CREDS, f"{creds} is not a regular file", True, creds)
    try:
        seen = creds.stat()
        size = seen.st_size
        if size == 0:
            return Transport(TransportState.EMPTY_CREDS, f"{creds} is empty: the pairing was interrupted", True, creds)
        if size > MAX_CREDS_BYTES:
            return Transport(TransportState.INVALID_CREDS, f"{creds} is {size} bytes, not a Baileys session", True,
                             creds)
        data = json.loads(read_as_stated(creds, seen, MAX_CREDS_BYTES).decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:  # RecursionError: nested past any session
        return Transport(TransportState.INVALID_CREDS, f"{creds} is not valid JSON ({type(exc).__name__})", True, creds)
    me = data.get("me") if isinstance(data, dict) else None
    owner = me.get("id") if isinstance(me, dict) else None
    if not isinstance(owner, str) or not owner:
        return Transport(TransportState.UNREGISTERED, f"{creds} has no me.id: the login never completed", True, creds)
    number = owner.split("@", 1)[0].split(":", 1)[0]
    return Transport(TransportState.PAIRED, f"paired as +{number}", False, creds, number)


def weixin_transport(home: Path, state: PlatformState | None, environ: dict[str, str]) -> Transport:
    extra = state.extra if state is not None else {}
    account = str(extra.get("account_id") or environ.get("WEIXIN_ACCOUNT_ID", "")).strip()
    token = str((state.token if state else None) or extra.get("token") or environ.get("WEIXIN_TOKEN", "")).strip()
    account_file = home / "weixin" / "accounts" / f"{account}.json" if account else None
    if account and not token and account_file is not None:
        saved = _read_json(account_file)
        if isinstance(saved, dict):
            token = str(saved.get("token") or "").strip()
    if not token:
        where = f" and {account_file} has none" if account_file else ""
        return Transport(TransportState.MISSING_TOKEN,
                         f"no WEIXIN_TOKEN{where}: log in with `hermes gateway setup` (Weixin QR login)", True,
                         account_file)
    if not account:
        return Transport(TransportState.MISSING_ACCOUNT, "no WEIXIN_ACCOUNT_ID: Hermes cannot tell which bot to run",
                         True)
    return Transport(TransportState.OK, f"account {account}", False, account_file)


def _read_json(path: Path) -> object:  # JSON a home holds: any shape, narrowed by each caller
    try:
        raw = read_regular(path, MAX_CREDS_BYTES)
        if raw is not None:
            return json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):  # Hermes skips such a file too
        return None
    return None


def matrix_transport(home: Path, state: PlatformState | None) -> Transport:
    """The E2EE store (`platforms/matrix/store/`, or legacy `matrix/store/` with content).
    Its absence is normal on a first start; losing it means re-verifying the device."""
    legacy = home / "matrix" / "store"
    store = legacy if _has_content(legacy) else home / "platforms" / "matrix" / "store"
    encrypted = bool(state and state.extra.get("encryption"))
    if (store / "crypto.db").is_file():
        return Transport(TransportState.STORE_PRESENT, f"E2EE store at {store}", False, store)
    words = "no E2EE store yet: the first start creates it" if encrypted else "no E2EE store (encryption off)"
    return Transport(TransportState.NO_STORE, f"{words} ({store})", False, store)


def transport_for(name: str, home: Path, state: PlatformState | None, environ: dict[str, str]) -> Transport:
    if name == "whatsapp":
        return whatsapp_transport(home, state)
    if name == "weixin":
        return weixin_transport(home, state, environ)
    if name == "matrix":
        return matrix_transport(home, state)
    return UNKNOWN


def pairing_dir(home: Path) -> Path:
    legacy = home / "pairing"
    return legacy if _has_content(legacy) else home / "platforms" / "pairing"


def approved_users(home: Path, platform: str) -> int:
    data = _read_json(pairing_dir(home) / f"{platform}-approved.json")
    return len(data) if isinstance(data, dict) else 0
