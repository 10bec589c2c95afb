"""Nothing a home holds reaches the terminal raw, and no secret is shown (ARCHITECTURE.md, "Contracts").

An escape corpus (ESC, OSC 52, CSI, C1 U+009B, bidi U+202E/U+2066, DEL) is put in every
string a home can feed to output and the home is run through every text output; a
secret corpus (quoted keys, export, glued lines, flow YAML, anchors, multi-line values,
values with `#`) is run through check, doctor --dry-run and doctor --fix.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from fake_systemd import FakeSystemd, user_unit

from hermes_wizard.core.safetext import json_text, visible
from hermes_wizard.faces.cli import main

DEMO = Path(__file__).resolve().parents[2] / "assets" / "homes" / "death-loop"
INJ = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\u009b31m\u202e\u2066\x7f"
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def assert_clean(text: str) -> None:
    found = RAW.search(text)
    assert found is None, f"raw {found.group()!r} in output: {text[max(0, found.start() - 80):found.end() + 40]!r}"


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert_clean(out)
    assert_clean(err)
    return code, out + err


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    """The demo home, at a path with escapes in it, with escapes in every file string."""
    home = tmp_path / f"home{INJ}"
    shutil.copytree(DEMO, home)
    env = (home / ".env").read_text()
    env = env.replace("WEIXIN_ACCOUNT_ID=b0f5c1d2e3a4@im.bot", f"WEIXIN_ACCOUNT_ID=acc{INJ}")
    env += (f"EVIL{INJ}KEY=1\nTELEGRAM_ALLOWED_USERS=123 # note{INJ}\nGATEWAY_ALLOW_ALL_USERS=on{INJ}\n"
            f"DISCORD_ALLOWED_USERS='x{INJ}'\n")
    (home / ".env").write_text(env)
    (home / ".env").chmod(0o600)
    yaml = (home / "config.yaml").read_text()
    quoted = json.dumps(INJ)  # a YAML double-quoted scalar holding the corpus
    yaml += (f"  {quoted[:-1]}qq\": {{enabled: true}}\n"
             f"  whatsapp_cloud: {{enabled: true, dm_policy: {quoted}}}\n")
    yaml = yaml.replace("  whatsapp:\n    enabled: true", f"  whatsapp:\n    enabled: true\n    extra:\n"
                        f"      session_path: {quoted}")
    (home / "config.yaml").write_text(yaml)
    (home / "gateway_state.json").write_text(json.dumps({"gateway_state": "startup_failed",
                                                         "exit_reason": f"weixin{INJ}: open policy"}))
    (home / "profiles" / f"bad{INJ}").mkdir(parents=True)  # not a profile name Hermes accepts: skipped
    profile = home / "profiles" / "p2"
    profile.mkdir(parents=True)
    (profile / ".env").write_text(f"WEIXIN_TOKEN=t{INJ}\nWEIXIN_ACCOUNT_ID=a{INJ}\n")
    user_home = tmp_path / "user"
    units = user_home / ".config" / "systemd" / "user"
    units.mkdir(parents=True)
    unit = user_unit("/opt/hermes/venv/bin/python", home).replace(
        "Environment=\"VIRTUAL_ENV", f"Environment=\"EXTRA={INJ}\"\nEnvironment=\"VIRTUAL_ENV")
    (units / "hermes-gateway.service").write_text(unit)
    monkeypatch.setenv("HOME", str(user_home))
    monkeypatch.setenv("HERMES_WIZARD_ROOT", str(tmp_path / "root"))
    (tmp_path / "root").mkdir()
    FakeSystemd(tmp_path, "hermes-gateway.service", f"weixin{INJ}").install(monkeypatch)
    yield home


def test_check_text_json_profiles_service_gate(capsys, hostile):
    home = str(hostile)
    code, out = run(capsys, "check", "--home", home)
    assert code == 78 and "\\x1b]52" in out  # shown, escaped
    code, out = run(capsys, "check", "--home", home, "--format", "json")
    assert json.loads(out)["home"] == home  # escaped as \uXXXX, read back unchanged
    code, out = run(capsys, "check", "--home", home, "--all-profiles")
    code, out = run(capsys, "check", "--home", home, "--all-profiles", "--format", "json")
    assert len(json.loads(out)) == 2
    run(capsys, "check", "--home", home, "--service")
    run(capsys, "check", "--home", home, "--unit", str(Path.home() / ".config/systemd/user/hermes-gateway.service"))
    code, _ = run(capsys, "check", "--home", home, "--gate")
    assert code == 78
    run(capsys, "explain", f"HW1{INJ}")
    assert run(capsys, "check", "--home", home, "--profile", f"bad{INJ}")[0] == 2


def test_doctor_dry_run_fix_and_undo(capsys, hostile):
    home = str(hostile)
    code, out = run(capsys, "doctor", "--home", home, "--dry-run")
    assert "+++ .env" in out
    code, out = run(capsys, "doctor", "--home", home, "--fix", "--yes", "--settle", "0")
    assert "Backup:" in out
    code, out = run(capsys, "undo", "--yes", "--home", home)
    assert "Restored" in out


def test_json_escapes_bidi_c1_and_del_that_json_dumps_passes():
    text = json_text({"k": "a\u202eb\u009bc\x7fd\udc80"})
    assert_clean(text)
    assert json.loads(text) == {"k": "a\u202eb\u009bc\x7fd\udc80"}
    assert visible("a\tb\nc") == "a\\tb\\nc"


def test_every_escaped_character_is_one_isprintable_rejects():
    """`visible_lines` and `json_text` skip their per-character escaping when `str.isprintable()` (line breaks
    aside) accepts the text: that is exact only while every character they escape is one it rejects."""
    from hermes_wizard.core.safetext import _RANGES, visible_lines

    printable = [hex(code) for low, high in _RANGES for code in range(low, high + 1)
                 if code != 0x0a and chr(code).isprintable()]
    assert printable == []
    assert visible_lines("ok\n\u2028\x1b") == "ok\n\\u2028\\x1b" and visible_lines("a •\nb") == "a •\nb"


SECRETS = ["sekA1quotedkey", "sekB2dquoted", "sekC3exported", "sekD4glued", "sekE5spaced", "sekF6multi",
           "sekG7hash", "sekH8flow", "sekI9extra", "sekJ0anchor", "sekK1block"]


@pytest.fixture
def leaky(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    (home / ".env").write_text((home / ".env").read_text().replace("WEIXIN_DM_POLICY=open\n", "") + f"""
'WEIXIN_TOKEN'={SECRETS[0]}
"SLACK_BOT_TOKEN"={SECRETS[1]}
export DISCORD_BOT_TOKEN={SECRETS[2]}
WEIXIN_DM_POLICY=openTELEGRAM_BOT_TOKEN={SECRETS[3]}
WHATSAPP_DM_POLICY=open MATTERMOST_TOKEN={SECRETS[4]}
MATRIX_PASSWORD="line1
{SECRETS[5]}
end"
SIGNAL_HTTP_URL_TOKEN={SECRETS[6]}#tail # comment
""")
    (home / ".env").chmod(0o600)
    (home / "config.yaml").write_text((home / "config.yaml").read_text() + f"""
  weixin: {{enabled: true, token: {SECRETS[7]}, dm_policy: open}}
  slack: {{extra: {{token: {SECRETS[8]}}}}}
