"""Secrets in the OS keyring: where each one lives, whether a usable keyring is here, and reading and writing
entries without ever raising anything but `KeyringUnavailable`.

Where: one entry per (home, variable) — service `hermes-wizard`, username `<canonical home>:<VARIABLE>` — so two
homes (or profiles) of one user never share a token.  The canonical home is its real path (links and `..`
resolved): the wizard and Hermes's plugin may reach one home by different spellings and must name one entry.
An entry is this home's only when it is exactly `entry_for(home, VARIABLE)` (`belongs_to`); a config.yaml naming
any other username (another home's path with the right `:VARIABLE`, say) is refused everywhere — check (HW505),
`secrets migrate`, undo and the plugin's source — or one home's config could lift another home's token.
The home's `config.yaml` names them for Hermes:

    plugins:
      enabled: [wizard]                 # the entry point `wizard` of hermes-wizard, installed in Hermes's venv
    secrets:
      wizard_keyring:                   # SOURCE_NAME: the secret source that plugin registers
        enabled: true
        env:
          TELEGRAM_BOT_TOKEN: {service: hermes-wizard, username: /home/u/.hermes:TELEGRAM_BOT_TOKEN}

Usable: what `keyring` itself recommends (`keyring.core.recommended`), never its fail backend; a backend the user
configured explicitly (`PYTHON_KEYRING_BACKEND`, or a keyringrc.cfg) is honoured because they chose it, but
keyrings.alt's plaintext file is never picked up silently.

Contract: `keyring` is imported lazily, only inside these functions (it costs ~0.2 s and may touch D-Bus); the
check path calls them only when a home maps a secret to the keyring, and the pre-start gate never does.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # keyring itself is imported only where a secret is read or written (above)
    from types import ModuleType

    from keyring.backend import KeyringBackend

from hermes_wizard.core.homeroot import foreign_owner

SERVICE = "hermes-wizard"
SOURCE_NAME = "wizard_keyring"  # secrets.<SOURCE_NAME> in config.yaml; Hermes wants [a-z0-9_]
PLUGIN_NAME = "wizard"  # the entry-point name: `hermes plugins enable wizard`


class KeyringUnavailable(Exception):
    """No usable keyring here (none installed, no D-Bus session, locked, refused); the message says which."""


def canonical_home(home: Path | str) -> str:
    """The one spelling of `home` its entries' usernames use: the real path (never raises)."""
    return os.path.realpath(os.fspath(home))


def entry_for(home: Path | str, variable: str) -> tuple[str, str]:
    """The (service, username) that holds `variable` for `home`."""
    return SERVICE, f"{canonical_home(home)}:{variable}"


def belongs_to(home: Path | str, variable: str, service: object, username: object) -> bool:
    """Is (service, username) exactly `variable`'s entry for `home`?  Nothing else may be read for it."""
    return (service, username) == entry_for(home, variable)


def backend_name() -> str:
    """The backend keyring would use, for messages ("SecretService Keyring"); raises KeyringUnavailable."""
    backend = _usable_backend()
    return f"{type(backend).__module__.rpartition('.')[2]} {type(backend).__name__}".strip()


def usable() -> str | None:
    """None when a usable keyring is here, else the one-line reason there is none."""
    try:
        _usable_backend()
    except KeyringUnavailable as exc:
        return str(exc)
    return None


def usable_for(home: Path) -> str | None:
    """None when the secrets of `home` can be kept in a usable keyring here, else why not in one line: the
    keyring is per user, so one of another user's home (root setting up someone's home) never can be —
    the gateway, running as its owner, would never read it."""
    login = foreign_owner(home)
    if login is not None:
        return (f"the OS keyring is per user and this home belongs to {login}, whose gateway would never read "
                f"yours; to use the keyring, run hermes-wizard as {login}")
    return usable()


def read(service: str, username: str) -> str | None:
    """The stored secret, or None when there is no such entry."""
    backend = _usable_backend()
    try:
        return backend.get_password(service, username)
    except Exception as exc:  # backends raise KeyringError, dbus errors, RuntimeError…
        raise KeyringUnavailable(_why(exc)) from None


def store(service: str, username: str, secret: str) -> None:
    backend = _usable_backend()
    try:
        backend.set_password(service, username, secret)
    except Exception as exc:
        raise KeyringUnavailable(_why(exc)) from None


def delete(service: str, username: str) -> bool:
    """Remove the entry; False when there was none."""
    backend = _usable_backend()
    try:
        if backend.get_password(service, username) is None:
            return False
        backend.delete_password(service, username)
        return True
    except Exception as exc:
        raise KeyringUnavailable(_why(exc)) from None


def _usable_backend() -> KeyringBackend:
    try:
        import keyring
        from keyring.backends import chainer, fail
        from keyring.core import recommended
    except Exception as exc:  # not installed, or broken at import
        raise KeyringUnavailable(f"the keyring library cannot be loaded ({type(exc).__name__})") from None
    try:
        backend = keyring.get_keyring()
    except Exception as exc:
        raise KeyringUnavailable(_why(exc)) from None
    if isinstance(backend, fail.Keyring) or (isinstance(backend, chainer.ChainerBackend) and not backend.backends):
        raise KeyringUnavailable("no OS keyring is available here (no Secret Service, Keychain or Credential "
                                 "Manager; over SSH there is usually no session bus)")
    if not (recommended(backend) or _chosen_explicitly() or _is_chainer_of_recommended(backend, chainer)):
        raise KeyringUnavailable(f"the only keyring here is {type(backend).__name__}, which keyring does not "
                                 "recommend (a plaintext file?); set PYTHON_KEYRING_BACKEND to use it anyway")
    return backend


def _is_chainer_of_recommended(backend: KeyringBackend, chainer: ModuleType) -> bool:
    from keyring.core import recommended

    return isinstance(backend, chainer.ChainerBackend) and all(recommended(b) for b in backend.backends)


def _chosen_explicitly() -> bool:
    if os.environ.get("PYTHON_KEYRING_BACKEND"):
        return True
    try:
        from keyring.util import platform_

        return (Path(platform_.config_root()) / "keyringrc.cfg").is_file()
    except Exception:
        return False


def _why(exc: BaseException) -> str:
    name = type(exc).__name__
    text = str(exc).splitlines()[0][:160] if str(exc) else ""
    if "locked" in text.lower() or name in ("InitError", "KeyringLocked"):
        return f"the keyring is locked ({name})"
    return f"the keyring refused: {name}{': ' + text if text else ''}"
