"""What the headless faces say is what will happen (a fix's words, taken literally, must work): HW110's fix, taken
literally, does not bring the refusal back; verdicts after a colon; dry-run lines in the future; Ctrl+C before any
write; findings in the order Hermes meets them."""

from __future__ import annotations

import json
import re
import shutil

from hermes_wizard.core.bundled import example_home
from hermes_wizard.faces.cli import main

WEIXIN = "WEIXIN_ACCOUNT_ID=b0f5c1d2e3a4@im.bot\nWEIXIN_TOKEN=demo-ilink-token-0000000000000000\n"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _hw110_fix(capsys, home) -> str:
    code, out, _ = run(capsys, "check", "--format", "json", "--home", str(home))
    assert code == 0, out
    return next(f["fix"] for f in json.loads(out)["findings"] if f["code"] == "HW110")


def test_hw110_fix_applied_literally_to_env_closes_weixin_without_a_refusal(tmp_path, capsys):
    home = tmp_path
    (home / ".env").write_text(WEIXIN + "WEIXIN_DM_POLICY=open\nWEIXIN_ALLOW_ALL_USERS=true\n")
    (home / ".env").chmod(0o600)
    fix = _hw110_fix(capsys, home)
    lines = (home / ".env").read_text().splitlines()
    for _side, variable, number in re.findall(r"set (\w+)_policy to pairing \((\w+) in \.env:(\d+)\)", fix):
        assert lines[int(number) - 1].startswith(f"{variable}=")
        lines[int(number) - 1] = f"{variable}=pairing"
    removed = re.search(r"remove (\w+)", fix).group(1)
    (home / ".env").write_text("".join(line + "\n" for line in lines if not line.startswith(f"{removed}=")))
    code, out, _ = run(capsys, "check", "--home", str(home))
    assert code == 0, fix + "\n" + out
    assert "HW101" not in out and "HW110" not in out


def test_hw110_fix_names_a_yaml_policy_where_it_lives(tmp_path, capsys):
    (tmp_path / ".env").write_text(WEIXIN + "WEIXIN_ALLOW_ALL_USERS=true\n")
    (tmp_path / "config.yaml").write_text("platforms:\n  weixin:\n    enabled: true\n    extra:\n"
                                          "      group_policy: open\n")
    fix = _hw110_fix(capsys, tmp_path)
    assert fix.startswith("to close it, set group_policy to pairing (") and "config.yaml" in fix, fix
    assert "then remove WEIXIN_ALLOW_ALL_USERS" in fix


def test_hw110_fix_without_an_open_policy_stays_one_step(tmp_path, capsys):
    (tmp_path / ".env").write_text(WEIXIN + "WEIXIN_ALLOW_ALL_USERS=true\n")
    assert _hw110_fix(capsys, tmp_path) == "remove WEIXIN_ALLOW_ALL_USERS to close it"


def _demo(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(example_home(), home)
    return home


def test_doctor_dry_run_speaks_of_planned_changes_in_the_future_and_fix_of_done_ones(tmp_path, capsys):
    home = _demo(tmp_path)
    code, out, _ = run(capsys, "doctor", "--dry-run", "--home", str(home))
    assert "whatsapp: will be disabled (" in out and "whatsapp: disabled" not in out, out
    assert "After these changes: the gateway will start" in out
    code, out, _ = run(capsys, "doctor", "--fix", "--yes", "--no-verify", "--home", str(home))
    assert "Done: whatsapp: disabled (" in out, out


def test_check_lists_the_platform_hermes_names_first(tmp_path, capsys):
    code, out, _ = run(capsys, "check", "--home", str(_demo(tmp_path)))
    assert code == 78
    assert out.index("[✗] whatsapp") < out.index("[✗] weixin"), out
    words = " ".join(out.split())
    assert "(Hermes stops at whatsapp first.)" in words and "an earlier one" not in words


def test_ctrl_c_before_any_write_says_nothing_was_made(tmp_path, capsys, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr("hermes_wizard.faces.doctor.run_doctor", interrupted)
    monkeypatch.setattr("hermes_wizard.core.atomic._WRITES_BEGAN", [False])  # a fresh process: no lock taken yet
    code, _, err = run(capsys, "doctor", "--dry-run", "--home", str(_demo(tmp_path)))
    assert code == 130 and err.strip() == "Cancelled. No changes were made."
    from hermes_wizard.core.atomic import begin_writing

    begin_writing()  # once an apply or a lock began, the careful words stay
    code, _, err = run(capsys, "doctor", "--dry-run", "--home", str(tmp_path / "home"))
    assert code == 130 and "unless a write had completed" in err


def test_real_plurals_in_findings(tmp_path, capsys):
    (tmp_path / ".env").write_text("TELEGRAM_BOT_TOKEN=1:x\nGATEWAY_ALLOW_ALL_USERS=true\nA='unterminated\n")
    code, out, _ = run(capsys, "check", "--home", str(tmp_path))
    assert "every future one accepts messages from anyone" in out and "accept(s)" not in out, out
    assert ".env line 3 cannot be parsed and is ignored" in out


def test_weixin_groups_show_the_adapters_default_disabled(tmp_path, capsys):
    """Hermes 0.19.0's Weixin adapter defaults group_policy to disabled (pinned against the oracle's source)."""
    import glob
    import os

    from hermes_wizard.hermes.loader.catalog import PLATFORMS

    oracle = os.environ.get("HERMES_ORACLE_VENV", "/work/main/.cache/oracle-venv")
    source = glob.glob(f"{oracle}/lib/python3*/site-packages/gateway/platforms/weixin.py")
    if source:
        found = re.search(r'getenv\("WEIXIN_GROUP_POLICY", "(\w+)"\)', open(source[0]).read())
        assert found and found.group(1) == PLATFORMS["weixin"].group_default
    (tmp_path / ".env").write_text(WEIXIN)
    code, out, _ = run(capsys, "check", "--format", "json", "--home", str(tmp_path))
    row = next(r for r in json.loads(out)["platforms"] if r["name"] == "weixin")
    assert row["group_policy"] == "disabled" and row["dm_policy"] == "pairing"
