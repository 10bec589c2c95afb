#!/usr/bin/env bash
# Static checks over wizard/ and screens/: ruff (pyflakes, pycodestyle, isort, bugbear, pyupgrade) and mypy,
# configured in pyproject.toml. Both must be clean. Uses the same .venv as scripts/test.sh.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"

ensure_venv test
cd "$hw_repo"
"$hw_venv/bin/ruff" check wizard screens
"$hw_venv/bin/mypy"
