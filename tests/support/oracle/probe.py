"""Oracle probe: ask the real Hermes (0.17.0, 0.18.x, 0.19.0 or 0.20.1) whether its gateway would start.

Runs INSIDE an oracle venv (``$HERMES_ORACLE_VENV/bin/python probe.py ...``),
imports Hermes and never our code. The same file serves every version: it builds each version's own
runner, which loads that version's config. For every home it prints one JSON line::

    {"home", "would_start", "refusal_platform", "refusal_reason", "enabled",
     "error", "order", "debug"}

``enabled`` is the sorted list of platforms whose ``PlatformConfig.enabled`` is
true; ``order`` is the same set in Hermes's own dict order (the startup check
reports the *first* violating platform in that order). ``error`` is
``"Type: message"`` when ``load_gateway_config()`` raises (Hermes would crash at
startup, so ``would_start`` is false).

The sequence reproduces ``hermes gateway run`` up to the startup check, which
loads ``.env`` TWICE before building the config (``hermes_cli/main.py:654`` and
the ``gateway.run`` import, ``gateway/run.py:1425``). The second load matters:
``${VAR}`` referring to a key defined later in ``.env`` is empty after one load
but resolved after two. Then it builds the ``GatewayRunner`` as ``start_gateway`` does before
the check (``_build_runner``): its ``__init__`` loads the config and reads the home again, and
crashes where the config loader did not (a config.yaml holding an alias to itself, a
``session_reset.bg_process_max_age_hours`` that is not a number, a ``pairing`` that is a file).

Modes:
  probe.py --fresh HOME      one home per process; HERMES_HOME must already be
                             HOME. Exactly the real import order. Slow (~1 s).
  probe.py HOME [HOME ...]   batch: many homes in one process.
  probe.py                   stream: read one home path per stdin line, answer
                             one JSON line per home (flushed), until EOF.

Batch/stream mode imports Hermes once against an empty baseline home, then for
each home restores ``os.environ`` to that baseline and clears every cache that
could carry state from one home to the next. ``test_oracle_probe.py`` proves it
answers exactly like ``--fresh``. Homes that batch mode cannot isolate (a
``plugins/`` dir, a ``plugins:`` config key, profile multiplexing) are
re-evaluated in a ``--fresh`` subprocess automatically.

Importing Hermes loads ``$HERMES_HOME/.env`` and may rewrite it: only ever pass
copies of homes. The caller provides a clean environment (see oracle/__init__.py).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

# Env vars shown in "debug" (policy, opt-in, enablement switches).
_DEBUG_SUFFIXES = ("_DM_POLICY", "_GROUP_POLICY", "_ALLOW_ALL_USERS", "_ENABLED")

# The caller's clean environment, before Hermes imports start mutating it.
_ORIGINAL_ENV = dict(os.environ)

_OUT = sys.stdout  # replaced in main(): Hermes prints freely, our stdout is JSON only


def _site_root() -> Path:
    import hermes_cli

    # hermes_cli/main.py: PROJECT_ROOT = Path(__file__).parent.parent.resolve()
    return Path(hermes_cli.__file__).parent.parent.resolve()


def _cli_dotenv_load() -> None:
    """The load ``hermes_cli/main.py`` does at CLI start (before gateway.run)."""
    from hermes_cli.env_loader import load_hermes_dotenv

    load_hermes_dotenv(project_env=_site_root() / ".env")


def _gateway_dotenv_load() -> None:
    """The load ``gateway/run.py`` does at import time."""
    from hermes_cli.env_loader import load_hermes_dotenv
    from hermes_constants import get_hermes_home

    load_hermes_dotenv(hermes_home=get_hermes_home(), project_env=_site_root() / ".env")


def _crashed(home: str, exc: BaseException) -> dict:
    """Hermes raised before its startup check: the gateway would crash, not start."""
    return {
        "home": home, "would_start": False, "refusal_platform": None, "refusal_reason": None,
        "enabled": [], "order": [], "error": f"{type(exc).__name__}: {exc}",
        "debug": {"traceback": traceback.format_exc(limit=4)},
    }


def _build_runner(gr):
    """The runner ``start_gateway`` builds before its startup check: ``GatewayRunner(None)``, whose
    ``__init__`` loads the config itself (0.19.0 ``load_gateway_config_for_runner``, a profile re-scope
    only under multiplexing; 0.18.x and 0.17.0 ``load_gateway_config``) and then reads the home again -- config.yaml
    with ``${VAR}`` expanded (``_load_gateway_runtime_config``), the session-reset policy, the pairing
    store, the voice modes -- outside any guard, so a crash there is the real gateway's crash.

    What a fresh process fixes at import for its home is pointed at this one for the call (batch mode:
    the module was imported for the baseline home): the module's ``_hermes_home`` and the voice-mode file
    derived from it, and ``gateway.pairing``, dropped so the runner's own import runs it again -- its
    ``PAIRING_DIR`` is chosen at that import, after the runner's config loads made ``<home>/pairing``
    (which 0.17 then uses whatever ``platforms/pairing`` holds)."""
    home = Path(os.environ["HERMES_HOME"])
    runner_class = gr.GatewayRunner
    saved = gr._hermes_home, runner_class._VOICE_MODE_PATH
    gr._hermes_home, runner_class._VOICE_MODE_PATH = home, home / "gateway_voice_mode.json"
    sys.modules.pop("gateway.pairing", None)
    try:
        return runner_class()
    finally:
        gr._hermes_home, runner_class._VOICE_MODE_PATH = saved


def _decide(home: str) -> dict:
    """Build the runner the gateway would run and run the startup check on its config."""
    import gateway.run as gr

    try:
        cfg = _build_runner(gr).config
    except Exception as exc:  # Hermes would crash in GatewayRunner.__init__
        return _crashed(home, exc)
    # Before 0.18.0 (0.17.0) there is no startup refusal: no rule means no gate; a config that loads starts.
    check = getattr(gr, "_own_policy_open_startup_violation", None)
    reason = check(cfg) if check is not None else None
    order = [p.value for p, c in cfg.platforms.items() if c.enabled]
    debug = {
        "multiplex": bool(getattr(cfg, "multiplex_profiles", False)),
        "extra": {
            p.value: {k: c.extra[k] for k in ("dm_policy", "group_policy", "allow_from") if k in c.extra}
            for p, c in cfg.platforms.items()
        },
        "disabled": sorted(p.value for p, c in cfg.platforms.items() if not c.enabled),
        "env": {
            k: v
            for k, v in sorted(os.environ.items())
            if k.endswith(_DEBUG_SUFFIXES) and _ORIGINAL_ENV.get(k) != v
        },
    }
    return {
        "home": home, "would_start": reason is None,
        "refusal_platform": reason.split(":", 1)[0] if reason else None, "refusal_reason": reason,
        "enabled": sorted(order), "order": order, "error": None, "debug": debug,
    }


def run_fresh(home: str) -> dict:
    """Exactly the real start-up order; HERMES_HOME must already equal *home*."""
    if os.path.realpath(os.environ.get("HERMES_HOME", "")) != os.path.realpath(home):
        raise SystemExit("--fresh needs HERMES_HOME set to the home")
    try:
        _cli_dotenv_load()
        import gateway.run  # noqa: F401  (its import performs the second load)
    except Exception as exc:
        return _crashed(home, exc)
    return _decide(home)


class Batch:
    """Evaluate many homes in one process, each from a clean slate."""

    def __init__(self) -> None:
        self._baseline_home = tempfile.mkdtemp(prefix="oracle-baseline-")
        atexit.register(shutil.rmtree, self._baseline_home, True)
        os.environ["HERMES_HOME"] = self._baseline_home
        _cli_dotenv_load()
        import gateway.run as gr

        _memoize_entry_points()
        # Warm-up: plugin discovery and platform registry happen on the first
        # config load, and the runner imports what it needs on its first build; do both on the empty
        # home so every home sees the same registry (and the env mutations they make are in the baseline).
        _build_runner(gr)
        self._baseline_env = dict(os.environ)
        self._baseline_path = list(sys.path)

    def _reset(self, home: str) -> None:
        import hermes_cli.config as hc
        import hermes_cli.env_loader as el
        import hermes_cli.managed_scope as ms

        os.environ.clear()
        os.environ.update(self._baseline_env)
        os.environ["HERMES_HOME"] = home
        # 0.20 puts four entries on sys.path again for every home (copies of ones it holds): a fresh process has
        # them once. Left to grow, every import of the next home searched them all: at home 1,800 of a repair
        # sweep a home took 2.3 s instead of 0.2 s.
        sys.path[:] = self._baseline_path
        el.reset_secret_source_cache()
        el._SECRET_SOURCES.clear()
        el._WARNED_KEYS.clear()
        getattr(el, "_WARNED_UTF32_PATHS", set()).clear()  # 0.19.0 on
        getattr(el, "_SECRET_SOURCE_VALUES_BY_HOME", {}).clear()  # 0.20.1: secret-source values per home
        # 0.20 keeps one plugin manager per home it has seen, each holding every bundled plugin it loaded:
        # dropped here, or a batch of homes grows by megabytes a home. A home's own manager is new either way
        # (keyed by the home), so the decision does not change.
        reset_managers = getattr(sys.modules.get("hermes_cli.plugins"), "_reset_plugin_managers_for_tests", None)
        if reset_managers is not None:
            reset_managers()
        hc._LOAD_CONFIG_CACHE.clear()
        hc._RAW_CONFIG_CACHE.clear()
        getattr(hc, "_LAST_EXPANDED_CONFIG_BY_PATH", {}).clear()  # a config's last good expansion, by path
        hc.invalidate_env_cache()
        ms.invalidate_managed_cache()
        _reset_multiplex_flag()

    @staticmethod
    def _needs_isolation(home: str) -> bool:
        p = Path(home)
        if (p / "plugins").exists():
            return True
        try:
            import yaml

            data = yaml.safe_load((p / "config.yaml").read_text(encoding="utf-8"))
        except Exception:
            return False
        return isinstance(data, dict) and "plugins" in data

    def evaluate(self, home: str) -> dict:
        home = str(Path(home).absolute())
        if self._needs_isolation(home):
            return _fresh_subprocess(home)
        self._reset(home)
        try:
            _cli_dotenv_load()
            _gateway_dotenv_load()
            result = _decide(home)
        except Exception as exc:  # a .env load that raises would crash Hermes at start-up too
            result = _crashed(home, exc)
        finally:
            os.environ.clear()
            os.environ.update(self._baseline_env)
        if result["debug"].get("multiplex"):
            return _fresh_subprocess(home)  # profile scopes are process state
        return result


def _memoize_entry_points() -> None:
    """Answer `importlib.metadata.entry_points` once per batch process.  From 0.20 on, every config load scans
    every installed distribution's entry points for plugins (about a fifth of a home's time); the venv's
    distributions do not change while a batch runs, and a home's own plugins live in its folder, which such a
    home is judged without (`_needs_isolation`: a fresh process).  Each call still gets the full answer."""
    import functools
    import importlib.metadata as metadata

    scan = metadata.entry_points

    @functools.cache
    def scanned(items: tuple) -> object:
        return scan(**dict(items))

    def entry_points(**params: object) -> object:
        return scanned(tuple(sorted(params.items())))

    metadata.entry_points = entry_points


def _reset_multiplex_flag() -> None:
    """A multiplexing home's runner switches the process-wide secret-scope mode on (0.20.1
    ``agent/secret_scope.py:40``, set from ``GatewayRunner.__init__``); the next home starts without it."""
    try:
        import agent.secret_scope as scope
    except ImportError:  # before 0.19
        return
    if hasattr(scope, "set_multiplex_active"):
        scope.set_multiplex_active(False)


def _fresh_subprocess(home: str) -> dict:
    env = dict(_ORIGINAL_ENV)
    env["HERMES_HOME"] = home
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--fresh", home],
        env=env, capture_output=True, text=True, timeout=300,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"fresh probe failed for {home}: {proc.stderr[-2000:]}")
    result = json.loads(lines[-1])
    result["debug"]["isolated"] = True
    return result


def _emit(result: dict) -> None:
    _OUT.write(json.dumps(result, sort_keys=True) + "\n")
    _OUT.flush()


def _own_stdout() -> None:
    """Keep the real stdout for JSON; send everything else (Hermes's prints, child processes) to stderr."""
    global _OUT
    _OUT = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    logging.disable(logging.CRITICAL)


def main(argv: list[str]) -> int:
    _own_stdout()
    if argv[:1] == ["--fresh"]:
        if len(argv) != 2:
            raise SystemExit("usage: probe.py --fresh HOME")
        _emit(run_fresh(argv[1]))
        return 0
    batch = Batch()
    homes = argv if argv else (line.rstrip("\n") for line in sys.stdin)
    for home in homes:
        if home:
            _emit(batch.evaluate(home))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
