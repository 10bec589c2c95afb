"""Hostile file content (odd encodings, respellings, values Hermes misreads): each face reads it as Hermes 0.19 does,
repairs it without changing what it does not mean to change, and never claims more than it did."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_wizard.faces.cli import main

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
# tests/support/oracle/cases.py (yaml-control-*) pins that Hermes ignores such a config.yaml and keeps .env.

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
    # The ignored config.yaml (HW020) is still an error after the repair: `check`'s line, never "Verified"
    assert "Verdict: the gateway will start (weixin); 1 problem needs attention." in out and "Verified" not in out
    assert (home / ".env").read_text().endswith("WEIXIN_DM_POLICY=pairing\n")


def test_control_character_hides_a_yaml_open_policy_as_in_hermes(tmp_path, capsys):
    home = home_with(tmp_path, W, "platforms:\n  weixin:\n    dm_policy: open\n# \x1b[31m\n")
    code, out, _ = run(capsys, "check", "--gate", "--home", str(home))
    assert code == 0


# ---------------------------------------------------------------- item 9: a .env not in UTF-8

def _encoded(text: str, encoding: str) -> bytes:
    import codecs
    bom = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE, "utf-32": b""}.get(encoding, b"")
    return bom + text.encode(encoding)


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "latin-1"])
def test_doctor_fix_writes_a_non_utf8_env_in_its_own_encoding(tmp_path, capsys, hermes_oracle, encoding):
    from hermes_wizard.hermes.loader.envfile import read_env_file
    from hermes_wizard.hermes.models import model_for

    original = _encoded("NAME=caf\u00e9\r\n" + W.replace("\n", "\r\n") + "WEIXIN_DM_POLICY=open\r\n", encoding)
    home = home_with(tmp_path, original)
    before = hermes_oracle.evaluate(home)
    assert before["refusal_platform"] == "weixin"
    code, out, err = run(capsys, "doctor", "--fix", "--yes", "--home", str(home))
    written = (home / ".env").read_bytes()
    assert written[:2] == original[:2]  # same BOM (or none): the file keeps its encoding
    bom = len(original[:2]) if encoding != "latin-1" else 0
    assert written == original.replace(_encoded("=open", encoding)[bom:], _encoded("=pairing", encoding)[bom:])
    env = read_env_file(home / ".env", model=model_for(None))
    assert env.values["WEIXIN_DM_POLICY"] == "pairing" and env.values["NAME"] == "caf\u00e9"
    after = hermes_oracle.evaluate(home)
    assert after["would_start"] and after["enabled"] == ["weixin"], after
    assert "Verified: the gateway will start (weixin)." in out and code == 0


def test_a_utf32_env_is_refused_with_the_true_reason(tmp_path):
    from hermes_wizard.plan.changes import ENV, Change, Plan, UnwritableFile, planned_contents

    home = home_with(tmp_path, _encoded(W + "WEIXIN_DM_POLICY=open\n", "utf-32"))
    plan = Plan.of(home, [Change(ENV, "WEIXIN_DM_POLICY", "open", "pairing")])
    with pytest.raises(UnwritableFile, match="UTF-32.*latin-1.*iconv"):
        planned_contents(plan)


def test_an_edit_that_would_read_differently_is_never_written(tmp_path):
    """The planned bytes are read back through hermes_wizard.hermes.loader.envfile: a value dotenv would read
    otherwise is refused."""
    from hermes_wizard.hermes.models import model_of
    from hermes_wizard.plan.changes import ENV, Change, Plan, UnwritableFile, planned_contents

    home = home_with(tmp_path, W + "WEIXIN_DM_POLICY=open\n")
    # Written bare, the start-up sanitizer of 0.18/0.19 splits this "glued" line into two assignments.
    plan = Plan.of(home, [Change(ENV, "WEIXIN_DM_POLICY", "open", "pairingWEIXIN_ALLOW_ALL_USERS=true")])
    with pytest.raises(UnwritableFile, match="WEIXIN_DM_POLICY would read as"):
        planned_contents(plan, model=model_of("0.19.0"))
    # 0.20 splits nothing: there the value reads back as written
    assert b"pairingWEIXIN_ALLOW_ALL_USERS=true" in planned_contents(plan, model=model_of("0.20.1"))[ENV]


# ---------------------------------------------------------------- item 11: many platform keys

class _CountingPairs(list):
    """A mapping node's (key, value) pairs that count how often they are walked."""
    walks = 0

    def __iter__(self):
        type(self).walks += 1
        return super().__iter__()


def test_line_of_walks_each_mapping_once_however_many_keys_are_asked(tmp_path):
    """Counted, not timed: asking the line of each of n keys used to walk the mapping n times (O(n²))."""
    import yaml

    from hermes_wizard.hermes.loader.yamlfile import read_yaml_file

    keys = 400
    path = tmp_path / "config.yaml"
    path.write_text("platforms:\n" + "".join(f"  k{i}:\n    enabled: true\n" for i in range(keys)))
    parsed = read_yaml_file(path)
    platforms = parsed._root.value[0][1]
    assert isinstance(platforms, yaml.MappingNode)
    platforms.value = _CountingPairs(platforms.value)
    _CountingPairs.walks = 0
    lines = [parsed.line_of(("platforms", f"k{i}")) for i in range(keys)]
    assert lines == [2 + 2 * i for i in range(keys)]
    assert _CountingPairs.walks <= 1
    assert parsed.line_of(("platforms", "k3", "enabled")) == 9 and parsed.line_of(("platforms", "nope")) == 1


