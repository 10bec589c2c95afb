"""`undo` shows before it restores: `--list`, `--dry-run` (a masked diff and the verdict the restored
home gets, from the engine), a question on a terminal, `--yes`, and a refusal without either."""

from __future__ import annotations

import builtins
import json
import shutil

import pytest

from hermes_wizard.core.bundled import example_home
from hermes_wizard.faces.cli import main

FIXED_TOKEN = "7123456789:AAHrotatedTokenAfterTheFix_9876543210"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def repaired(tmp_path, capsys):
    """The demo home after `doctor --fix --yes` (it starts), with the Telegram token rotated by hand since."""
    home = tmp_path / "home"
    shutil.copytree(example_home(), home)
    code, out, err = run(capsys, "doctor", "--fix", "--yes", "--no-verify", "--home", str(home))
    assert "Backup:" in out, out + err
    env = (home / ".env").read_text()
    (home / ".env").write_text(env.replace("7123456789:AAHdemoTokenNotRealNotReal_0123456789", FIXED_TOKEN))
    return home


def test_undo_without_a_terminal_or_yes_refuses_and_restores_nothing(repaired, capsys):
    before = (repaired / ".env").read_bytes()
    code, out, err = run(capsys, "undo", "--home", str(repaired))
    assert code == 2, out + err
    assert "--yes" in err and (repaired / ".env").read_bytes() == before
    assert "After the restore: the gateway will refuse to start" in out  # it showed what it would do


def test_undo_dry_run_shows_a_masked_diff_and_the_restored_verdict(repaired, capsys):
    before = {name: (repaired / name).read_bytes() for name in (".env", "config.yaml")}
    code, out, err = run(capsys, "undo", "--dry-run", "--home", str(repaired))
    assert code == 0, out + err
    assert "--- .env" in out and "-WEIXIN_DM_POLICY=pairing" in out and "+WEIXIN_DM_POLICY=open" in out
    assert "It also changes the value of TELEGRAM_BOT_TOKEN (masked above)." in out
    assert FIXED_TOKEN not in out and "AAHdemoToken" not in out
    assert "After the restore: the gateway will refuse to start — Hermes stops at whatsapp" in out
    assert {name: (repaired / name).read_bytes() for name in before} == before


def test_undo_asks_on_a_terminal_with_the_verdict_and_no_keeps_the_files(repaired, capsys, monkeypatch):
    asked = []
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr(builtins, "input", lambda prompt: asked.append(prompt) or "n")
    before = (repaired / ".env").read_bytes()
    code, out, _ = run(capsys, "undo", "--home", str(repaired))
    assert code == 2 and (repaired / ".env").read_bytes() == before
    assert asked == ["Restore these files? The gateway would then refuse to start — Hermes stops at whatsapp "
                     "(1 more after it), exits 0, which a service that restarts on success (Hermes's own unit) "
                     "restarts forever. [y/N] "]
    monkeypatch.setattr(builtins, "input", lambda prompt: "y")
    code, out, _ = run(capsys, "undo", "--home", str(repaired))
    assert code == 0 and "WEIXIN_DM_POLICY=open" in (repaired / ".env").read_text(), out


def test_undo_yes_restores_and_list_shows_sets_newest_first_escaped(repaired, capsys):
    code, out, err = run(capsys, "undo", "--yes", "--home", str(repaired))
    assert code == 0 and "Restored" in out, out + err
    sets = sorted((repaired / ".wizard-backups").iterdir())
    manifest = json.loads((sets[0] / "manifest.json").read_text())
    manifest["reason"] = "doctor --fix\x1b[2J\u202e"  # the owner can write a set: its text is escaped
    manifest["service"] = [{"unit": "hermes-gateway.service", "scope": "user", "before": [], "after": ["gate"]}]
    (sets[0] / "manifest.json").write_text(json.dumps(manifest))
    code, out, err = run(capsys, "undo", "--list", "--home", str(repaired))
    assert code == 0, out + err
    lines = out.splitlines()[1:]
    assert [line.split()[0] for line in lines] == [sets[1].name, sets[0].name]
    assert f"before undo of {sets[0].name}" in lines[0] and "service" not in lines[0]
    assert "[.env, config.yaml; and a service drop-in]" in lines[1] or "[.env; and a service drop-in]" in lines[1]
    assert "\x1b" not in out and "\u202e" not in out and "\\x1b[2J" in out


def test_undo_list_and_dry_run_of_a_home_without_backups(tmp_path, capsys):
    (tmp_path / ".env").write_text("TELEGRAM_BOT_TOKEN=1:x\n")
    code, out, _ = run(capsys, "undo", "--list", "--home", str(tmp_path))
    assert code == 0 and "nothing to undo" in out
    code, _, err = run(capsys, "undo", "--dry-run", "--home", str(tmp_path))
    assert code == 1 and "nothing to undo" in err
