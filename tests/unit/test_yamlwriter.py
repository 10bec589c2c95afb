"""The config.yaml writer: one-key edits change exactly that key, read back by PyYAML as meant."""

from __future__ import annotations

import difflib

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_wizard.plan.yamledit import YamlEditError, remove_value, render_scalar, set_value

CORPUS = {
    "hermes-style": "# Hermes config\nmodel:\n  default: x\n\nplatforms:\n  weixin:\n    enabled: true\n"
                    "    extra:\n      dm_policy: open   # changed after upgrade\n      group_policy: disabled\n",
    "anchors-merge": "defaults: &d\n  require_mention: true\nplatforms:\n  weixin:\n    <<: *d\n    extra:\n"
                     "      dm_policy: 'open'\n      allow_from: [a, \"b\"]\n",
    "double-quoted": "platforms:\n  weixin:\n    extra:\n      dm_policy: \"open\"  # q\n",
    "crlf": "platforms:\r\n  weixin:\r\n    extra:\r\n      dm_policy: open\r\n",
    "bom": "\ufeff# bom\nplatforms:\n  weixin:\n    extra:\n      dm_policy: open\n",
    "four-space": "platforms:\n    weixin:\n        extra:\n            dm_policy: open\n",
    "seq-indent": "list:\n- a\n- b\nplatforms:\n  weixin:\n    extra:\n      dm_policy: open\n",
    "empty-value": "platforms:\n  weixin:\n    extra:\n      dm_policy:\n",
}
PATH = ("platforms", "weixin", "extra", "dm_policy")


def _changed_lines(before: str, after: str) -> list[str]:
    return [line for line in difflib.ndiff(before.splitlines(True), after.splitlines(True)) if line[:1] in "+-"]


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_replacing_a_value_changes_only_its_line(name):
    text = CORPUS[name]
    out = set_value(text, PATH, "pairing")
    changed = _changed_lines(text, out)
    assert len(changed) == 2 and "dm_policy" in changed[0] and "dm_policy" in changed[1], changed
    assert yaml.safe_load(out)["platforms"]["weixin"]["extra"]["dm_policy"] == "pairing"
    stripped = [line for line in changed]
    assert "#" not in stripped[0] or "#" in stripped[1]  # an inline comment survives


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_inserting_a_key_adds_lines_and_changes_nothing_else(name):
    text = CORPUS[name]
    out = set_value(text, ("platforms", "whatsapp", "enabled"), False)
    removed = [line for line in _changed_lines(text, out) if line.startswith("-")]
    assert removed == []
    data = yaml.safe_load(out)
    assert data["platforms"]["whatsapp"] == {"enabled": False}
    original = yaml.safe_load(text)
    del data["platforms"]["whatsapp"]
    assert data == original


def test_flow_style_falls_back_to_round_trip_and_keeps_values():
    text = "platforms: {weixin: {extra: {dm_policy: open}}}\nother: 1  # keep\n"
    out = set_value(text, ("platforms", "whatsapp", "enabled"), False)
    data = yaml.safe_load(out)
    assert data == {"platforms": {"weixin": {"extra": {"dm_policy": "open"}}, "whatsapp": {"enabled": False}},
                    "other": 1}
    assert "# keep" in out


@pytest.mark.parametrize("value", ["yes", "no", "on", "off", "12:30", "0755", "1e3", "null", "~", "true", " x",
                                   "a: b", "#x", "- a", "[1]", "", "'q'", '"dq"', "@x", "*a", "&a", "%x"])
def test_ambiguous_strings_are_quoted_so_pyyaml_reads_the_string(value):
    out = set_value("platforms:\n  weixin:\n    extra:\n      dm_policy: open\n", PATH, value)
    assert yaml.safe_load(out)["platforms"]["weixin"]["extra"]["dm_policy"] == value


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=30))
def test_any_single_line_string_reads_back_exactly(value):
    out = set_value("platforms:\n  weixin:\n    extra:\n      dm_policy: open  # c\n", PATH, value)
    assert yaml.safe_load(out)["platforms"]["weixin"]["extra"]["dm_policy"] == value
    assert out.endswith("# c\n")


def test_refusals():
    with pytest.raises(YamlEditError):
        render_scalar("a\nb")
    with pytest.raises(YamlEditError):
        set_value("- a\n- b\n", ("platforms", "x"), "y")
    with pytest.raises(YamlEditError):
        set_value("platforms: [1, 2]\n", ("platforms", "x", "enabled"), False)


# --- removing a key (a value Hermes crashes on, wizard/plan/repairs.py) ---------------------------------------
AGE = ("session_reset", "bg_process_max_age_hours")
REMOVALS = {  # name -> (text, what is left of it, byte for byte)
    "comments and neighbours stay": (
        "# top\nsession_reset:\n  mode: idle  # keep\n  bg_process_max_age_hours: \"48\"  # mine\n  at_hour: 3\n"
        "# tail\nother: 1\n",
        "# top\nsession_reset:\n  mode: idle  # keep\n  at_hour: 3\n# tail\nother: 1\n"),
    "a block list value": ("session_reset:\n  bg_process_max_age_hours:\n    - 1\n    - 2\n  mode: idle\n",
                           "session_reset:\n  mode: idle\n"),
    "a block scalar whose lines look like comments": (
        "session_reset:\n  mode: daily\n  bg_process_max_age_hours: |\n    x\n    # not a comment\n",
        "session_reset:\n  mode: daily\n"),
    "crlf": ("session_reset:\r\n  bg_process_max_age_hours: x\r\n  mode: idle\r\n",
             "session_reset:\r\n  mode: idle\r\n"),
    "absent: unchanged": ("session_reset:\n  mode: idle\n", "session_reset:\n  mode: idle\n"),
}


@pytest.mark.parametrize("name", sorted(REMOVALS))
def test_removing_a_key_cuts_its_lines_only(name):
    text, left = REMOVALS[name]
    assert remove_value(text, AGE) == left


@pytest.mark.parametrize("text, data", [
    ("session_reset:\n  bg_process_max_age_hours: x\nother: 1  # keep\n", {"session_reset": {}, "other": 1}),
    ("session_reset: {bg_process_max_age_hours: x, mode: idle}\n", {"session_reset": {"mode": "idle"}}),
    ("a: &a\n  bg_process_max_age_hours: x\n  mode: idle\nsession_reset: *a\n",
     {"a": {"mode": "idle"}, "session_reset": {"mode": "idle"}}),
])
def test_a_mapping_left_empty_or_in_flow_style_stays_a_mapping(text, data):
    """Cutting the only entry would leave `session_reset:` (null): the round trip writes `{}` instead."""
    out = remove_value(text, AGE)
    assert yaml.safe_load(out) == data, out
    assert "# keep" in out or "# keep" not in text


def test_removing_refuses_what_it_cannot_edit_safely():
    with pytest.raises(YamlEditError):
        remove_value("a: &a [*a]\nsession_reset:\n  bg_process_max_age_hours: x\n", AGE)
    with pytest.raises(YamlEditError):
        remove_value("session_reset: [unclosed\n", AGE)
