"""Which Hermes a report is for: detection from dist-info, unmodelled versions, the pre-refusal era.

A fake Hermes install is a prefix whose `lib/python3.X/site-packages` holds `gateway/config.py`
and a `hermes_agent-<version>.dist-info/METADATA` — the two things detection reads.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from oracle import require_oracle, venv_python

from hermes_wizard.faces.cli import main
from hermes_wizard.hermes.install import detect
from hermes_wizard.hermes.versions import MODELLED, is_modelled, nearest_model, refuses_open_policies


def fake_hermes(prefix: Path, version: str, metadata: bytes | None = None) -> Path:
    site = prefix / "lib" / "python3.11" / "site-packages"
    (site / "gateway").mkdir(parents=True)
    (site / "gateway" / "config.py").write_text("# not Hermes: detection never imports it\n")
    info = site / f"hermes_agent-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_bytes(metadata if metadata is not None else
                                    f"Metadata-Version: 2.4\nName: hermes-agent\nVersion: {version}\n\nbody\n".encode())
    return prefix


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_modelled_version_has_its_model():
    from hermes_wizard.hermes.models import MODEL_CLASSES, all_models

    models = all_models()
    assert set(MODEL_CLASSES) == set(MODELLED) and all(models[v].version == v for v in MODELLED)


def test_version_rules():
    assert MODELLED[-1] == "0.21.3" and is_modelled("0.21.3") and is_modelled("0.20.1") and is_modelled("0.19")
    assert not is_modelled("0.19.0rc1") and not is_modelled("0.19.0+fork") and not is_modelled("0.20.0")
    # 0.20.0 is older than the 0.20.1 model: the older model judges it; anything newer, the newest
    assert nearest_model("0.20.0") == "0.19.0" and nearest_model("0.21.0") == "0.20.1"
    assert nearest_model("0.22.2") == MODELLED[-1] and not is_modelled("0.22.2")
    assert nearest_model("garbage") == MODELLED[-1]
    assert nearest_model("0.1.0") == MODELLED[0] == "0.17.0" and not is_modelled("0.16.3")
    assert nearest_model("0.17.4") == "0.17.0" and is_modelled("0.17.0") and not is_modelled("0.17.4")
    assert nearest_model("0.18.3") == "0.18.2" and nearest_model("0.18.2.post1") == "0.18.2"
    assert refuses_open_policies("0.18.0") and refuses_open_policies("0.20.0") and refuses_open_policies(None)
    assert not refuses_open_policies("0.17.9")


def test_detects_the_installers_venv_in_the_home(demo):
    fake_hermes(demo / "hermes-agent" / "venv", "0.19.0")
    found = detect(demo, None, {})
    assert found.version == "0.19.0" and found.prefix == demo / "hermes-agent" / "venv"


@pytest.mark.oracle
def test_real_oracle_is_detected_as_modelled(capsys, demo):
    require_oracle()
    python = str(venv_python())
    code, out, _ = run(capsys, "check", "--home", str(demo), "--hermes-python", python, "--format", "json")
    hermes = json.loads(out)["hermes"]
    assert hermes["version"] == "0.19.0" and hermes["modelled"] is True and hermes["judged_as"] == "0.19.0"
    assert Path(hermes["found_at"]) == Path(python).parent.parent
    code, out, _ = run(capsys, "check", "--home", str(demo), "--hermes-python", python)
    assert out.splitlines()[1] == f"Hermes 0.19.0 (2026.7.20) from {Path(python).parent.parent}"


def test_no_hermes_found_assumes_the_newest_model_and_says_so(capsys, demo):
    code, out, _ = run(capsys, "check", "--home", str(demo), "--format", "json")
    assert json.loads(out)["hermes"] == {"version": None, "found_at": None, "modelled": False,
                                         "judged_as": MODELLED[-1], "release_date": None, "distribution": None,
                                         "asked": False}
    code, out, _ = run(capsys, "check", "--home", str(demo))
    assert f"Hermes: not found; judged as {MODELLED[-1]}, the newest version this tool models" in out
    assert code == 78


def test_an_unmodelled_hermes_that_cannot_be_asked_gets_no_verdict_and_the_gate_lets_it_start(capsys, demo):
    """A detected version no model judges is asked, never judged by an older model's rules; this one has no
    Python to ask (a bare dist-info), so there is no verdict: HW162, and the gate lets the gateway start."""
    fake_hermes(demo / "hermes-agent" / "venv", "0.20.0")
    code, out, _ = run(capsys, "check", "--home", str(demo))
    assert "Hermes 0.20.0 from " in out and "a version hermes-wizard does not model" in out
    assert "asked of Hermes itself; the rest follows the rules of 0.19.0, the nearest model" in out
    assert "HW162 unmodelled-hermes-not-asked: Hermes 0.20.0 could not be asked" in out
    assert "Verdict: cannot judge whether the gateway will start: Hermes 0.20.0 is not modelled and could not be" \
        in out
    assert code == 1  # an error, not the model's refusal (78): 0.19's rules would refuse, and that is a guess
    code, out, err = run(capsys, "check", "--home", str(demo), "--format", "json")
    report = json.loads(out)
    assert report["hermes"]["modelled"] is False and report["hermes"]["asked"] is True
    assert report["hermes"]["judged_as"] == "0.19.0" and report["would_start"] is None and report["refusal"] is None
    assert not [row for row in report["platforms"] if row["verdict"] == "refuses_start"]
    code, out, err = run(capsys, "check", "--gate", "--home", str(demo))
    assert code == 0 and out == ""
    assert err.count("\n") == 1 and "Hermes 0.20.0 is not modelled and could not be asked" in err
    assert "letting the gateway start" in err and "explain HW162" in err
    # judged by a model's rules only when the user says so: --hermes-version, or --target (an upgrade preflight)
    code, out, _ = run(capsys, "check", "--home", str(demo), "--hermes-version", "0.20.0")
    assert code == 78 and "judged by the rules of 0.19.0, as asked" in out
    code, out, _ = run(capsys, "check", "--home", str(demo), "--target", "0.19", "--format", "json")
    report = json.loads(out)
    assert code == 78 and report["refusal"]["platform"] == "whatsapp"
    code, _, err = run(capsys, "check", "--gate", "--home", str(demo), "--target", "0.19")
    assert code == 78


def test_the_gate_still_refuses_for_a_modelled_version(capsys, demo):
    fake_hermes(demo / "hermes-agent" / "venv", "0.19.0")
    code, out, err = run(capsys, "check", "--gate", "--home", str(demo))
    assert code == 78 and "Hermes would refuse to start" in err


def test_pre_refusal_hermes_starts_and_warns_of_the_upgrade(capsys, demo):
    """0.17: no refusal; an open adapter forwards every sender, but the gateway's authorization still offers
    pairing (0.17.0 gateway/authz_mixin.py), so "open" without opt-in is not open to everyone there."""
    fake_hermes(demo / "hermes-agent" / "venv", "0.17.0")
    (demo / "whatsapp" / "session").mkdir(parents=True, exist_ok=True)
    (demo / "whatsapp" / "session" / "creds.json").write_text('{"me": {"id": "1@s.whatsapp.net"}}')
    code, out, _ = run(capsys, "check", "--home", str(demo), "--format", "json")
    report = json.loads(out)
    assert report["would_start"] is True and report["refusal"] is None
    rows = {row["name"]: row for row in report["platforms"]}
    assert rows["weixin"]["verdict"] == "open" and rows["whatsapp"]["verdict"] == "open"
    upgrade = [f for f in report["findings"] if f["code"] == "HW150"]
    assert {f["platform"] for f in upgrade} == {"weixin", "whatsapp"}
    assert all(f["severity"] == "warning" for f in upgrade)
    assert not [f for f in report["findings"] if f["code"] == "HW101"]
    assert code in (0, 1) and code == (1 if any(f["severity"] == "error" for f in report["findings"]) else 0)
    code, out, _ = run(capsys, "check", "--home", str(demo))
    assert "open policy: every stranger reaches the gateway and is offered pairing (no startup refusal here)" in out
    assert "open to everyone" not in out.split("[!] home-wide")[0].split("telegram")[1]
    code, _, err = run(capsys, "check", "--gate", "--home", str(demo))
    assert code == 0
    code, out, _ = run(capsys, "check", "--home", str(demo), "--target", "0.19.0", "--format", "json")
    assert code == 78 and json.loads(out)["refusal"]["platform"] == "whatsapp"


def test_target_must_be_modelled(capsys, demo):
    with pytest.raises(SystemExit) as exited:
        main(["check", "--home", str(demo), "--target", "0.20"])
    assert exited.value.code == 2
    assert "not a modelled Hermes version" in capsys.readouterr().err


def test_hostile_metadata_cannot_reach_the_terminal_or_read_forever(capsys, demo):
    fake_hermes(demo / "hermes-agent" / "venv", "0.20.0",
                metadata=b"Name: hermes-agent\nVersion: 0.20\x1b]52;c;aGk=\x07\xe2\x80\xae\n\n")
    code, out, err = run(capsys, "check", "--home", str(demo))
    assert "\x1b" not in out + err and "\u202e" not in out + err and "\x07" not in out + err
    assert "Hermes 0.2052caGk from" in out  # only what a version can contain survives
    big = demo / "hermes-agent" / "venv"
    shutil.rmtree(big)
    fake_hermes(big, "0.20.0", metadata=b"x" * (10 * 1024 * 1024))
    assert detect(demo, None, {}).version == "0.20.0"  # bounded read, then the dist-info name


def test_version_flag(capsys):
    assert main(["--version"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("hermes-wizard ") and "models Hermes 0.17.0, 0.18.0, 0.18.1, 0.18.2, 0.19.0" in out


def test_an_editable_install_is_found_and_its_checkout_gives_the_version(demo):
    """Hermes's curl installer: `uv pip install -e` of ~/.hermes/hermes-agent into its venv."""
    checkout = demo / "hermes-agent"
    (checkout / "gateway").mkdir(parents=True)
    (checkout / "gateway" / "config.py").write_text("# code lives in the checkout\n")
    (checkout / "hermes_cli").mkdir()
    (checkout / "hermes_cli" / "__init__.py").write_text('"""cli"""\n__version__ = "0.19.0"\n')
    site = checkout / "venv" / "lib" / "python3.11" / "site-packages"
    info = site / "hermes_agent-0.18.2.dist-info"  # stale: `git pull` without a reinstall
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.4\nName: hermes-agent\nVersion: 0.18.2\n\n")
    (info / "direct_url.json").write_text(json.dumps({"url": checkout.as_uri(), "dir_info": {"editable": True}}))
    found = detect(demo, None, {})
    assert found.site_packages == site and found.code_root == checkout and found.version == "0.19.0"


