"""`which` finds what `shutil.which` finds, on real folders and files (wizard/core/pathsearch.py)."""

from __future__ import annotations

import os
import shutil

import pytest

from hermes_wizard.core.pathsearch import which


@pytest.fixture
def bins(tmp_path, monkeypatch):
    """Folders a/ b/ c/: a/tool not executable, b/tool executable, c/tool a folder; d/ a link to b/."""
    for name in "abc":
        (tmp_path / name).mkdir()
    (tmp_path / "a" / "tool").write_text("#!/bin/sh\n")
    (tmp_path / "b" / "tool").write_text("#!/bin/sh\n")
    (tmp_path / "b" / "tool").chmod(0o755)
    (tmp_path / "c" / "tool").mkdir()
    (tmp_path / "b" / "broken").symlink_to(tmp_path / "nowhere")
    (tmp_path / "d").symlink_to(tmp_path / "b")
    monkeypatch.chdir(tmp_path / "b")
    return tmp_path


@pytest.mark.parametrize("path", [
    "{a}:{c}:{b}", "{c}:{a}", "{d}:{b}", "{b}:{b}", "", ":", "{a}::{b}", "{a}:", "relative/none:{b}", "{b}/",
])
@pytest.mark.parametrize("name", ["tool", "broken", "missing", "./tool", "{b}/tool", "{a}/tool", "{c}/tool"])
def test_same_answer_as_shutil(bins, path, name):
    folders = {key: str(bins / key) for key in "abcd"}
    path, name = path.format(**folders), name.format(**folders)
    assert which(name, path) == shutil.which(name, path=path)


@pytest.mark.parametrize("environ_path", ["{b}", "", None])
def test_without_a_path_it_reads_the_environment_as_shutil_does(bins, monkeypatch, environ_path):
    if environ_path is None:
        monkeypatch.delenv("PATH", raising=False)
    else:
        monkeypatch.setenv("PATH", environ_path.format(b=bins / "b"))
    for name in ("tool", "sh", "missing"):
        assert which(name) == shutil.which(name)
    if environ_path == "{b}":
        assert which("tool") == os.path.join(bins / "b", "tool")
