"""Data we keep about Hermes 0.19.0 must equal what the real Hermes says."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from oracle import missing_reason, venv_python

REPO = Path(__file__).resolve().parents[3]


def test_known_env_keys_match_hermes(tmp_path):
    reason = missing_reason()
    if reason:  # CI builds the oracle; a missing one there is a failure
        (pytest.fail if os.environ.get("CI") else pytest.skip)(reason)
    done = subprocess.run([str(venv_python()), str(REPO / "scripts" / "hermes-env-keys.py")], capture_output=True,
                          text=True, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "HERMES_HOME": str(tmp_path)},
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert (REPO / "wizard" / "hermes" / "v0_19" / "env_keys.txt").read_text().split() == done.stdout.split()


def test_our_dotenv_parser_is_the_one_hermes_pins():
    reason = missing_reason()
    if reason:
        (pytest.fail if os.environ.get("CI") else pytest.skip)(reason)
    from importlib.metadata import version

    asks = "import importlib.metadata as m; print(m.version('python-dotenv'))"
    done = subprocess.run([str(venv_python()), "-c", asks], capture_output=True, text=True, timeout=60)
    assert version("python-dotenv") == done.stdout.strip()
