"""A judging session parses each version of config.yaml once (`ParsedYaml`), and every read of the same bytes
still gets what a parse of its own would give — equal field for field, its data its own to change."""

from __future__ import annotations

from dataclasses import fields

import pytest

from hermes_wizard.hermes.loader.yamlfile import ParsedYaml, read_yaml_file

CONTENTS = {
    "plain": b"platforms:\n  telegram:\n    enabled: true\n    extra:\n      dm_policy: open\n",
    "anchors": b"base: &b {dm_policy: pairing}\nplatforms:\n  weixin: *b\n  whatsapp: *b\n",
    "duplicate key": b"platforms:\n  telegram: {}\n  telegram: {enabled: false}\n",
    "unparsable": b"platforms: [\n",
    "control character": b"name: \x07\n",
    "self alias": b"a: &a [*a]\n",
    "empty": b"",
}


@pytest.mark.parametrize("name", CONTENTS)
def test_a_kept_parse_reads_as_a_parse_of_its_own(tmp_path, name):
    raw = CONTENTS[name]
    parsed = ParsedYaml()
    own = read_yaml_file(tmp_path / "config.yaml", raw)
    first = read_yaml_file(tmp_path / "config.yaml", raw, parsed)
    again = read_yaml_file(tmp_path / "config.yaml", raw, parsed)
    for read in (first, again):  # the data compared by repr: a self-referencing list does not compare with ==
        assert [getattr(read, f.name) for f in fields(read) if f.compare and f.name != "data"] == \
            [getattr(own, f.name) for f in fields(own) if f.compare and f.name != "data"]
        assert repr(read.data) == repr(own.data)
        assert read.duplicate_key() == own.duplicate_key()
        assert read.line_of(("platforms", "telegram")) == own.line_of(("platforms", "telegram"))


def test_each_read_owns_its_data(tmp_path):
    parsed = ParsedYaml()
    first = read_yaml_file(tmp_path / "config.yaml", CONTENTS["anchors"], parsed)
    first.data["platforms"]["weixin"]["dm_policy"] = "open"  # the loader may change what it reads
    again = read_yaml_file(tmp_path / "config.yaml", CONTENTS["anchors"], parsed)
    assert again.data["platforms"]["weixin"] == {"dm_policy": "pairing"}
    assert again.data["platforms"]["weixin"] is again.data["platforms"]["whatsapp"]  # an alias stays one object


def test_the_file_on_disk_is_read_again_and_parsed_once_per_version(tmp_path, monkeypatch):
    from hermes_wizard.hermes.loader import yamlfile

    parses = []
    real = yamlfile._parse_into
    monkeypatch.setattr(yamlfile, "_parse_into", lambda *args: parses.append(1) or real(*args))
    path, parsed = tmp_path / "config.yaml", ParsedYaml()
    path.write_bytes(CONTENTS["plain"])
    read_yaml_file(path, parsed=parsed)
    read_yaml_file(path, parsed=parsed)
    path.write_bytes(CONTENTS["anchors"])
    assert read_yaml_file(path, parsed=parsed).data["platforms"]["weixin"] == {"dm_policy": "pairing"}
    assert len(parses) == 2