UTF16_TEXT = ("WEIXIN_ALLOW_ALL_USERS=true\nWEIXIN_ACCOUNT_ID=b0f3@im.bot\nWEIXIN_TOKEN=ilink-tok-123456\n"
              "WEIXIN_DM_POLICY=open\n")


def utf16_home(tmp_path: Path) -> Path:
    """A home whose .env is UTF-16 with its BOM (Windows Notepad's "Unicode"), the opt-in on its first line."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".env").write_bytes(UTF16_TEXT.encode("utf-16"))
    (home / ".env").chmod(0o600)
    return home


def test_a_utf16_env_is_rewritten_as_utf8_for_a_hermes_that_reads_it_as_utf8(capsys, tmp_path):
    """Hermes 0.18 reads a UTF-16 .env as UTF-8 (its first key lost, the file rewritten that way at start);
    0.19 decodes it. The doctor converts it only for the version that mangles it, and once."""
    home = utf16_home(tmp_path)
    assert main(["check", "--home", str(home), "--hermes-version", "0.19.0"]) == 0
    assert main(["check", "--home", str(home), "--hermes-version", "0.18.2"]) == 78  # the opt-in key was the first
    capsys.readouterr()
    assert main(["doctor", "--home", str(home), "--fix", "--yes", "--open-policy", "optin",
                 "--hermes-version", "0.18.2"]) == 0
    out = capsys.readouterr().out
    assert ".env: UTF-16 → UTF-8" in out and "+++ .env encoding utf-8" in out
    assert (home / ".env").read_bytes() == UTF16_TEXT.encode("utf-8")  # optin: the lost opt-in is set on purpose
    assert main(["doctor", "--home", str(home), "--dry-run", "--hermes-version", "0.18.2"]) == 0
    assert "Nothing to fix." in capsys.readouterr().out


def test_converting_a_utf16_env_for_018_never_makes_hermes_read_what_it_did_not(capsys, tmp_path):
    """The first key Hermes 0.18 never read stays unread after the conversion (commented out): converting
    must not open access (an allow-all) or enable a platform (a credential) by itself."""
    home = utf16_home(tmp_path)
    assert main(["doctor", "--home", str(home), "--fix", "--yes", "--hermes-version", "0.18.2"]) == 0
    written = (home / ".env").read_text(encoding="utf-8")
    assert written.startswith("#hermes-wizard-off: WEIXIN_ALLOW_ALL_USERS=true")
    assert "WEIXIN_DM_POLICY=pairing" in written
    capsys.readouterr()
    assert main(["check", "--home", str(home), "--hermes-version", "0.18.2", "--format", "json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["platforms"]}
    assert rows["weixin"]["opted_in"] is False and rows["weixin"]["dm_policy"] == "pairing"


def test_the_env_writer_splits_glued_lines_as_the_judged_hermes_does(capsys, tmp_path):
    """0.18 does not know FIREWORKS_API_KEY, so it never splits `FIREWORKS_API_KEY=fw…WEIXIN_ALLOW_ALL_USERS=on`:
    for 0.18 that whole line is one credential, which an edit must leave as it is."""
    home = tmp_path / "home"
    home.mkdir()
    glued = "FIREWORKS_API_KEY=fw-key-123WEIXIN_ALLOW_ALL_USERS=on\n"
    (home / ".env").write_text("WEIXIN_ACCOUNT_ID=b0f3@im.bot\nWEIXIN_TOKEN=ilink-tok-123456\nWEIXIN_DM_POLICY=open\n"
                               + glued)
    (home / ".env").chmod(0o600)
    assert main(["doctor", "--home", str(home), "--fix", "--yes", "--open-policy", "optin",
                 "--hermes-version", "0.18.2", "--no-verify"]) == 0
    written = (home / ".env").read_text()
    assert glued in written and "WEIXIN_ALLOW_ALL_USERS=true" in written
