"""What the headless faces say is what will happen (issue 11): HW110's fix, taken literally, does not bring
the refusal back; verdicts after a colon; dry-run lines in the future; Ctrl+C before any write; findings
in the order Hermes meets them."""

from __future__ import annotations

import json
import re
import shutil

from wizard.core.bundled import example_home
from wizard.faces.cli import main
from wizard.service import scope as service

WEIXIN = "WEIXIN_ACCOUNT_ID=b0f5c1d2e3a4@im.bot\nWEIXIN_TOKEN=demo-ilink-token-0000000000000000\n"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    service.reset()
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
    for side, variable, number in re.findall(r"set (\w+)_policy to pairing \((\w+) in \.env:(\d+)\)", fix):
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
