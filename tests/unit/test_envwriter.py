"""The `.env` writer: byte-exact edits, and values both python-dotenv and bash read back."""

from __future__ import annotations

import io
import subprocess

import pytest
from dotenv import dotenv_values
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hermes_wizard.plan.envedit import (
    DISABLED_MARKER,
    EnvEdit,
    UnwritableValue,
    apply_edits,
    disabled_keys,
    quote_value,
)

CORPUS = {
    "plain": "A=1\nWEIXIN_DM_POLICY=open\nB=2\n",
    "crlf": "# c\r\nA=1\r\nWEIXIN_DM_POLICY=open\r\n\r\nB=2\r\n",
    "bom": "\ufeffA=1\nWEIXIN_DM_POLICY=open\n",
    "export-quoted-comment": "export A='x'\n\n   # indented comment\n"
                             "export WEIXIN_DM_POLICY=\"open\"   # set by setup\nZ=9",
    "spaces-around-eq": "WEIXIN_DM_POLICY =  open #why\nUNKNOWN_KEY=keep me\n",
    "duplicates": "WEIXIN_DM_POLICY=open\nA=1\nWEIXIN_DM_POLICY=open\n",
    "single-quoted": "WEIXIN_DM_POLICY='open' # q\n",
    "no-final-newline": "A=1\nWEIXIN_DM_POLICY=open",
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_one_key_change_touches_only_that_line(name):
    text = CORPUS[name]
    out = apply_edits(text, [EnvEdit("WEIXIN_DM_POLICY", "pairing")])
    before, after = text.splitlines(keepends=True), out.splitlines(keepends=True)
    assert len(before) == len(after)
    changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    last = max(i for i, line in enumerate(before) if "WEIXIN_DM_POLICY" in line)
    assert changed == [last], (before, after)
    assert after[last].replace("pairing", "open") == before[last]  # quotes, export, comment kept
    assert dotenv_values(stream=io.StringIO(out))["WEIXIN_DM_POLICY"] == "pairing"


def test_new_key_appended_with_the_files_line_ending():
    assert apply_edits("A=1\r\nB=2", [EnvEdit("C", "x y")]) == "A=1\r\nB=2\r\nC='x y'\r\n"
    assert apply_edits("", [EnvEdit("C", "true")]) == "C=true\n"


def test_comment_out_and_restore_round_trip():
    text = "A=1\n  export WEIXIN_TOKEN='abc' # tok\nB=2\n"
    off = apply_edits(text, [EnvEdit("WEIXIN_TOKEN", None)])
    assert "WEIXIN_TOKEN" not in dotenv_values(stream=io.StringIO(off))
    assert DISABLED_MARKER in off and disabled_keys(off) == ["WEIXIN_TOKEN"]
    assert apply_edits(off, [EnvEdit("WEIXIN_TOKEN", "", restore=True)]) == text


@pytest.mark.parametrize("bad", ["a\nb", "a\rb", "a\x00b"])
def test_line_breaking_values_are_refused(bad):
    with pytest.raises(UnwritableValue):
        quote_value(bad)


TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x00"), max_size=40)


def _bash_read(values: list[str]) -> list[str] | None:
    lines = []
    for i, value in enumerate(values):
        lines.append(f"K{i}={quote_value(value)}\n")
    script = 'set -a; . "$1"; for i in $(seq 0 $(($2-1))); do v="K$i"; printf "%s\\0" "${!v}"; done'
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".env", delete=False, encoding="utf-8") as f:
        f.writelines(lines)
    done = subprocess.run(["bash", "-c", script, "bash", f.name, str(len(values))], capture_output=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode("utf-8").split("\0")[:-1]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(TEXT, min_size=1, max_size=60))
@example(["\\\\", "a\\", "x\\\\y", "it's", "$HOME", "${X}", "a b", "#c", "tab\there"])  # dotenv 1.2.2 edges
def test_written_values_read_back_identically_in_dotenv_and_bash(values):
    writable = []
    for value in values:
        try:
            quote_value(value)
        except UnwritableValue:  # only the documented combinations are refused
            single_breakers = "'" in value or "\\\\" in value or value.endswith("\\") or "${" in value
            double_breakers = "`" in value or "$" in value or value.endswith("\\")
            assert single_breakers and double_breakers, value
            continue
        writable.append(value)
    if not writable:
        return
    text = "".join(f"K{i}={quote_value(v)}\n" for i, v in enumerate(writable))
    parsed = dotenv_values(stream=io.StringIO(text))
    assert [parsed[f"K{i}"] for i in range(len(writable))] == writable
    assert _bash_read(writable) == writable


def test_a_glued_line_is_split_as_hermes_splits_it_before_an_edit():
    text = "WEIXIN_ACCOUNT_ID=b@im.bot\nWEIXIN_DM_POLICY=openWEIXIN_TOKEN=ilink-token-7f3a9c01\n"
    out = apply_edits(text, [EnvEdit("WEIXIN_DM_POLICY", "pairing")])
    assert out == "WEIXIN_ACCOUNT_ID=b@im.bot\nWEIXIN_DM_POLICY=pairing\nWEIXIN_TOKEN=ilink-token-7f3a9c01\n"
    off = apply_edits("FEISHU_ALLOWED_USERS=1WEIXIN_TOKEN=tok-123456\n", [EnvEdit("WEIXIN_TOKEN", None)])
    assert dotenv_values(stream=io.StringIO(off)) == {"FEISHU_ALLOWED_USERS": "1"}
    untouched = "URL=https://x/?WEIXIN_TOKEN=a\n"  # a structured value is not glued: left alone
    assert apply_edits(untouched, [EnvEdit("B", "1")]) == untouched + "B=1\n"
