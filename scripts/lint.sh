#!/usr/bin/env bash
# Static checks: ruff (pyflakes, pycodestyle, isort, bugbear, pyupgrade) over the package (wizard/ and screens/), the
# tests, the benchmarks and the Python scripts; mypy over the package. Configured in pyproject.toml;
# both must be clean. Uses the same .venv as scripts/test.sh.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"

ensure_venv test
cd "$hw_repo"
"$hw_venv/bin/ruff" check wizard screens tests benchmarks scripts/*.py
# mypy names modules by folder, and the folders are not the import name (wizard/ installs as hermes_wizard,
# screens/ as hermes_wizard.screens: pyproject.toml's package-dir). So it reads them through a tree of links
# named as installed, rebuilt each run, and its paths are mapped back to the repo's.
tree="$hw_repo/.cache/typecheck"
rm -rf "$tree" && mkdir -p "$tree/hermes_wizard"
for entry in wizard/*; do
    case "$entry" in */__pycache__) continue ;; esac
    ln -s "$hw_repo/$entry" "$tree/hermes_wizard/${entry#wizard/}"
done
ln -s "$hw_repo/screens" "$tree/hermes_wizard/screens"
(cd "$tree" && "$hw_venv/bin/mypy" --config-file "$hw_repo/pyproject.toml" -p hermes_wizard) \
    | sed -e 's#^hermes_wizard/screens/#screens/#' -e 's#^hermes_wizard/#wizard/#'
exit "${PIPESTATUS[0]}"
