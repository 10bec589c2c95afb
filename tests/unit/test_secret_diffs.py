"""A changed secret is shown, masked, in every diff (ARCHITECTURE.md, "Contracts": secrets never in clear): `~ KEY =
(secret changed)`.

Both sides of a diff are masked, so a rotated token used to read the same before and after: "1 change in .env"
above an empty diff.  Each face is driven as a user drives it — flags with --dry-run, the plain review's
render_diff, undo --dry-run — and its output must name the rotated variable as changed, never show either value,
and a dry run with only a rotated token must exit as "changes pending".
"""

from __future__ import annotations

import pytest

from hermes_wizard.faces.cli import main

OLD = "123456789:AAHoldOLDoldOLDoldOLDold_abcdefghij"
NEW = "123456789:AAHnewNEWnewNEWnewNEWnew_abcdefghij"
ROTATED = "~ TELEGRAM_BOT_TOKEN = (secret changed)"


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("NEW_TELEGRAM_BOT_TOKEN", NEW)
    path = tmp_path / "hermes"
    path.mkdir()
    (path / ".env").write_text(f"TELEGRAM_BOT_TOKEN={OLD}\nTELEGRAM_ALLOWED_USERS=111111\n")
    (path / ".env").chmod(0o600)
    (path / "config.yaml").write_text("platforms:\n  telegram:\n    enabled: true\n")
    return path


ROTATE = ["setup", "--platform", "telegram", "--token-from-env", "NEW_TELEGRAM_BOT_TOKEN"]


@pytest.mark.parametrize("detailed, pending", [([], 1), (["--detailed-exitcode"], 2)])
def test_a_dry_run_rotating_a_token_shows_it_changed_and_exits_as_pending(home, capsys, detailed, pending):
    before = (home / ".env").read_bytes()
    code = main([*ROTATE, "--home", str(home), "--dry-run", *detailed])
    out = capsys.readouterr().out
    assert ROTATED in out.splitlines(), out
    assert "--- .env\n+++ .env\n" in out and "Dry run: nothing was written." in out
    assert OLD not in out and NEW not in out
    assert code == pending and (home / ".env").read_bytes() == before


def test_the_plans_diff_names_each_secret_added_changed_and_removed(home):
    from hermes_wizard.judge.engine import evaluate
    from hermes_wizard.plan.actions import ChangeAction
    from hermes_wizard.plan.changes import ENV, Change, Plan, render_diff

    (home / ".env").write_text(f"TELEGRAM_BOT_TOKEN={OLD}\nDISCORD_BOT_TOKEN=discord-OLD-secret-value-xyz\n")
    report = evaluate(home)
    plan = Plan.of(report.home, [
        Change(ENV, "TELEGRAM_BOT_TOKEN", OLD, NEW, secret=True),
        Change(ENV, "DISCORD_BOT_TOKEN", "discord-OLD-secret-value-xyz", None, ChangeAction.REMOVE, secret=True),
        Change(ENV, "SLACK_BOT_TOKEN", None, "xoxb-slack-NEW-secret-value", secret=True)])
    diff = render_diff(plan)
    lines = diff.splitlines()
    assert ROTATED in lines and "-DISCORD_BOT_TOKEN=••••••" in lines and "+SLACK_BOT_TOKEN=••••••" in lines, diff
    assert not any(value in diff for value in (OLD, NEW, "discord-OLD", "xoxb-slack"))


def test_undo_dry_run_shows_the_token_it_would_put_back_as_changed(home, capsys):
    assert main([*ROTATE, "--home", str(home)]) == 0
    assert f"TELEGRAM_BOT_TOKEN={NEW}" in (home / ".env").read_text()
    capsys.readouterr()
    assert main(["undo", "--home", str(home), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert ROTATED in out.splitlines(), out
    assert OLD not in out and NEW not in out
