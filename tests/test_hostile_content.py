"""Hostile file content (issue 8, items 8-12 and 15): each face reads it as Hermes 0.19 does,
repairs it without changing what it does not mean to change, and never claims more than it did."""

from __future__ import annotations

from pathlib import Path

import pytest

from wizard.cli import main

W = "WEIXIN_ACCOUNT_ID=bot@im.bot\nWEIXIN_TOKEN=ilink-token-123456\n"


def home_with(tmp_path: Path, env: str | bytes = "", yaml_text: str | bytes | None = None) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".env").write_bytes(env if isinstance(env, bytes) else env.encode())
    (home / ".env").chmod(0o600)
    if yaml_text is not None:
        (home / "config.yaml").write_bytes(yaml_text if isinstance(yaml_text, bytes) else yaml_text.encode())
    return home


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- item 8: control characters in config.yaml
# tests/oracle/cases.py (yaml-control-*) pins that Hermes ignores such a config.yaml and keeps .env.

@pytest.mark.parametrize("char", ["\x07", "\x1b", "\x00", "\x7f", "\ufffe"])
def test_control_character_in_config_yaml_is_judged_like_hermes(tmp_path, capsys, char):
    home = home_with(tmp_path, W + "WEIXIN_DM_POLICY=open\n",
                     f"platforms:\n  weixin:\n    dm_policy: pairing # a{char}b\n")
    code, out, err = run(capsys, "check", "--home", str(home))
    assert code == 78 and "internal error" not in err
    assert "HW020" in out and "line 3, column" in out
    code, out, err = run(capsys, "check", "--gate", "--home", str(home))
    assert code == 78 and "weixin" in err + out
    code, out, err = run(capsys, "doctor", "--home", str(home))
    assert code != 70 and "internal error" not in err
    code, out, err = run(capsys, "doctor", "--fix", "--yes", "--home", str(home))
    assert "Verified: the gateway will start (weixin)" in out
    assert (home / ".env").read_text().endswith("WEIXIN_DM_POLICY=pairing\n")


def test_control_character_hides_a_yaml_open_policy_as_in_hermes(tmp_path, capsys):
    home = home_with(tmp_path, W, "platforms:\n  weixin:\n    dm_policy: open\n# \x1b[31m\n")
    code, out, _ = run(capsys, "check", "--gate", "--home", str(home))
    assert code == 0
