"""Shared pytest configuration. Each section below is owned by one area; keep them delimited."""

# ---- hermes oracle / conformance (tests/oracle/) -----------------------------------------
# Fixtures live in tests/oracle/fixtures.py; this block only makes them visible.
import sys
from pathlib import Path

if str(Path(__file__).parent) not in sys.path:  # `import oracle`, `import homegen` from any rootdir
    sys.path.insert(0, str(Path(__file__).parent))

from oracle.fixtures import hermes_oracle, pytest_terminal_summary  # noqa: E402,F401
# ---- end hermes oracle / conformance -----------------------------------------------------