def test_many_unknown_platform_keys_give_bounded_output(tmp_path, capsys):
    home = home_with(tmp_path, W, "platforms:\n" + "".join(f"  extra{i}: {{}}\n" for i in range(3000)))
    code, out, _ = run(capsys, "check", "--home", str(home), "--format", "json")
    import json
    findings = [f for f in json.loads(out)["findings"] if f["code"] == "HW022"]
    assert len(findings) == 51 and "2950 more keys" in findings[-1]["message"]


@pytest.mark.parametrize(("version", "flagged"), [("0.20.1", []), ("0.19.0", ["A2A", "buzz"])])
def test_a_platform_key_is_unknown_only_to_a_hermes_that_does_not_know_it(tmp_path, capsys, version, flagged):
    """0.20's `Platform` admits its two new bundled platforms (folded, as `A2A:` is); 0.19's ignores them."""
    import json

    home = home_with(tmp_path, W, "platforms:\n  A2A: {enabled: false}\n  buzz: {enabled: false}\n")
    code, out, _ = run(capsys, "check", "--home", str(home), "--format", "json", "--hermes-version", version)
    messages = [f["message"] for f in json.loads(out)["findings"] if f["code"] == "HW022"]
    assert [m.split("`platforms.", 1)[1].split("`", 1)[0] for m in messages] == flagged


# ---------------------------------------------------------------- item 12: an aliased open policy

ALIASED = "defaults:\n  policy: &p open\nplatforms:\n  weixin:\n    dm_policy: *p\n    group_policy: *p\n"


def test_an_aliased_open_policy_is_repaired_and_hermes_agrees(tmp_path, capsys, hermes_oracle):
    import yaml

    home = home_with(tmp_path, W, ALIASED)
    assert hermes_oracle.evaluate(home)["refusal_platform"] == "weixin"
    code, out, err = run(capsys, "doctor", "--fix", "--yes", "--home", str(home))
    assert "does not parse" not in out + err and "not fixed" not in out
    text = (home / "config.yaml").read_text()
    assert "policy: &p open" in text  # the anchor (and what else uses it) is kept
    assert yaml.safe_load(text) == {"defaults": {"policy": "open"},
                                    "platforms": {"weixin": {"dm_policy": "pairing", "group_policy": "pairing"}}}
    after = hermes_oracle.evaluate(home)
    assert after["would_start"] and after["enabled"] == ["weixin"], after
    assert code == 0 and "Verified: the gateway will start (weixin)." in out


def test_editing_an_anchored_value_keeps_its_aliases_meaning():
    import yaml

    from hermes_wizard.plan.yamledit import set_value

    text = "platforms:\n  weixin:\n    dm_policy: &p open  # note\n    group_policy: *p\n"
    edited = set_value(text, ("platforms", "weixin", "dm_policy"), "pairing")
    assert yaml.safe_load(edited) == {"platforms": {"weixin": {"dm_policy": "pairing", "group_policy": "open"}}}
    alone = set_value("a:\n  dm_policy: &p open  # note\n", ("a", "dm_policy"), "pairing")
    assert alone == "a:\n  dm_policy: &p pairing  # note\n"


# ---------------------------------------------------------------- item 15: empty values and empty allowlists

def test_python_dotenv_reads_an_empty_value_before_a_comment_as_the_comment():
    """Pinned python-dotenv 1.2.2 behaviour the writer must avoid, and what it writes instead."""
    import io

    from dotenv import dotenv_values

    assert dotenv_values(stream=io.StringIO("K= # note\n")) == {"K": "# note"}
    assert dotenv_values(stream=io.StringIO("K='' # note\n")) == {"K": ""}


def test_the_env_writer_never_writes_an_empty_value_dotenv_reads_as_its_comment():
    import io

    from dotenv import dotenv_values

    from hermes_wizard.plan.envedit import EnvEdit, apply_edits

    edited = apply_edits("WEIXIN_ALLOWED_USERS=u1 # who\nA=1\n", [EnvEdit("WEIXIN_ALLOWED_USERS", "")])
    assert edited == "WEIXIN_ALLOWED_USERS='' # who\nA=1\n"
    assert dotenv_values(stream=io.StringIO(edited)) == {"WEIXIN_ALLOWED_USERS": "", "A": "1"}
    assert apply_edits("K=v\n", [EnvEdit("K", "")]) == "K=\n"  # no comment: bare stays bare


def test_an_allowlist_of_nobody_is_refused_by_the_answers_layer(tmp_path):
    from hermes_wizard.judge.engine import evaluate
    from hermes_wizard.plan.answers import EMPTY_ALLOWLIST, access_changes

    report = evaluate(home_with(tmp_path, W + "WEIXIN_DM_POLICY=open\n"))
    for ids in ([], [" "]):
        with pytest.raises(ValueError, match="allowlist of nobody is pairing"):
            access_changes(report, "weixin", "allowlist", ids)
    assert "pairing" in EMPTY_ALLOWLIST
    assert access_changes(report, "weixin", "allowlist", ["u1@im.wechat"])


def test_doctor_open_policy_allowlist_refuses_an_allowlist_of_nobody(tmp_path, capsys):
    home = home_with(tmp_path, W + "WEIXIN_DM_POLICY=open\n")
    code, out, _ = run(capsys, "doctor", "--fix", "--yes", "--open-policy", "allowlist", "--home", str(home))
    assert "an allowlist of nobody is pairing; use --open-policy pairing" in out
    assert code == 78 and (home / ".env").read_text() == W + "WEIXIN_DM_POLICY=open\n"
