"""What a preview says of the files' modes is what the written files have: the plan judged with the mode and
owner the writer leaves (a kept 0644 `.env` is still readable by others; the doctor's chmod 600 is not; a new
`.env` is 0600), so the preview lists HW015 exactly when the outcome does."""

from __future__ import annotations

import shutil

import pytest

from hermes_wizard.cases.fixing import DoctorChoices, Fixing

TOKEN = "7123456789:AAHtestTokenTestTokenTestToken_012345"


def _codes(report) -> set[str]:
    return {f.code for f in report.findings}


@pytest.mark.parametrize("mode", [0o644, 0o600, None])
def test_setup_previews_the_mode_the_written_env_has(tmp_path, mode):
    home = tmp_path / "home"
    home.mkdir()
    if mode is not None:
        (home / ".env").write_text("# kept\n")
        (home / ".env").chmod(mode)
    fixing = Fixing(home)
    fixing.session.type_value("telegram", "TELEGRAM_BOT_TOKEN", TOKEN)
    fixing.session.set_access("telegram", "allowlist", ["123456789"])
    proposal = fixing.propose()
    assert proposal.plan.changes
    said_before = "HW015" in _codes(proposal.outlook)
    applied = fixing.apply(proposal, reason="test")
    assert said_before == ("HW015" in _codes(applied.report)) == (mode == 0o644)


def test_the_doctors_chmod_is_previewed_as_done(demo):
    (demo / ".env").chmod(0o644)
    fixing = Fixing(demo, mode="doctor")
    assert "HW015" in _codes(fixing.report)
    proposal = fixing.propose(DoctorChoices())
    assert "HW015" not in _codes(proposal.outlook)
    applied = fixing.apply(proposal, reason="test")
    assert "HW015" not in _codes(applied.report)
    assert (demo / ".env").stat().st_mode & 0o777 == 0o600


def test_a_chmod_alone_is_previewed_as_done(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(_healthy(tmp_path), home)
    (home / ".env").chmod(0o640)
    fixing = Fixing(home, mode="doctor")
    proposal = fixing.propose(DoctorChoices())
    assert [c.action for c in proposal.plan.changes] == ["mode"]  # nothing else to repair: the chmod alone
    assert "HW015" in _codes(fixing.report) and "HW015" not in _codes(proposal.outlook)


def _healthy(tmp_path):
    source = tmp_path / "healthy"
    source.mkdir()
    (source / ".env").write_text(f"TELEGRAM_BOT_TOKEN={TOKEN}\nTELEGRAM_ALLOWED_USERS=123456789\n")
    return source
