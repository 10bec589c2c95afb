"""Loader crashes a differential run against the real Hermes found: where the real Hermes crashes at start on a value,
`check` says so (HW021 "the gateway crashes at start"), naming the file and the value and how to remove it, exits 78,
and the gate stops the start.  Which homes crash for which version is pinned against both oracles in
tests/support/oracle/cases.py (`loader-*`); this file holds the words."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest
from in_process import wizard_in_process

W = "WEIXIN_ACCOUNT_ID=test-bot@im.bot\nWEIXIN_TOKEN=dummy-ilink-token-123456\n"
GJ = "gateway.json"
# name -> (files, versions that crash, words the finding must hold, words its fix must hold)
CRASHES = {
    "sessions_dir null": ({GJ: '{"sessions_dir": null}'}, ("0.19.0", "0.18.2"),
                          ("gateway.json's sessions_dir is null",), ("remove sessions_dir from gateway.json",)),
    "sessions_dir number": ({GJ: '{"sessions_dir": 5}'}, ("0.19.0", "0.18.2"),
                            ("gateway.json's sessions_dir is 5",), ("remove sessions_dir",)),
    "streaming bool": ({GJ: '{"streaming": true}'}, ("0.18.2",), ("gateway.json's streaming is true",),
                       ("remove streaming from gateway.json",)),
    "reset_by_type exclude": ({GJ: '{"reset_by_type": {"dm": {"notify_exclude_platforms": 5}}}'}, ("0.19.0", "0.18.2"),
                              ("gateway.json's reset_by_type.dm.notify_exclude_platforms is 5",),
                              ("remove reset_by_type.dm.notify_exclude_platforms from gateway.json",)),
    "reset_by_platform exclude": ({GJ: '{"reset_by_platform": {"telegram": {"notify_exclude_platforms": true}}}'},
                                  ("0.19.0", "0.18.2"),
                                  ("reset_by_platform.telegram.notify_exclude_platforms is true",),
                                  ("gateway.json",)),
    "session_reset exclude": ({"config.yaml": "session_reset:\n  notify_exclude_platforms: 3\n"}, ("0.19.0", "0.18.2"),
                              ("config.yaml's session_reset.notify_exclude_platforms is 3",), ("config.yaml",)),
    "profile_routes number": ({GJ: '{"profile_routes": 7}'}, ("0.19.0",), ("gateway.json's profile_routes is 7",),
                              ("remove profile_routes from gateway.json",)),
    "UTF-32 .env": ({".env": b"\xff\xfe\x00\x00" + W.encode("utf-32-le")}, ("0.19.0",),
                    (".env is UTF-32", "embedded null byte"), ("iconv -f UTF-32 -t UTF-8",)),
}


def _run(*argv: str) -> tuple[int, str]:
    done = wizard_in_process(*argv)
    return done.returncode, done.stdout + done.stderr


def _home(root: Path, files: dict) -> Path:
    root.mkdir()
    for rel, data in files.items():
        (root / rel).write_bytes(data if isinstance(data, bytes) else data.encode())
    return root


@pytest.mark.parametrize("version", ["0.19.0", "0.18.2"])
@pytest.mark.parametrize("name", list(CRASHES))
def test_check_names_the_value_hermes_crashes_on(tmp_path, name, version):
    files, crashing, words, fix_words = CRASHES[name]
    home = _home(tmp_path / "home", files)
    rc, out = _run("check", "--home", str(home), "--format", "json", "--hermes-version", version)
    report = json.loads(out[:out.rindex("}") + 1])
    gate_rc, line = _run("check", "--gate", "--home", str(home), "--hermes-version", version)
    if version not in crashing:
        assert rc != 78 and report["would_start"] and gate_rc == 0, (out, line)
        return
    assert rc == 78 and report["would_start"] is False and report["refusal"]["platform"] is None, out
    found = [f for f in report["findings"] if f["code"] == "HW021"]
    assert found and found[0]["message"].startswith("the gateway crashes at start: "), report["findings"]
    for word in words:
        assert word in found[0]["message"], found[0]
    for word in fix_words:
        assert word in found[0]["fix"], found[0]
    assert gate_rc == 78 and "would crash at start" in line, line
    if name == "UTF-32 .env":  # 0.19's sanitizer refuses to touch UTF-32: it does not rewrite the file
        assert "HW014" not in {f["code"] for f in report["findings"]}, report["findings"]


# --- doctor removes a gateway.json value Hermes crashes on, through the Plan (backed up, verified, undoable) ---
OPEN = W + "WEIXIN_DM_POLICY=open\n"
REPAIRABLE = {
    "sessions_dir and reset_by_type": ('{"sessions_dir": null, "reset_by_type": {"dm": {"notify_exclude_platforms": 5, '
                                       '"at_hour": 3}}, "platforms": {"telegram": {"enabled": false}}}',
                                       ("sessions_dir", "reset_by_type.dm.notify_exclude_platforms")),
    "reset_by_platform": ('{"reset_by_platform": {"telegram": {"notify_exclude_platforms": true}}}',
                          ("reset_by_platform.telegram.notify_exclude_platforms",)),
    "profile_routes": ('{"profile_routes": 5, "stt_enabled": false}', ("profile_routes",)),
    "streaming": ('{"streaming": true, "stt_enabled": false}', ("streaming",)),
}


@pytest.mark.parametrize("version", ["0.19.0", "0.18.2"])
@pytest.mark.parametrize("name", list(REPAIRABLE))
def test_doctor_removes_the_value_hermes_crashes_on(tmp_path, name, version, hermes_oracle_at):
    from oracle.compare import _environ

    hermes = hermes_oracle_at(version)
    text, keys = REPAIRABLE[name]
    home = _home(tmp_path / "home", {".env": OPEN, GJ: text})
    (home / ".env").chmod(0o600)
    before = hermes.evaluate(home)
    original = {rel: (home / rel).read_bytes() for rel in (".env", GJ)}
    with _environ(hermes.host_env()):
        rc, out = _run("doctor", "--fix", "--yes", "--home", str(home), "--hermes-version", version)
        after = hermes.evaluate(home)
        assert after["would_start"] is True and after["error"] is None, (out, after)
        assert rc == 0 and "Verified: the gateway will start (weixin)." in out, out
        data = json.loads((home / GJ).read_text())
        if before["error"]:  # what Hermes crashed on is gone, and only that
            for key in keys:
                assert f"gateway.json: {key} removed" in out, out
            expected = json.loads(text)
            for key in keys:
                *parents, leaf = key.split(".")
                node = expected
                for part in parents:
                    node = node[part]
                del node[leaf]
            assert data == expected, data
        else:  # this Hermes starts with the value: it stays
            assert "gateway.json" not in out and data == json.loads(text), out
        again_rc, again = _run("doctor", "--fix", "--yes", "--home", str(home), "--hermes-version", version)
        assert again_rc == 0 and "Nothing to fix." in again, again
        undo_rc, undone = _run("undo", "--yes", "--home", str(home))
    assert undo_rc == 0, undone
    assert {rel: (home / rel).read_bytes() for rel in (".env", GJ)} == original


@pytest.mark.parametrize("version", ["0.19.0", "0.18.2"])
@pytest.mark.parametrize("bom, codec", [(b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be")])
def test_doctor_converts_a_utf32_env(tmp_path, version, bom, codec, hermes_oracle_at):
    """0.19 crashes at start on it (R4); 0.18 loses its first key. Either way doctor writes it as UTF-8 and
    Hermes then starts (before: 0.19 planned nothing, 0.18 stopped with exit 70 on the UTF-32 it could not decode)."""
    from oracle.compare import _environ

    hermes = hermes_oracle_at(version)
    home = _home(tmp_path / "home", {".env": bom + OPEN.encode(codec)})
    (home / ".env").chmod(0o600)
    original = (home / ".env").read_bytes()
    assert hermes.evaluate(home)["would_start"] is False
    with _environ(hermes.host_env()):
        rc, out = _run("doctor", "--fix", "--yes", "--home", str(home), "--hermes-version", version)
        after = hermes.evaluate(home)
        assert rc == 0 and "Verified: the gateway will start" in out and ".env: UTF-32 → UTF-8" in out, out
        assert after["would_start"] is True and after["error"] is None, (out, after)
        assert (home / ".env").read_bytes().startswith(b"#") or (home / ".env").read_bytes().isascii()
        again_rc, again = _run("doctor", "--fix", "--yes", "--home", str(home), "--hermes-version", version)
        assert again_rc == 0 and "Nothing to fix." in again, again
        assert _run("undo", "--yes", "--home", str(home))[0] == 0
    assert (home / ".env").read_bytes() == original


def test_root_never_edits_a_gateway_json_linked_outside_the_home(everyone_scratch):
    """The owner links gateway.json to a file of someone else's that makes Hermes crash: root's doctor judges
    it (Hermes, as the owner, reads it) but never writes through the link — the file outside is unchanged."""
    from apply_homes import tree, wizard_cli

    if os.geteuid() != 0 or not shutil.which("useradd"):
        pytest.skip("needs root and useradd")
    name = "hwt" + uuid.uuid4().hex[:8]
    if subprocess.run(["useradd", "-M", "-s", "/bin/sh", name], capture_output=True).returncode != 0:
        pytest.skip("cannot create a user")
    try:
        import pwd

        uid, gid = pwd.getpwnam(name).pw_uid, pwd.getpwnam(name).pw_gid
        base = everyone_scratch  # a folder the owner can enter: /tmp (or $TMPDIR) may be 0700
        decoy = base / "etc"
        decoy.mkdir()
        (decoy / "gateway.json").write_text('{"sessions_dir": null, "keep": "root-owned"}')
        os.chmod(decoy / "gateway.json", 0o644)
        home = base / "home"
        home.mkdir()
        (home / ".env").write_text(OPEN)
        (home / ".env").chmod(0o600)
        (home / GJ).symlink_to(decoy / "gateway.json")
        for path in (home, home / ".env"):
            os.chown(path, uid, gid)
        os.lchown(home / GJ, uid, gid)
        before = tree(decoy)
        judged = wizard_cli("check", "--home", str(home))
        assert judged.returncode == 78 and "sessions_dir is null" in judged.stdout, judged.stdout + judged.stderr
        fixed = wizard_cli("doctor", "--fix", "--yes", "--home", str(home))
        assert fixed.returncode not in (0, 70) and "Traceback" not in fixed.stderr, fixed.stdout + fixed.stderr
        assert tree(decoy) == before
        assert os.readlink(home / GJ) == str(decoy / "gateway.json")
    finally:
        subprocess.run(["userdel", name], capture_output=True)


def test_the_gateway_json_diff_masks_its_credentials(tmp_path):
    """The rewritten gateway.json is shown as a diff: a token or key kept in it never appears in clear."""
    text = ('{"sessions_dir": null, "platforms": {"telegram": {"enabled": true, "token": '
            '"7123456789:AAHsecretTokenValue_0123", "extra": {"api_key": "sk-verysecretvalue123"}}}}')
    home = _home(tmp_path / "home", {GJ: text})
    rc, out = _run("doctor", "--dry-run", "--home", str(home), "--plain")
    assert "gateway.json: sessions_dir removed" in out and '"sessions_dir"' in out, out
    assert "AAHsecret" not in out and "verysecret" not in out, out
    assert (home / GJ).read_text() == text  # --dry-run writes nothing


# --- the runner's constructor (R6): 0.18.0 to 0.19.0 compare session_reset.bg_process_max_age_hours with 0 -----
# name -> (files, versions that crash, words the finding must hold); pinned against every oracle in
# tests/support/oracle/cases.py (`runner-*`), and against the real `hermes gateway run` in test_probe.py.
AGE = "session_reset:\n  bg_process_max_age_hours: "
RUNNER_CRASHES = {
    "yaml quoted number": ({"config.yaml": AGE + '"48"\n'}, ("0.19.0", "0.18.2", "0.18.0"),
                           ("config.yaml's session_reset.bg_process_max_age_hours is \"48\", not a number",)),
    "yaml list": ({"config.yaml": AGE + "[24]\n"}, ("0.19.0", "0.18.2"), ("bg_process_max_age_hours is a list",)),
    "yaml nested": ({"config.yaml": "gateway:\n  session_reset:\n    bg_process_max_age_hours: x\n"}, ("0.19.0",),
                    ("config.yaml's gateway.session_reset.bg_process_max_age_hours",)),
    "gateway.json": ({GJ: '{"default_reset_policy": {"bg_process_max_age_hours": {"h": 1}}}'}, ("0.19.0", "0.18.2"),
                     ("gateway.json's default_reset_policy.bg_process_max_age_hours is a mapping",)),
    "yaml number": ({"config.yaml": AGE + "1.5\n"}, (), ()),
}


@pytest.mark.parametrize("version", ["0.19.0", "0.18.2", "0.18.1", "0.18.0", "0.17.0"])
@pytest.mark.parametrize("name", list(RUNNER_CRASHES))
def test_check_and_gate_stop_where_the_runner_crashes(tmp_path, name, version):
    files, crashing, words = RUNNER_CRASHES[name]
    crashing = crashing + (("0.18.0", "0.18.1", "0.18.2") if "0.18.2" in crashing else ())  # one code in 0.18.x
    home = _home(tmp_path / "home", {".env": OPEN, **files})  # an open policy too: the crash comes first
    rc, out = _run("check", "--home", str(home), "--format", "json", "--hermes-version", version)
    report = json.loads(out[:out.rindex("}") + 1])
    gate_rc, line = _run("check", "--gate", "--home", str(home), "--hermes-version", version)
    if version not in crashing:
        refuses = version != "0.17.0"  # then the open policy decides: 0.18 and later refuse, 0.17 starts
        assert report["would_start"] is not refuses and "HW021" not in {f["code"] for f in report["findings"]}, out
        assert gate_rc == (78 if refuses else 0) and (rc == 78) is refuses, (rc, line)
        return
    assert rc == 78 and report["would_start"] is False and report["refusal"]["platform"] is None, out
    found = [f for f in report["findings"] if f["code"] == "HW021"]
    assert found and all(word in found[0]["message"] for word in words), report["findings"]
    assert found[0]["fix"].startswith("remove ") and "without quotes" in found[0]["fix"], found[0]
    assert gate_rc == 78 and "would crash at start" in line, line


REPAIRABLE_AGES = {  # name -> (files, the file and key doctor removes, the file's data after)
    "yaml": ({"config.yaml": "model:\n  default: x\nsession_reset:\n  mode: idle  # kept\n  "
                             "bg_process_max_age_hours: \"48\"\n"},
             "config.yaml: session_reset.bg_process_max_age_hours", {"model": {"default": "x"},
                                                                      "session_reset": {"mode": "idle"}}),
    "yaml alone in its policy": ({"config.yaml": AGE + "[24]\n"}, "config.yaml: session_reset.bg_process_max_age_hours",
                                 {"session_reset": {}}),
    "gateway.json": ({GJ: '{"default_reset_policy": {"bg_process_max_age_hours": "12", "at_hour": 3}}'},
                     "gateway.json: default_reset_policy.bg_process_max_age_hours", {"default_reset_policy":
                                                                                      {"at_hour": 3}}),
    "both, one after the other": ({"config.yaml": "session_reset: {}\n",
                                   GJ: '{"default_reset_policy": {"bg_process_max_age_hours": [1]}}'},
                                  "gateway.json: default_reset_policy.bg_process_max_age_hours",
                                  {"default_reset_policy": {}}),
}


@pytest.mark.parametrize("version", ["0.19.0", "0.18.2"])
@pytest.mark.parametrize("name", list(REPAIRABLE_AGES))
def test_doctor_removes_an_age_the_runner_crashes_on(tmp_path, name, version, hermes_oracle_at):
    """The open policy is repaired too, and Hermes itself, asked again, starts: the doctor never says "will
    start" of a home whose runner still crashes (before, it closed the policy and promised a start)."""
    import yaml
    from oracle.compare import _environ

    hermes = hermes_oracle_at(version)
    files, removed, data_after = REPAIRABLE_AGES[name]
    home = _home(tmp_path / "home", {".env": OPEN, **files})
    (home / ".env").chmod(0o600)
    assert hermes.evaluate(home)["error"], "Hermes starts: the case lost its point"
    original = {rel: (home / rel).read_bytes() for rel in (".env", *files)}
    changed = GJ if removed.startswith(GJ) else "config.yaml"
    with _environ(hermes.host_env()):
        rc, out = _run("doctor", "--fix", "--yes", "--home", str(home), "--hermes-version", version)
        after = hermes.evaluate(home)
        assert after["would_start"] is True and after["error"] is None, (out, after)
        assert rc == 0 and "Verified: the gateway will start (weixin)." in out, out
        assert f"{removed} removed (Hermes crashed at start on it" in out and "dm_policy open → pairing" in out, out
        text = (home / changed).read_text()
        assert (json.loads(text) if changed == GJ else yaml.safe_load(text)) == data_after, text
        if changed != GJ:
            assert "# kept" in text or "# kept" not in original[changed].decode(), text  # comments stay
        again_rc, again = _run("doctor", "--fix", "--yes", "--home", str(home), "--hermes-version", version)
        assert again_rc == 0 and "Nothing to fix." in again, again
        undo_rc, undone = _run("undo", "--yes", "--home", str(home))
    assert undo_rc == 0, undone
    assert {rel: (home / rel).read_bytes() for rel in original} == original


def test_doctor_leaves_the_age_alone_for_a_hermes_that_never_reads_it(tmp_path):
    """0.17 has no background-process age: the value is harmless there, and the doctor does not touch it."""
    home = _home(tmp_path / "home", {".env": OPEN, "config.yaml": AGE + '"48"\n'})
    (home / ".env").chmod(0o600)
    rc, out = _run("doctor", "--dry-run", "--home", str(home), "--hermes-version", "0.17.0", "--no-verify")
    assert rc == 0 and "bg_process_max_age_hours" not in out, out
