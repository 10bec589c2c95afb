"""Stop a real ``hermes gateway run`` right after its startup policy check.

Put this directory on ``PYTHONPATH`` and set ``ORACLE_GATEWAY_REPORT=<file>``.
When ``gateway.run`` is imported, its ``_own_policy_open_startup_violation`` is
wrapped (``GatewayRunner.start()`` looks the name up at call time): the wrapper
writes ``{"reason", "order", "pairing_dir"}`` -- the check's answer, the enabled platforms in
the config's own order and the folder the runner's pairing store uses (``gateway.pairing.PAIRING_DIR``,
chosen when the runner first imported it) -- to the report file and exits the process at once, so
homes that pass the check do not go on to connect adapters.  A Hermes without the
check (0.17) is stopped the same way as ``GatewayRunner.start()`` begins (reason
null): its runner was built, with the config, and nothing refuses after that.

Nothing else is changed: everything up to the check is Hermes's real start-up.
Used by ``tests/conformance/test_probe.py`` to prove ``probe.py`` answers like the
real gateway.
"""

import importlib.abc
import importlib.machinery
import json
import os
import sys

_REPORT = os.environ.get("ORACLE_GATEWAY_REPORT")


def _report(reason, config) -> None:
    order = [p.value for p, c in getattr(config, "platforms", {}).items() if c.enabled]
    pairing = sys.modules.get("gateway.pairing")
    folder = getattr(pairing, "PAIRING_DIR", None)
    if folder is None and hasattr(pairing, "_default_pairing_dir"):  # the main line resolves it lazily
        folder = pairing._default_pairing_dir()
    pairing_dir = str(folder) if folder is not None else None
    with open(_REPORT, "w", encoding="utf-8") as fh:
        json.dump({"reason": reason, "order": order, "pairing_dir": pairing_dir}, fh)
    os._exit(0)


def _wrap(module) -> None:
    real = getattr(module, "_own_policy_open_startup_violation", None)
    if real is None:  # before 0.18.0 there is no check: stop where the runner, config built, starts
        runner = module.GatewayRunner

        async def started(self):
            _report(None, self.config)

        runner.start = started
        return

    def checked(config):
        _report(real(config), config)

    module._own_policy_open_startup_violation = checked


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "gateway.run":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_wrap(module):
            exec_module(module)
            _wrap(module)

        spec.loader.exec_module = exec_and_wrap
        return spec


if _REPORT:
    sys.meta_path.insert(0, _Finder())
