"""An allowlist the wizard writes for Yuanbao lets the listed user in, as the real adapter decides.

Yuanbao's adapter keeps a DM allowlist of its own (YUANBAO_DM_ALLOW_FROM, or `dm_allow_from` in config.yaml) beside
the gateway's YUANBAO_ALLOWED_USERS: under dm_policy=allowlist it drops every DM whose sender is not on its own
list, before the gateway's list is read.  Pinned here against every oracle: a home with only the gateway's list
drops the listed user's DM (the surprise), and the home the wizard writes for "allowlist: user" lets that DM
through the adapter and the gateway.  `access` says the same in its overview and with exit 0/1, and `check`
names the empty adapter list (HW111).
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from oracle import VERSIONS, model_version, require_oracle
from oracle.authz import ask

from hermes_wizard.cases.fixing import Fixing
from hermes_wizard.faces.cli import main
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.hermes.versions import judgement

LISTED = "yb_user_42"
GATEWAY_LIST_ONLY = ("YUANBAO_APP_ID=app-demo-1\nYUANBAO_APP_SECRET=secret-demo-1234567890\n"
                     f"YUANBAO_DM_POLICY=allowlist\nYUANBAO_ALLOWED_USERS={LISTED}\n")


def _dm(user: str) -> dict:
    return {"platform": "yuanbao", "user_id": user, "chat_type": "dm", "chat_id": "", "is_bot": False,
            "user_name": ""}


def _written_by_the_wizard(home: Path, version: str) -> None:
    facts = HostFacts(modules=None).judged_as(judgement(model_version(version), None, "given"))
    fixing = Fixing(home, base_env={}, facts=facts)
    session = fixing.session
    assert session.type_value("yuanbao", "YUANBAO_APP_ID", "app-demo-1") is None
    assert session.type_value("yuanbao", "YUANBAO_APP_SECRET", "secret-demo-1234567890") is None
    session.set_access("yuanbao", "allowlist", [LISTED], confirm="yuanbao")
    fixing.apply(fixing.propose(), reason="test")


def _by_hand(home: Path) -> None:
    home.mkdir()
    (home / ".env").write_text(GATEWAY_LIST_ONLY)
    (home / "config.yaml").write_text("platforms:\n  yuanbao:\n    enabled: true\n")


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(list(argv))
    return rc, out.getvalue()


def _ours(home: Path, version: str) -> tuple[int, str, int, dict, str]:
    judged = ["--hermes-version", model_version(version)]
    rc, said = _cli("access", "yuanbao", LISTED, "--home", str(home), *judged)
    rc_json, as_json = _cli("access", "yuanbao", LISTED, "--home", str(home), "--format", "json", *judged)
    _, overview = _cli("access", "--home", str(home), *judged)
    return rc, said, rc_json, json.loads(as_json), overview


@pytest.mark.parametrize("version", VERSIONS)
def test_the_wizards_allowlist_lets_the_listed_user_in(version, tmp_path, hermes_oracle_at):
    require_oracle(version)
    wizard, by_hand = tmp_path / "wizard", tmp_path / "by-hand"
    _written_by_the_wizard(wizard, version)
    _by_hand(by_hand)
    hermes_oracle_at(version)
    theirs = ask(version, [(wizard, [_dm(LISTED), _dm("stranger")]), (by_hand, [_dm(LISTED)])], tmp_path / "oracle")
    # Hermes: the wizard's home forwards and authorizes the listed user, drops the stranger; by hand, the adapter
    # drops the listed user too (its own list is empty)
    assert theirs[0]["intake"] == [True, False] and theirs[0]["results"][0] is True, theirs[0]
    assert theirs[1]["intake"] == [False], theirs[1]

    rc, said, rc_json, data, overview = _ours(wizard, version)
    assert rc == 0 and rc_json == 0 and said.startswith("[✓] accepted"), said
    assert data["gets_through"] is True
    assert f"DMs:     only {LISTED}" in overview, overview

    rc, said, rc_json, data, overview = _ours(by_hand, version)
    assert rc == 1 and rc_json == 1 and said.startswith("[✗] dropped"), said
    assert data["authorized"] is True and data["gets_through"] is False  # the gateway's rule alone would admit
    assert "DMs:     nobody — the adapter drops these messages" in overview, overview


def test_check_names_the_empty_adapter_list(tmp_path):
    home = tmp_path / "by-hand"
    _by_hand(home)
    rc, said = _cli("check", "--home", str(home), "--format", "json")
    codes = {finding["code"]: finding for finding in json.loads(said)["findings"]}
    assert rc == 0 and "HW111" in codes, said  # a warning: the gateway starts, and drops every DM
    assert "YUANBAO_DM_ALLOW_FROM" in codes["HW111"]["message"]
    (home / ".env").write_text(GATEWAY_LIST_ONLY + f"YUANBAO_DM_ALLOW_FROM={LISTED}\n")
    _, said = _cli("check", "--home", str(home), "--format", "json")
    assert "HW111" not in {finding["code"] for finding in json.loads(said)["findings"]}
