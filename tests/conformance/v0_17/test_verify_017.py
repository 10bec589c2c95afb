"""`check --verify` with an installed Hermes 0.17.0: asked on a copy of the home, its own loader answers, and
a Hermes without a startup rule is a Hermes that starts (or crashes) — never "could not be asked" (HW161)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from oracle import require_oracle, venv_python

from hermes_wizard.faces.cli import main

pytestmark = pytest.mark.oracle
DEMO = Path(__file__).resolve().parents[3] / "assets" / "homes" / "death-loop"
V17 = "0.17.0"


def _verify(capsys, home: Path) -> tuple[int, dict]:
    code = main(["check", "--home", str(home), "--verify", "--hermes-python", str(venv_python(V17)),
                 "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_the_death_loop_home_starts_under_017_and_hermes_itself_says_so(capsys, tmp_path):
    require_oracle(V17)
    home = tmp_path / "demo"
    shutil.copytree(DEMO, home)
    (home / ".env").chmod(0o600)
    code, report = _verify(capsys, home)
    assert report["hermes"]["version"] == V17 and report["hermes"]["judged_as"] == V17
    told = report["verified_by_hermes"]
    assert told["version"] == V17 and told["would_start"] is True and told["error"] is None, told
    assert report["would_start"] is True and code in (0, 1)
    codes = {f["code"] for f in report["findings"]}
    assert not codes & {"HW160", "HW161"}, report["findings"]


def test_a_017_crash_is_hermes_own_answer_too(capsys, tmp_path):
    require_oracle(V17)
    home = tmp_path / "crash"
    home.mkdir()
    (home / ".env").write_text("WECOM_CALLBACK_CORP_ID=ww0001\nWECOM_CALLBACK_CORP_SECRET=cb-secret-42\n"
                               "WECOM_CALLBACK_PORT=eighty\n")
    code, report = _verify(capsys, home)
    told = report["verified_by_hermes"]
    assert told["would_start"] is False and "ValueError" in (told["error"] or ""), told
    assert code == 78 and report["would_start"] is False
    assert not {f["code"] for f in report["findings"]} & {"HW160", "HW161"}, report["findings"]
