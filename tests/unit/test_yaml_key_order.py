"""New keys land in config.yaml in the order they were planned, and a new top-level block after the
keys already there (Hermes writes `_config_version` last; the wizard's `platforms:` goes below it)."""

from __future__ import annotations

import yaml

from hermes_wizard.plan.changes import YAML, Change, Plan, planned_contents
from hermes_wizard.plan.yamledit import set_value

HERMES_MADE = ("model:\n  default: anthropic/claude-sonnet-4\n  provider: openrouter\n"
               "terminal:\n  backend: local\n_config_version: 5\n")


def _planned(tmp_path, text: str | None, keys: list[str]) -> str:
    changes = tuple(Change(YAML, key, None, "true", platform=key.split(".")[1]) for key in keys)
    plan = Plan(tmp_path, changes=changes)
    current = {".env": None, "config.yaml": None if text is None else text.encode()}
    return planned_contents(plan, current)["config.yaml"].decode()


def test_a_new_homes_platforms_come_in_planned_order(tmp_path):
    keys = ["platforms.telegram.enabled", "platforms.weixin.enabled", "platforms.whatsapp.enabled"]
    text = _planned(tmp_path, None, keys)
    assert list(yaml.safe_load(text)["platforms"]) == ["telegram", "weixin", "whatsapp"], text


def test_platforms_go_below_a_hermes_made_config_version(tmp_path):
    text = _planned(tmp_path, HERMES_MADE, ["platforms.telegram.enabled", "platforms.weixin.enabled"])
    data = yaml.safe_load(text)
    assert list(data) == ["model", "terminal", "_config_version", "platforms"], text
    assert list(data["platforms"]) == ["telegram", "weixin"]
    assert text.startswith(HERMES_MADE)  # nothing already there moved


def test_a_new_key_follows_its_siblings_and_their_deeper_lines_not_the_comments_after_them():
    text = ("platforms:\n  telegram:\n    enabled: true\n    extra:\n      reply_to_mode: first\n\n"
            "# the model\nmodel:\n  default: x\n")
    edited = set_value(text, ("platforms", "weixin", "enabled"), True)
    assert edited == ("platforms:\n  telegram:\n    enabled: true\n    extra:\n      reply_to_mode: first\n"
                      "  weixin:\n    enabled: true\n\n# the model\nmodel:\n  default: x\n")
    assert yaml.safe_load(edited)["platforms"] == {"telegram": {"enabled": True, "extra": {"reply_to_mode": "first"}},
                                                   "weixin": {"enabled": True}}


def test_a_sequence_at_the_keys_column_and_a_missing_final_newline():
    text = "list:\n- a\n- b\nplatforms:\n  telegram:\n    enabled: true"
    edited = set_value(text, ("list2",), "x")
    assert list(yaml.safe_load(edited)) == ["list", "platforms", "list2"], edited
    edited = set_value("list:\n- a\n- b\n", ("other",), 1)
    assert edited == "list:\n- a\n- b\nother: 1\n"
