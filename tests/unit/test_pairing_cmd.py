"""`hermes-wizard pairing` from the operator's side, with the real Hermes 0.19.0 doing the pairing.

A stranger's DM is played by Hermes itself (`PairingStore.generate_code` in the oracle venv, as the gateway
calls it); then the operator lists, approves (previewed, confirmed) and revokes with hermes-wizard, and
`access` and Hermes's own store agree on the outcome.  Wrong codes are not tried (no lockout strike), a
preview without a terminal changes nothing, and an approval is mirrored into a configured allowlist by Hermes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from oracle import require_oracle, venv_python

TOKEN = "TELEGRAM_BOT_TOKEN=7123456789:AAHdemoTokenNotReal_0123\n"


@pytest.fixture
def hermes_python():
    require_oracle("0.19.0")
    return str(venv_python("0.19.0"))


def _stranger_asks(home: Path, python: str, platform: str, user_id: str, name: str) -> str:
    """What the gateway does on an unpaired DM: Hermes generates (and stores) a pairing code."""
    script = ("import logging, sys; logging.disable(50)\nfrom gateway.pairing import PairingStore\n"
              "print(PairingStore().generate_code(sys.argv[1], sys.argv[2], sys.argv[3]))")
    done = subprocess.run([python, "-I", "-c", script, platform, user_id, name], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(home.parent), "HERMES_HOME": str(home)},
                          timeout=120)
    return done.stdout.strip().splitlines()[-1]


def _wizard(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    return subprocess.run([sys.executable, "-m", "hermes_wizard", *args], capture_output=True, text=True, timeout=120,
                          env=env, input=stdin)


def _home(root: Path, env: str) -> Path:
    root.mkdir()
    (root / ".env").write_text(env)
    return root


def _store(home: Path) -> dict[str, bytes]:
    folder = home / "platforms" / "pairing"
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.json"))} if folder.exists() else {}


def test_list_approve_revoke_through_hermes(tmp_path, hermes_python):
    home = _home(tmp_path / "h", TOKEN)
    code = _stranger_asks(home, hermes_python, "telegram", "5501234567", "Lee")
    common = ["--home", str(home), "--hermes-python", hermes_python]
    listed = _wizard("pairing", "list", *common)
    assert listed.returncode == 0, listed.stderr
    assert "telegram: Lee 5501234567, asked 0 min ago" in listed.stdout
    assert _wizard("access", "telegram", "5501234567", "--home", str(home)).returncode == 1

    approved = _wizard("pairing", "approve", "telegram", code.lower(), "--yes", *common)
    assert approved.returncode == 0, approved.stdout + approved.stderr
    assert "Approve Lee 5501234567 on telegram" in approved.stdout  # the preview
    assert "Approved! User Lee (5501234567) on telegram can now use the bot" in approved.stdout  # Hermes's words
    granted = _wizard("access", "telegram", "5501234567", "--home", str(home), "--format", "json")
    assert granted.returncode == 0 and json.loads(granted.stdout)["rule"] == "pairing-approved"

    revoked = _wizard("pairing", "revoke", "telegram", "5501234567", "--yes", *common)
    assert revoked.returncode == 0 and "Revoked access for user 5501234567 on telegram." in revoked.stdout
    assert _wizard("access", "telegram", "5501234567", "--home", str(home)).returncode == 1
    # the words after a revocation are what `undo` will really do: it cannot approve them again
    assert "undo takes it back" not in revoked.stdout and "you approve the new code" in revoked.stdout
    undo_says = _wizard("undo", "--dry-run", "--home", str(home)).stdout
    assert "It cannot give 5501234567 back their pairing on telegram" in undo_says, undo_says


def test_a_relative_hermes_python_is_the_one_named_from_here(tmp_path, hermes_python):
    """`--hermes-python` relative to the folder the wizard runs in: Hermes is run from elsewhere, but the Python
    named is the one from here (a venv's python is a symlink into the base interpreter: not resolved)."""
    home = _home(tmp_path / "h", TOKEN)
    _stranger_asks(home, hermes_python, "telegram", "5501234567", "Lee")
    here = Path(hermes_python).parent.parent.parent
    env = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    listed = subprocess.run([sys.executable, "-m", "hermes_wizard", "pairing", "list", "--home", str(home),
                             "--hermes-python", os.path.relpath(hermes_python, here)], capture_output=True,
                            text=True, timeout=120, env=env, cwd=here)
    assert listed.returncode == 0, listed.stderr
    assert "telegram: Lee 5501234567" in listed.stdout


def test_preview_without_a_terminal_changes_nothing(tmp_path, hermes_python):
    home = _home(tmp_path / "h", TOKEN)
    code = _stranger_asks(home, hermes_python, "telegram", "77", "Pat")
    before = _store(home)
    result = _wizard("pairing", "approve", "telegram", code, "--home", str(home), "--hermes-python", hermes_python,
                     stdin="")
    assert result.returncode == 2 and "Approve Pat 77 on telegram" in result.stdout
    assert "--yes" in result.stderr
    assert _store(home) == before


def test_a_wrong_code_is_not_tried_and_strikes_nothing(tmp_path, hermes_python):
    home = _home(tmp_path / "h", TOKEN)
    _stranger_asks(home, hermes_python, "telegram", "77", "Pat")
    for _ in range(6):  # Hermes locks a platform out after 5 failed approvals; we never fail one
        result = _wizard("pairing", "approve", "telegram", "AAAAAAAA", "--yes", "--home", str(home),
                         "--hermes-python", hermes_python)
        assert result.returncode == 1 and "No pending request on telegram matches" in result.stdout
    limits = json.loads((home / "platforms" / "pairing" / "_rate_limits.json").read_text())
    assert not any(key.startswith(("_failures:", "_lockout:")) for key in limits), limits


def test_approval_is_mirrored_into_a_configured_allowlist_by_hermes(tmp_path, hermes_python):
    home = _home(tmp_path / "h", TOKEN + "TELEGRAM_ALLOWED_USERS=111\n")
    code = _stranger_asks(home, hermes_python, "telegram", "222", "Bo")
    result = _wizard("pairing", "approve", "telegram", code, "--yes", "--home", str(home),
                     "--hermes-python", hermes_python)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Hermes also adds 222 to TELEGRAM_ALLOWED_USERS in .env" in result.stdout
    assert "TELEGRAM_ALLOWED_USERS=111,222" in (home / ".env").read_text()


def test_usage_errors(tmp_path, hermes_python):
    home = _home(tmp_path / "h", TOKEN)
    for args in (("approve", "telegram"), ("revoke",), ("approve", "nosuch", "X"), ("frobnicate",)):
        result = _wizard("pairing", *args, "--home", str(home), "--hermes-python", hermes_python)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result


def test_an_approval_is_journalled_and_undo_takes_it_back_through_hermes(tmp_path, hermes_python):
    """Pairing is undoable like any apply: each approval is previewed and journalled so `undo` can take it back through
    Hermes too — the pairing store by Hermes's own revoke, `.env` (where Hermes mirrored the approval) from the
    backup."""
    home = _home(tmp_path / "h", TOKEN + "TELEGRAM_ALLOWED_USERS=111\n")
    env_before = (home / ".env").read_bytes()
    code = _stranger_asks(home, hermes_python, "telegram", "5501234567", "Lee")
    common = ["--home", str(home), "--hermes-python", hermes_python]
    approved = _wizard("pairing", "approve", "telegram", code, "--yes", *common)
    assert approved.returncode == 0, approved.stdout + approved.stderr
    assert "Backup: " in approved.stdout and "hermes-wizard undo takes it back" in approved.stdout
    assert "5501234567" in (home / ".env").read_text()  # Hermes mirrored it into the allowlist
    preview = _wizard("undo", "--dry-run", "--home", str(home))
    assert "It revokes 5501234567's pairing on telegram through Hermes" in preview.stdout, preview.stdout
    undone = _wizard("undo", "--yes", *common)
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert "Revoked 5501234567's pairing on telegram through Hermes." in undone.stdout, undone.stdout[-1500:]
    assert (home / ".env").read_bytes() == env_before
    listed = json.loads(_wizard("pairing", "list", "--format", "json", *common).stdout)
    assert "5501234567" not in json.dumps(listed.get("approved", listed))


def test_an_approval_that_changes_nothing_leaves_no_backup(tmp_path, hermes_python):
    home = _home(tmp_path / "h", TOKEN)
    _stranger_asks(home, hermes_python, "telegram", "5501234567", "Lee")
    refused = _wizard("pairing", "approve", "telegram", "NOPE2345", "--yes", "--home", str(home),
                      "--hermes-python", hermes_python)
    assert refused.returncode == 1
    assert not (home / ".wizard-backups").exists() or not any((home / ".wizard-backups").iterdir())


async def test_the_access_screen_approves_a_code_through_hermes(tmp_path, hermes_python, monkeypatch):
    """The TUI's access screen approves a pairing request: previewed first, approved on the second press,
    through Hermes's own code, journalled for undo; its view of who reaches the agent follows."""
    from hermes_wizard.screens.access_screen import AccessScreen
    from hermes_wizard.screens.app import WizardApp

    home = _home(tmp_path / "h", TOKEN)
    code = _stranger_asks(home, hermes_python, "telegram", "5501234567", "Lee")
    monkeypatch.setenv("HERMES_WIZARD_HERMES_PYTHON", hermes_python)
    app = WizardApp(home, mode="setup")
    async with app.run_test(size=(110, 70)) as pilot:
        app.push_screen(AccessScreen("telegram"))
        await pilot.pause()
        assert "waiting: Lee" in str(app.screen.query_one("#who").visual)
        app.screen.query_one("#pair-code").value = code
        app.screen.approve_code()
        await pilot.pause()
        said = str(app.screen.query_one("#pair-result").visual)
        assert "Approve Lee 5501234567 on telegram" in said and "Press Approve again" in said
        assert "5501234567" not in json.dumps(_store(home).get("telegram-approved.json", b"{}").decode())
        app.screen.approve_code()
        await pilot.pause()
        said = str(app.screen.query_one("#pair-result").visual)
        assert "Approved!" in said and "Backup:" in said
        assert "paired:  5501234567 (Lee)" in str(app.screen.query_one("#who").visual)
        assert "5501234567" in _store(home)["telegram-approved.json"].decode()
        app.screen.query_one("#revoke-id").value = "5501234567"
        app.screen.pairing_action("revoke")
        await pilot.pause()
        assert "Revoke" in str(app.screen.query_one("#pair-result").visual)  # the preview first
        app.screen.pairing_action("revoke")
        await pilot.pause()
        revoked = str(app.screen.query_one("#pair-result").visual)
        assert "Revoked access for user 5501234567" in revoked
        # it said undo takes a revocation back, and undo cannot: the words say how to let them in again
        assert "undo takes it back" not in revoked and "approve the new code" in " ".join(revoked.split())
    assert "5501234567" not in _store(home)["telegram-approved.json"].decode()


def test_the_plain_face_approves_a_waiting_code_through_hermes(tmp_path, hermes_python, monkeypatch, capsys):
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from hermes_wizard.faces.plain.ask import Asker
    from hermes_wizard.faces.plain.platforms import pairing_step
    from hermes_wizard.judge.engine import evaluate

    home = _home(tmp_path / "h", TOKEN)
    code = _stranger_asks(home, hermes_python, "telegram", "5501234567", "Lee")
    monkeypatch.setenv("HERMES_WIZARD_HERMES_PYTHON", hermes_python)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text(code + "\ry\r")
        pairing_step(Asker(width=100), evaluate(home), "telegram")
    out = capsys.readouterr().out
    assert "Approve Lee 5501234567 on telegram" in out and "Approved!" in out and "Backup:" in out
    assert "5501234567" in _store(home)["telegram-approved.json"].decode()


async def _approve_on_the_access_screen(app, pilot, code: str) -> None:
    """Telegram's Access screen: the code typed, then Approve twice (the preview, then the approval Hermes writes)."""
    from hermes_wizard.screens.access_screen import AccessScreen

    app.push_screen(AccessScreen("telegram"))
    await pilot.pause()
    app.screen.query_one("#pair-code").value = code
    app.screen.approve_code()
    await pilot.pause()
    app.screen.approve_code()
    await pilot.pause()


async def test_a_strangers_hostile_name_is_shown_escaped_on_the_access_screen(tmp_path, hermes_python, monkeypatch):
    """The display name is the stranger's own choice and Hermes quotes it when approving: escaped on screen."""
    from hermes_wizard.screens.app import WizardApp

    home = _home(tmp_path / "h", TOKEN)
    code = _stranger_asks(home, hermes_python, "telegram", "5501234567", "Lee\x1b]2;owned\x07")
    monkeypatch.setenv("HERMES_WIZARD_HERMES_PYTHON", hermes_python)
    app = WizardApp(home, mode="setup")
    async with app.run_test(size=(110, 70)) as pilot:
        await _approve_on_the_access_screen(app, pilot, code)
        shown = "".join(str(w.visual) for w in app.screen.query("#pair-result, #who"))
    assert "Approved!" in shown and "\x1b" not in shown and "\\x1b]2;owned" in shown


async def test_the_quit_question_names_an_approval_already_written(tmp_path, hermes_python, monkeypatch):
    """An approval is written at once, by Hermes: quitting with other answers pending must not say "Nothing has
    been written yet" — it names what is written and kept."""
    from hermes_wizard.screens.app import WizardApp
    from hermes_wizard.screens.confirm_quit import ConfirmQuit

    home = _home(tmp_path / "h", TOKEN)
    code = _stranger_asks(home, hermes_python, "telegram", "5501234567", "Lee")
    monkeypatch.setenv("HERMES_WIZARD_HERMES_PYTHON", hermes_python)
    app = WizardApp(home, mode="setup")
    async with app.run_test(size=(110, 70)) as pilot:
        await _approve_on_the_access_screen(app, pilot, code)
        assert "Approved!" in str(app.screen.query_one("#pair-result").visual)
        app.session.set_access("telegram", "allowlist", ["111"])  # an answer not yet written
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmQuit)
        question = " ".join(str(app.screen.query_one("#question").render()).split())
        assert "Nothing has been written yet" not in question, question
        assert "approved 5501234567 on telegram" in question, question
