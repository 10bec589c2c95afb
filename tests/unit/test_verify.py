"""`check --verify`: the installed Hermes's own verdict beside ours, on a throw-away copy.

Against the real Hermes 0.19.0 (the oracle venv) it agrees; against a deliberately wrong model
the disagreement is a finding with both verdicts; the home itself is never touched.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from oracle import require_oracle, venv_python

from hermes_wizard.faces.cli import main
from hermes_wizard.hermes.model import Model

pytestmark = pytest.mark.oracle  # every test here runs the real Hermes 0.19.0

DEMO = Path(__file__).resolve().parents[2] / "assets" / "homes" / "death-loop"


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    require_oracle()
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    (home / ".env").chmod(0o600)
    return home


def tree(root: Path) -> dict[str, str]:
    out = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        out[str(path.relative_to(root))] = (os.readlink(path) if path.is_symlink() else
                                            hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else
                                            "dir") + f" {st.st_mode:o} {st.st_mtime_ns}"
    return out


def verify(capsys, home: Path, *extra: str) -> tuple[int, dict]:
    code = main(["check", "--home", str(home), "--verify", "--hermes-python", str(venv_python()),
                 "--format", "json", *extra])
    return code, json.loads(capsys.readouterr().out)


def test_hermes_itself_agrees_on_the_death_loop_and_the_home_is_untouched(capsys, demo, tmp_path):
    before = tree(demo)
    code, report = verify(capsys, demo)
    assert tree(demo) == before
    told = report["verified_by_hermes"]
    assert told["version"] == "0.19.0" and told["would_start"] is False and told["refusal_platform"] == "whatsapp"
    assert told["enabled"] == ["telegram", "weixin", "whatsapp"] and told["failure"] is None
    assert code == 78 and not [f for f in report["findings"] if f["code"] in ("HW160", "HW161")]
    main(["check", "--home", str(demo), "--verify", "--hermes-python", str(venv_python())])
    assert "Hermes itself, asked on a copy of the home: the gateway would refuse to start, naming whatsapp " \
           "— hermes-wizard agrees" in capsys.readouterr().out


def test_hermes_itself_agrees_after_the_repair(capsys, demo):
    assert main(["doctor", "--home", str(demo), "--fix", "--yes"]) == 0
    capsys.readouterr()
    code, report = verify(capsys, demo)
    assert report["verified_by_hermes"]["would_start"] is True
    assert report["verified_by_hermes"]["enabled"] == ["telegram", "weixin"]
    assert not [f for f in report["findings"] if f["code"] == "HW160"] and code == 0


def test_a_wrong_model_is_caught_with_both_verdicts(capsys, demo, monkeypatch):
    monkeypatch.setattr(Model, "open_policy_violations", lambda self, effective: [])  # a model forgot the refusal
    code, report = verify(capsys, demo)
    assert report["would_start"] is True  # what the broken model believes
    disagreement = [f for f in report["findings"] if f["code"] == "HW160"]
    assert len(disagreement) == 1 and disagreement[0]["severity"] == "error"
    assert "Hermes 0.19.0 itself says: the gateway would refuse to start, naming whatsapp" in disagreement[0]["message"]
    assert "hermes-wizard says: the gateway would start" in disagreement[0]["message"]
    assert code == 78  # Hermes's truth decides the exit code


def test_without_hermes_python_it_says_it_could_not_ask(capsys, demo):
    code = main(["check", "--home", str(demo), "--verify", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert report["verified_by_hermes"]["failure"].startswith("Hermes's Python was not found")
    assert [f["code"] for f in report["findings"] if f["code"].startswith("HW16")] == ["HW161"]
    assert code == 78  # unasked, our own verdict stands: the demo home refuses


def test_the_copy_keeps_links_as_links_and_skips_what_cannot_matter(tmp_path):
    import importlib.util
    import time

    from hermes_wizard.hermes.verify import SCRIPT

    spec = importlib.util.spec_from_file_location("ask_hermes", SCRIPT)  # Hermes's side: run there, not imported
    ask_hermes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ask_hermes)
    home = tmp_path / "home"
    (home / "hermes-agent" / "venv").mkdir(parents=True)
    (home / "hermes-agent" / "venv" / "big").write_bytes(b"x" * 1024)
    secret = tmp_path / "root-only"
    secret.write_text("SECRET=1\n")
    (home / "config.yaml").symlink_to(secret)
    os.mkfifo(home / ".env")
    ask_hermes.copy_home(str(home), str(tmp_path / "copy"), time.monotonic() + 30)
    assert os.readlink(tmp_path / "copy" / "config.yaml") == str(secret)
    assert not (tmp_path / "copy" / ".env").exists()  # a FIFO is not copied (nor opened: no hang)
    assert not (tmp_path / "copy" / "hermes-agent").exists()


def test_doctor_asks_hermes_itself_after_writing(capsys, demo, monkeypatch):
    code = main(["doctor", "--home", str(demo), "--fix", "--yes", "--hermes-python", str(venv_python())])
    out = capsys.readouterr().out
    assert code == 0
    assert "Hermes 0.19.0 itself, asked on a copy of the written files: the gateway would start (telegram, " \
           "weixin)" in out and "Verified: the gateway will start" in out


def test_doctor_never_says_verified_when_hermes_itself_refuses(capsys, demo, monkeypatch):
    from hermes_wizard.hermes import verify as verify_module

    real_ask = verify_module.ask

    # Hermes is asked about a home whose .env we spoil afterwards
    def ask_then_break(home, python, base_env, timeout=verify_module.TIMEOUT):
        (home / ".env").write_text((home / ".env").read_text() + "WECOM_DM_POLICY=open\nWECOM_ENABLED=true\n"
                                   "WECOM_BOT_ID=b\nWECOM_SECRET=s\n")
        return real_ask(home, python, base_env, timeout)

    monkeypatch.setattr(verify_module, "ask", ask_then_break)
    code = main(["doctor", "--home", str(demo), "--fix", "--yes", "--hermes-python", str(venv_python())])
    out = capsys.readouterr().out
    assert "the installed Hermes disagrees with hermes-wizard" in out and "Verified" not in out
    assert code == 78
