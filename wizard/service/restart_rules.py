"""What systemd does when a service's gateway exits 0 at start — Hermes's open-policy refusal — read from the
unit's own settings, and the few systemd value syntaxes that decision needs.

systemd 252 decides in two steps (src/core/service.c; each measured on a real systemd 252 by
tests/system/test_real_systemd_shapes.py, every Type= × Restart= below):

1. How the start ended.  `Type=simple`/`exec`: the exit is a success (`Result=success`).  `Type=notify`
   (what Hermes renders from 0.20.1 on when `gateway.systemd_watchdog_seconds` > 0): a main process that
   exits before it sent `READY=1` fails the start, whatever its status (`Result=protocol`, journal
   "Failed with result 'protocol'", ExecMainStatus=0).
2. Whether to restart (`service_shall_restart`): an exit status in `RestartPreventExitStatus=` never is;
   one in `RestartForceExitStatus=` always is, even under `Restart=no`; otherwise `Restart=`: `always`
   restarts anything but a skipped start, `on-success` a success, `on-failure` and `on-abnormal` a
   protocol failure (not a success), `on-watchdog`/`on-abort`/`no` neither.

`SuccessExitStatus=` changes nothing for an exit 0.  Exit status lists take numbers and names
(systemd.exec(5) "Process Exit Codes": SUCCESS is 0, TEMPFAIL 75, CONFIG 78 — measured) and signal names,
which match no exit status.  Pure functions of strings: on the `check` path, this imports nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

NOTIFY_TYPES = ("notify", "notify-reload")  # the main process must send READY=1 (notify-reload: systemd 253)
STATUS_NAMES = {"SUCCESS": 0, "TEMPFAIL": 75, "CONFIG": 78}  # the names that matter here; the rest are other codes
# Restart= → the results of a refused start it restarts (service_shall_restart; a refusal is never a skip)
RESTARTED = {"always": ("success", "protocol"), "on-success": ("success",), "on-failure": ("protocol",),
             "on-abnormal": ("protocol",)}
DEFAULT_RESTART_S = 0.1  # RestartSec= unset (systemd.service(5))
_SPAN_UNITS = {"us": 1e-6, "usec": 1e-6, "ms": 1e-3, "msec": 1e-3, "s": 1.0, "sec": 1.0, "second": 1.0,
               "seconds": 1.0, "m": 60.0, "min": 60.0, "minute": 60.0, "minutes": 60.0, "h": 3600.0,
               "hr": 3600.0, "hour": 3600.0, "hours": 3600.0}


def exit_statuses(words: Iterable[str]) -> frozenset[int]:
    """The exit codes an exit status list names (signal names and anything unreadable are left out)."""
    found = set()
    for word in words:
        if word.isascii() and word.isdigit() and int(word) < 256:  # "٠" is a digit to Python, not to systemd
            found.add(int(word))
        elif word.upper() in STATUS_NAMES:
            found.add(STATUS_NAMES[word.upper()])
    return frozenset(found)


def seconds(span: str | None) -> float | None:
    """A systemd time span ("5", "5s", "1min 30s", "500ms"; systemd.time(7)) in seconds; None if unreadable.
    Scanned by hand, in one pass: a unit's text is its owner's, and a backtracking pattern could be made slow."""
    text, total, at = (span or "").strip().lower(), 0.0, 0
    if not text:
        return None
    while at < len(text):
        number, at = _run(text, at, lambda ch: ch in "0123456789.")
        _, at = _run(text, at, str.isspace)
        unit, at = _run(text, at, lambda ch: "a" <= ch <= "z")
        _, at = _run(text, at, str.isspace)
        try:
            total += float(number) * _SPAN_UNITS[unit or "s"]
        except (KeyError, ValueError):
            return None
    return total if total < 1e12 else None  # beyond any span systemd accepts (and not inf)


def _run(text: str, at: int, accepts: Callable[[str], bool]) -> tuple[str, int]:
    """The longest run of characters `accepts` from `at`, and where it ends."""
    end = at
    while end < len(text) and accepts(text[end]):
        end += 1
    return text[at:end], end


def waits_for_ready(service_type: str) -> bool:
    return service_type in NOTIFY_TYPES


def refusal_result(service_type: str) -> str:
    """systemd's `Result=` for a start whose gateway exits 0 before doing anything else."""
    return "protocol" if waits_for_ready(service_type) else "success"


def restarts_refusal(restart: str, service_type: str, prevent: frozenset[int], force: frozenset[int]) -> bool:
    """Does systemd start the gateway again after it exits 0 at start (step 2 of the module doc)?"""
    if 0 in prevent:
        return False
    if 0 in force:
        return True
    return refusal_result(service_type) in RESTARTED.get(restart, ())
