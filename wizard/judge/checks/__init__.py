"""The check registry: small functions with stable codes, names and docs.

A check is a function `(Context) -> Iterable[Hit]` registered with `@check`.
Codes are never reused; the docstring-like `what/why/fix` texts feed
`hermes-wizard explain CODE`.  A check that raises becomes one `HW000
check-crashed` finding naming it, never a traceback.

The registry itself is wizard/judge/checks/registry.py; this package imports every check module at its top
(registering them) and hands out the registry's names.
"""

from __future__ import annotations

from hermes_wizard.judge.checks import (  # noqa: F401  (registration)
    access,
    files,
    reach,
    runtime,
    secrets,
    service,
    transport,
    versions,
)
from hermes_wizard.judge.checks.registry import (
    REGISTRY,
    Check,
    Context,
    Finding,
    Hit,
    all_checks,
    check,
    get_check,
    run_checks,
)

__all__ = ["REGISTRY", "Check", "Context", "Finding", "Hit", "all_checks", "check", "get_check", "run_checks"]
