"""The reach findings (HW170-HW172), each on a home where it must fire, confirmed against the real Hermes.

For every case, `check --format json` must report the code (and not report it on the twin home where
the claim is false), and the real `_is_user_authorized` / `_get_unauthorized_dm_behavior` of each
oracle version must decide as the finding's message says.
"""

from __future__ import annotations

import contextlib
import io
import json
import time
from pathlib import Path

import pytest
from oracle import VERSIONS, model_version, require_oracle
from oracle.authz import ask
from oracle.compare import _environ

TOKEN = "TELEGRAM_BOT_TOKEN=7123456789:AAHdemoTokenNotReal_0123\n"


def _sender(platform, user_id, chat_type="dm", chat_id=None):
    return {"platform": platform, "user_id": user_id, "chat_type": chat_type, "chat_id": chat_id,
            "is_bot": False, "user_name": None}


# name -> (files, code, fires?, sender, Hermes authorizes?, Hermes's unauthorized-DM behaviour or None)
CASES = {
    "yaml-allowed-chats": ({".env": TOKEN, "config.yaml": "telegram:\n  allowed_chats: [6614365140]\n"},
                           "HW170", True, _sender("telegram", "6614365140"), False, None),
    "allowed-chats-also-allowlisted": ({".env": TOKEN + "TELEGRAM_ALLOWED_USERS=6614365140\n",
                                        "config.yaml": "telegram:\n  allowed_chats: [6614365140]\n"},
                                       "HW170", False, _sender("telegram", "6614365140"), True, None),
    "whatsapp-group-variable": ({".env": "WHATSAPP_ENABLED=true\nWHATSAPP_GROUP_POLICY=pairing\n"
                                         "WHATSAPP_GROUP_ALLOWED_USERS=15551234567\n"},
                                "HW170", True, _sender("whatsapp", "15551234567@s.whatsapp.net", "group", "g@g.us"),
                                False, None),
    "telegram-at-name": ({".env": TOKEN + "TELEGRAM_ALLOWED_USERS=@alice, alice\n"},
                         "HW171", True, _sender("telegram", "123456789"), False, "ignore"),
    "telegram-at-name-and-an-id": ({".env": TOKEN + "TELEGRAM_ALLOWED_USERS=@alice,123456789\n"},
                                   "HW171", False, _sender("telegram", "123456789"), True, "ignore"),
    "pairing-nobody": ({".env": TOKEN}, "HW172", True, _sender("telegram", "5"), False, "pair"),
    "pairing-someone-waiting": ({".env": TOKEN, "platforms/pairing/telegram-pending.json": json.dumps(
        {"e1": {"hash": "ab", "salt": "00", "user_id": "5", "user_name": "Pat", "created_at": time.time() - 60}})},
                                "HW172", False, _sender("telegram", "5"), False, "pair"),
    "pairing-someone-approved": ({".env": TOKEN, "platforms/pairing/telegram-approved.json": '{"7": {}}'},
                                 "HW172", False, _sender("telegram", "5"), False, "pair"),
}


def _fires_for(version: str, case: str, fires: bool) -> bool:
    """0.17.0's store is `<home>/pairing` alone (wizard/hermes/v0_17/pairing_store.py): someone waiting or
    approved only in `platforms/pairing` is not in it, so for 0.17.0 nobody is waiting there."""
    if version == "0.17.0" and CASES[case][1] == "HW172" and any(
            name.startswith("platforms/pairing/") for name in CASES[case][0]):
        return True
    return fires


def _write(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


# One probe process per version answers every case (a Hermes start is ~0.6 s; a case is milliseconds), and the
# module stays on one xdist worker so that happens once.
pytestmark = pytest.mark.xdist_group("access-checks")


@pytest.fixture(scope="module")
def hermes_says(tmp_path_factory):
    """version -> case -> (home, the oracle's answer for the case's sender), asked once per version."""
    asked: dict[str, dict[str, tuple[Path, dict]]] = {}

    def answers(version: str) -> dict[str, tuple[Path, dict]]:
        if version not in asked:
            require_oracle(version)
            where = tmp_path_factory.mktemp(f"access-checks-{version}")
            homes = {case: _write(where / case, files) for case, (files, *_) in CASES.items()}
            said = ask(version, [(homes[case], [CASES[case][3]]) for case in CASES], where / "oracle")
            asked[version] = {case: (homes[case], answer) for case, answer in zip(CASES, said)}
        return asked[version]
    return answers


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", list(CASES))
def test_reach_finding_and_hermes_agree(case, version, hermes_says, hermes_oracle_at):
    require_oracle(version)
    _, code, fires, sender, authorized, behavior = CASES[case]
    home, answer = hermes_says(version)[case]
    assert answer["results"] == [authorized], answer
    if behavior is not None:
        assert answer["behavior"][sender["platform"]] == behavior, answer
    from hermes_wizard.faces.cli import main

    out = io.StringIO()
    with _environ(hermes_oracle_at(version).host_env()), contextlib.redirect_stdout(out):
        main(["check", "--home", str(home), "--format", "json", "--hermes-version", model_version(version)])
    codes = [finding["code"] for finding in json.loads(out.getvalue())["findings"]]
    assert (code in codes) is _fires_for(version, case, fires), codes
    if code == "HW172" and fires:
        assert "HW106" not in codes  # one finding for one state
