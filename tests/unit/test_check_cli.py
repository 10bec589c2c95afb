"""The `check` and `explain` contracts (ARCHITECTURE.md, "Contracts"), on the bundled demo home."""

from __future__ import annotations

import json
import shutil

import pytest

from hermes_wizard.faces.cli import main
from hermes_wizard.judge.checks import all_checks


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_home_refuses_and_names_the_platform_hermes_names(capsys, demo):
    code, out, _ = run(capsys, "check", "--home", str(demo), "--format", "json")
    report = json.loads(out)
    assert code == 78
    assert report["would_start"] is False
    assert report["refusal"] == {"platform": "whatsapp", "reason": "whatsapp: open policy without allow-all opt-in"}
    rows = {row["name"]: row for row in report["platforms"]}
    assert set(rows) == {"telegram", "weixin", "whatsapp"}
    assert rows["weixin"]["verdict"] == "refuses-start" and rows["weixin"]["dm_policy"] == "open"
    assert rows["whatsapp"]["transport"] == "not-paired"
    assert rows["telegram"]["verdict"] == "ok"
    codes = [(f["code"], f["platform"]) for f in report["findings"]]
    assert ("HW101", "weixin") in codes and ("HW101", "whatsapp") in codes
    assert ("HW201", "whatsapp") in codes and ("HW301", "whatsapp") in codes
    for finding in report["findings"]:
        assert set(finding) == {"code", "name", "severity", "platform", "message", "fix"}


def test_text_output_names_the_line_and_the_three_fixes(capsys, demo):
    code, out, _ = run(capsys, "check", "--home", str(demo))
    assert code == 78
    assert "WEIXIN_DM_POLICY in .env:11" in out
    assert "pairing (recommended)" in out and "allowlist" in out and "WEIXIN_ALLOW_ALL_USERS=true" in out
    assert "[✗] weixin" in out and "[✓] telegram — allowlist (1 user)" in out


def test_no_secret_reaches_any_output(capsys, demo):
    secrets = ["AAHdemoTokenNotRealNotReal_0123456789", "demo-ilink-token-0000000000000000",
               "sk-or-v1-0demo000000"]
    for fmt in ("text", "json"):
        _, out, err = run(capsys, "check", "--home", str(demo), "--format", fmt)
        for secret in secrets:
            assert secret not in out + err


def test_fixed_home_starts_and_exit_code_follows_findings(capsys, demo):
    env = (demo / ".env").read_text()
    env = env.replace("WEIXIN_DM_POLICY=open", "WEIXIN_DM_POLICY=pairing").replace(
        "WHATSAPP_ENABLED=true", "WHATSAPP_ENABLED=false")
    (demo / ".env").write_text(env)
    (demo / "config.yaml").write_text("platforms:\n  telegram:\n    enabled: true\n")
    (demo / "gateway_state.json").unlink()
    (demo / "gateway-starts.log").unlink()
    code, out, _ = run(capsys, "check", "--home", str(demo), "--format", "json")
    report = json.loads(out)
    assert report["would_start"] is True and report["refusal"] is None
    assert code == 0, report["findings"]
    enabled = {row["name"] for row in report["platforms"] if row["enabled"]}
    assert enabled == {"telegram", "weixin"}


def test_usage_errors_exit_2(capsys, tmp_path):
    assert run(capsys, "check", "--home", str(tmp_path / "missing"))[0] == 2
    assert run(capsys, "check", "--home", str(tmp_path), "--profile", "nope")[0] == 2
    assert run(capsys, "explain", "HW999")[0] == 2
    with pytest.raises(SystemExit) as exc:
        main(["check", "--format", "xml"])
    assert exc.value.code == 2


def test_every_check_is_documented_and_explainable(capsys):
    checks = all_checks()
    assert len({c.code for c in checks}) == len(checks) >= 20
    for c in checks:
        assert c.what and c.why and c.fix and c.summary
        code, out, _ = run(capsys, "explain", c.code)
        assert code == 0 and c.name in out
        code, out, _ = run(capsys, "explain", c.name, "--format", "json")
        assert json.loads(out)["code"] == c.code


def test_all_profiles_lists_every_profile_and_exits_with_the_worst(capsys, demo, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / ".env").write_text("TELEGRAM_BOT_TOKEN=123456:abcdefghijklmnop\nTELEGRAM_ALLOWED_USERS=42\n")
    shutil.copytree(demo, root / "profiles" / "work")
    code, out, _ = run(capsys, "check", "--home", str(root), "--all-profiles", "--format", "json")
    reports = json.loads(out)
    assert [r["profile"] for r in reports] == ["default", "work"]
    assert [r["would_start"] for r in reports] == [True, False]
    assert code == 78
    code, out, _ = run(capsys, "check", "--home", str(root), "--profile", "work", "--format", "json")
    assert json.loads(out)["refusal"]["platform"] == "whatsapp" and code == 78


def test_matrix_store_state_is_reported(capsys, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".env").write_text("MATRIX_HOMESERVER=https://m.org\nMATRIX_ACCESS_TOKEN=syt_abcdef\nMATRIX_ENCRYPTION=true\n")
    _, out, _ = run(capsys, "check", "--home", str(home), "--format", "json")
    assert {r["name"]: r["transport"] for r in json.loads(out)["platforms"]}["matrix"] == "no-store"
    store = home / "platforms" / "matrix" / "store"
    store.mkdir(parents=True)
    (store / "crypto.db").write_bytes(b"SQLite format 3\0")
    _, out, _ = run(capsys, "check", "--home", str(home), "--format", "json")
    assert {r["name"]: r["transport"] for r in json.loads(out)["platforms"]}["matrix"] == "store-present"