anchors:
  saved: &tok {SECRETS[9]}
  mattermost: {{token: *tok}}
  matrix:
    password: |
      {SECRETS[10]}
""")
    return home


def test_no_secret_in_check_doctor_dry_run_or_fix(capsys, leaky):
    home = str(leaky)
    outputs = []
    for argv in (["check"], ["check", "--format", "json"], ["doctor", "--dry-run"],
                 ["doctor", "--fix", "--yes", "--settle", "0"]):
        main([argv[0], "--home", home, *argv[1:]])
        out, err = capsys.readouterr()
        outputs.append(out + err)
    assert "+++ .env" in outputs[2]
    for text in outputs:
        for secret in SECRETS:
            assert secret.lower() not in text.lower(), (secret, text)


def test_glued_policy_is_not_printed_verbatim(capsys, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    (home / ".env").write_text((home / ".env").read_text().replace(
        "WEIXIN_DM_POLICY=open", "WEIXIN_DM_POLICY=pairing NOTAKNOWNKEY=abc"))
    main(["check", "--home", str(home), "--format", "json"])
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["platforms"]}
    assert "abc" not in rows["weixin"]["dm_policy"] and rows["weixin"]["verdict"] != "refuses-start"


def test_yaml_alias_name_is_abbreviated_in_hw020(capsys, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    (home / "config.yaml").write_text("platforms:\n  weixin:\n    token: *SeCrEtPastedToken123\n")
    main(["check", "--home", str(home), "--format", "json"])
    out = capsys.readouterr().out
    assert "HW020" in out and "SeCrEtPastedToken123" not in out


def test_a_crlf_error_line_does_not_shift_the_masks(tmp_path, capsys):
    """python-dotenv's own line counter drifts by one after `=x\\r\\n`; the masks must not, or a policy change
    is hidden in the diff and the line after a secret is masked instead of the secret's (a generated home)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".env").write_bytes(b"=no-key\r\nWEIXIN_TOKEN=ilink-token-7f3a9c01\r\n"
                                b"WEIXIN_ACCOUNT_ID=b0f5c1d2e3a4@im.bot\r\n"
                                b"QQ_CLIENT_SECRET=\"qq-secret-9z8y\"  #inline\r\nWEIXIN_DM_POLICY = OPEN\r\n")
    (home / ".env").chmod(0o600)
    main(["doctor", "--home", str(home), "--dry-run"])
    out = capsys.readouterr().out
    assert "-WEIXIN_DM_POLICY = OPEN" in out and "+WEIXIN_DM_POLICY = pairing" in out
    assert "ilink-token-7f3a9c01" not in out and "qq-secret-9z8y" not in out


def test_a_multi_line_secret_does_not_shift_the_masks_after_it(tmp_path, capsys):
    """A quoted secret spanning lines: the lines after it keep their own masks (a loop once reused the
    parser's position variable and moved every later mask)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".env").write_text('WEIXIN_DM_POLICY=open\nAPI_TOKEN="line-one-secret\nline-two-secret\nz"\n'
                               'WEIXIN_TOKEN=ilink-token-77\nWEIXIN_ACCOUNT_ID=b0f5@im.bot\n')
    (home / ".env").chmod(0o600)
    main(["doctor", "--home", str(home), "--dry-run"])
    out = capsys.readouterr().out
    assert "-WEIXIN_DM_POLICY=open" in out and "+WEIXIN_DM_POLICY=pairing" in out
    assert "line-one-secret" not in out and "line-two-secret" not in out and "ilink-token-77" not in out


def test_the_quick_secret_test_matches_every_secret_name_in_any_case():
    """`env_masks` skips a text the quick test finds nothing in: every name the catalog calls secret-valued, in
    any case and inside a line, must be found, or its value would be printed unmasked."""
    from hermes_wizard.hermes.loader.catalog import SECRET_VALUED
    from hermes_wizard.judge.masking import env_masks

    for name in sorted(SECRET_VALUED):
        for spelled in (name, name.lower(), f"export {name.title()}"):
            masks, values = env_masks(f"{spelled}=s3cr3t-value-123\n")
            assert masks and "s3cr3t-value-123" in values, spelled
