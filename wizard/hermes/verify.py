"""`--verify`: ask the installed Hermes itself, beside our model, and compare.

`ask_hermes.py` runs in Hermes's own Python, confined (wizard/core/confined.py: as the home's
owner, a new session without a terminal, an environment built from nothing, one deadline): it
copies the home to a throw-away folder of its own and runs Hermes's own loader and startup rule
on the copy, nothing started, no network (lazy installs off, proxies pointed at a closed local
port).  Root never copies or chowns anything for it.  What it prints is read with a bound and
reduced to printable text.

`check` imports this module only for `--verify` (wizard/judge/engine.py imports it lazily).

Contract: `ask(...)` never raises; a failure to ask is an answer with `error` set, and
`compare` says plainly when there is nothing to compare.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core import confined
from hermes_wizard.core.safetext import visible
from hermes_wizard.core.values import Value, value_class

if TYPE_CHECKING:
    from collections.abc import Mapping

SCRIPT = Path(__file__).with_name("ask_hermes.py")
TIMEOUT = 90.0  # the whole step: the copy, Hermes's imports and its decision
COPY_SECONDS = 30.0  # of which the copy may take this much (ask_hermes.py also bounds its entries and bytes)
_PROXIES = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
_FIXED = {"PATH", "HOME", "HERMES_HOME", "LANG", "LC_ALL", "PYTHONPATH", "PYTHONHOME", "LD_PRELOAD",
          "LD_LIBRARY_PATH", "TMPDIR"}
CLOSED_PORT = "http://127.0.0.1:9"  # discard: any connection attempt fails at once


@value_class
class HermesAnswer(Value):
    python: str
    version: str | None = None
    would_start: bool | None = None
    refusal_platform: str | None = None
    enabled: tuple[str, ...] = ()
    refusal_reason: str | None = None  # Hermes's own words (gateway_state.json `exit_reason`)
    refusal_exit: int | None = None  # the status it exits with when it refuses (0; 78 where a fix set it)
    set_aside: tuple[str, ...] = ()  # platforms it starts without (a Hermes that quarantines them)
    error: str | None = None  # Hermes crashed loading its config (a verdict: it would not start)
    failure: str | None = None  # we could not ask (no verdict)

    def as_json(self) -> dict[str, object]:
        return {"python": self.python, "version": self.version, "would_start": self.would_start,
                "refusal_platform": self.refusal_platform, "refusal_reason": self.refusal_reason,
                "refusal_exit": self.refusal_exit, "set_aside": self.set_aside, "enabled": self.enabled,
                "error": self.error, "failure": self.failure}

    @property
    def decided(self) -> bool:
        """Did Hermes give a verdict (start, refuse or crash)?  Not when it could not be asked, or has no rule."""
        return not self.failure and (self.would_start is not None or self.error is not None)

    @property
    def starts(self) -> bool:
        return self.decided and bool(self.would_start) and not self.error

    def verdict(self) -> str:
        if self.failure:
            return f"could not be asked ({self.failure})"
        if self.error:
            return f"the gateway would crash at startup ({self.error})"
        if self.would_start is None:
            return "no startup rule found to ask (enabled: " + (", ".join(self.enabled) or "none") + ")"
        if self.would_start:
            aside = f", setting {' and '.join(self.set_aside)} aside" if self.set_aside else ""
            return f"the gateway would start ({', '.join(self.enabled) or 'no platforms'}){aside}"
        exits = f" and exiting {self.refusal_exit}" if self.refusal_exit else ""
        return f"the gateway would refuse to start, naming {self.refusal_platform}{exits}"


def hermes_python(site_packages: Path | None) -> Path | None:
    """The interpreter of the prefix that holds `site_packages` (prefix/lib/pythonX.Y/site-packages)."""
    if site_packages is None:
        return None
    for name in ("python3", "python"):
        candidate = site_packages.parent.parent.parent / "bin" / name
        if candidate.exists():
            return candidate
    return None


def ask_installed(home: Path, site_packages: Path | None, base_env: Mapping[str, str] | None,
                  timeout: float = TIMEOUT) -> HermesAnswer:
    """`ask` the Hermes installed in `site_packages`; an answer with `failure` when there is none."""
    python = hermes_python(site_packages)
    if python is None:
        return HermesAnswer("", failure="Hermes's Python was not found (name it with --hermes-python PATH)")
    return ask(home, python, base_env or {}, timeout)


def ask(home: Path, python: Path, base_env: Mapping[str, str], timeout: float = TIMEOUT) -> HermesAnswer:
    """Hermes's own verdict on a copy of `home`, judged with `base_env` as its environment.

    Hermes runs confined (wizard/core/confined.py): as the home's owner, in a session of its own with no
    terminal, from an environment built from nothing.  `base_env` (the caller's own, with --inherit-env)
    reaches it only when it runs as ourselves: root's variables never reach another user's process."""
    try:
        who = confined.identity_for(home)
    except confined.Refused as exc:
        return HermesAnswer(str(python), failure=str(exc))
    env = {} if who.switch else {k: v for k, v in base_env.items() if k not in _FIXED}
    env.update(confined.base_env(who), HERMES_DISABLE_LAZY_INSTALLS="1", PIP_NO_INDEX="1", PIP_NO_INPUT="1",
               PYTHONDONTWRITEBYTECODE="1", NO_PROXY="", no_proxy="",
               **{name: CLOSED_PORT for name in _PROXIES})
    # absolute, not resolved: the confined process starts in `/`, and a venv's python is a link out of the venv
    python = python.absolute()
    copy_seconds = min(COPY_SECONDS, timeout / 3)
    argv = [str(python), "-I", "-c", SCRIPT.read_text(encoding="utf-8"), str(home), f"{copy_seconds:g}"]
    try:
        done = confined.run(argv, who, env, timeout)
    except OSError as exc:
        return HermesAnswer(str(python), failure=f"{type(exc).__name__}: {exc.strerror or exc}")
    if done.timed_out:
        return HermesAnswer(str(python), failure=f"no answer within {timeout:g} s")
    data = done.answer()
    if data is None:
        why = "its answer was larger than we read" if done.overflowed else done.complaint()
        return HermesAnswer(str(python), failure=_shown(f"it printed no answer: {why}"))
    if data.get("failure"):
        return HermesAnswer(str(python), failure=_shown(str(data["failure"])))
    code = data.get("refusal_exit")
    return HermesAnswer(str(python), _text(data.get("hermes")), _flag(data.get("would_start")),
                        _text(data.get("refusal_platform")), _names(data.get("enabled")),
                        _text(data.get("refusal_reason")),
                        code if isinstance(code, int) and not isinstance(code, bool) and 0 <= code < 256 else None,
                        _names(data.get("set_aside")), _text(data.get("error")))


def _names(value: object) -> tuple[str, ...]:
    return tuple(_shown(str(x)) for x in value[:64]) if isinstance(value, list) else ()


def _flag(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def _text(value: object) -> str | None:
    return None if value is None else _shown(str(value))


def _shown(text: str) -> str:
    """What the home's process said, reduced to printable text of a bounded length (it reaches terminals)."""
    return visible(text[:300])
