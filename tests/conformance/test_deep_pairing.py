"""Conformance: pairing files Hermes's readers raise on, judged as Hermes 0.19.0 judges them (a home's owner
writes them; before, `access` itself died on a deeply nested one with RecursionError, exit 70).

Hermes's JSON decoder raises RecursionError past its recursion budget, and the budget is what the stack
leaves where it reads (wizard/core/deepjson.py): so the same nesting is read for a message and raises at
start-up.  Pinned here at the edges, both ways:

* for a message (`_is_user_authorized`, asked of the real Hermes by oracle/authz_probe.py): a nesting it still
  reads and the first it raises on; 5,000 and 100,000 levels; a number too long to convert (ValueError);
* at start-up, where the store merges the other pairing folder (`PairingStore()` in `GatewayRunner.__init__`,
  asked of the real `hermes gateway run`): the deepest file it still merges and the first it crashes on, and a
  file that is not UTF-8 — `check` must then say 78, like any crash at start, and `access` must say nobody.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from oracle import require_oracle, run_gateway
from oracle.authz import ask

from hermes_wizard.faces.cli import main
from hermes_wizard.hermes.access.pairing_store import AUTHORIZING_BUDGET, STARTING_BUDGET

pytestmark = pytest.mark.oracle

TOKEN = "TELEGRAM_BOT_TOKEN=7123456789:AAHdeepPairingNotReal_0123456789\n"
SENDER = {"platform": "telegram", "user_id": "555", "chat_type": "dm", "chat_id": "555", "is_bot": False,
          "user_name": None}


def nested(levels: int) -> bytes:
    """The store's object, its one user holding `levels` - 1 nested arrays: `levels` containers in all."""
    return ('{"555": ' + "[" * (levels - 1) + "]" * (levels - 1) + "}").encode()


def home_with(root: Path, name: str, files: dict[str, bytes], allowed: str = "") -> Path:
    home = root / name
    for rel, data in files.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_bytes(data)
    (home / ".env").write_text(TOKEN + allowed)
    return home


def ours(capsys, home: Path) -> tuple[int, dict]:
    code = main(["access", "--home", str(home), "telegram", "555", "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


ACTIVE = "platforms/pairing/telegram-approved.json"
MESSAGE_CASES = {
    "read at the budget": nested(AUTHORIZING_BUDGET),
    "raises one past it": nested(AUTHORIZING_BUDGET + 1),
    "5,000 deep": nested(5000),
    "100,000 deep": nested(100_000),
    "a 5,000-digit number": b'{"555": ' + b"1" * 5000 + b"}",
    "bad JSON before the depth": b'{"555": [x' + b"[" * 5000,
}


def test_a_message_is_judged_as_hermes_reads_the_store(tmp_path, capsys):
    require_oracle()
    homes = {name: home_with(tmp_path, f"m{i}", {ACTIVE: data}) for i, (name, data) in enumerate(MESSAGE_CASES.items())}
    answers = ask("0.19.0", [(home, [SENDER]) for home in homes.values()], tmp_path / "oracle")
    for (name, home), answer in zip(homes.items(), answers):
        assert answer["error"] is None, (name, answer)
        [hermes] = answer["results"]
        code, said = ours(capsys, home)  # never 70: one decision, exit 0 or 1
        assert code == (0 if hermes is True else 1), (name, said)
        assert said["authorized"] is (hermes is True), (name, hermes, said)
        assert (said["rule"] == "error") is str(hermes).startswith("error:"), (name, hermes, said)
    assert [a["results"][0] is True for a in answers][:2] == [True, False]  # the edge is where it is measured


@pytest.mark.parametrize("case,crashes", [("deepest merged", False), ("one past it", True), ("not UTF-8", True)])
def test_the_start_is_judged_as_hermes_builds_the_store(tmp_path, capsys, case, crashes):
    """The legacy folder with content is the active one; the new one's files are merged into it at start."""
    require_oracle()
    merged = {"deepest merged": nested(STARTING_BUDGET), "one past it": nested(STARTING_BUDGET + 1),
              "not UTF-8": b'{"555": "\xff"}'}[case]
    home = home_with(tmp_path, "home", {"pairing/telegram-approved.json": b'{"777": {}}',
                                        ACTIVE: merged}, allowed="TELEGRAM_ALLOWED_USERS=777\n")
    run = run_gateway(home, tmp_path / "gateway", stop_after_check=True)
    assert (run.report is None) is crashes, run.output[-2000:]
    if crashes:
        assert ("RecursionError" if case == "one past it" else "UnicodeDecodeError") in run.output
    shutil.rmtree(home / "logs", ignore_errors=True)
    code = main(["check", "--home", str(home), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert (code == 78) is crashes and report["would_start"] is not crashes, report
    code, said = ours(capsys, home)
    assert (said["rule"] == "error") is crashes and (code == 1 if crashes else True), said
    if crashes:  # said in words: the store, and so the gateway, does not even start
        assert main(["access", "--home", str(home), "telegram", "555"]) == 1
        assert "crashes at start" in capsys.readouterr().out
