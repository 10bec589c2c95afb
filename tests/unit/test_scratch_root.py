"""tests/support/scratch_root.py: the scratch root a throw-away user must reach is chosen by checking every
folder above it, never assumed of /tmp or $TMPDIR; with none left the test fails under CI=true; and removing
it takes only what it made, never what a symlink in it (or in its place) points to."""

from __future__ import annotations

import os
import stat

import pytest
from scratch_root import blocked_ancestor, candidate_parents, open_parent, readable_copy, scratch_root


@pytest.fixture
def closed():
    """A folder of mode 0700 with an open (0755) folder inside: like /tmp at 0700 with pytest's folders in it.
    Made in an open place (tmp_path is below pytest's own 0700 folder, which would be the first one blocked)."""
    with scratch_root("hw-closed-") as place:
        folder = place / "closed"
        (folder / "open").mkdir(parents=True)
        (folder / "open").chmod(0o755)
        folder.chmod(0o700)
        yield folder


def test_a_0700_ancestor_blocks_the_chain_below_it(closed):
    assert blocked_ancestor(closed / "open") == closed


def test_a_symlink_is_judged_by_where_it_leads(closed):
    """The kernel follows a link through the folders of its target: an open link into a closed folder is closed."""
    with scratch_root("hw-link-") as open_place:
        link = open_place / "link"
        link.symlink_to(closed / "open")
        assert blocked_ancestor(open_place) is None
        assert blocked_ancestor(link) == closed


def test_a_candidate_under_a_0700_folder_is_passed_over_saying_why(closed):
    chosen, refused = open_parent([closed / "open", *candidate_parents()])
    assert chosen is not None and not chosen.is_relative_to(closed), chosen
    assert refused[0] == f"{closed / 'open'}: others may not pass through {closed}"


def test_with_no_open_candidate_ci_fails_and_elsewhere_it_skips_saying_why(closed, monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="others may not pass through"):
        with scratch_root(candidates=[closed / "open"]):
            pass
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="others may not pass through"):
        with scratch_root(candidates=[closed / "open"]):
            pass


def test_the_root_has_the_mode_asked_and_is_removed_afterwards():
    with scratch_root("hw-mode-", mode=0o1777) as folder:
        assert stat.S_IMODE(os.lstat(folder).st_mode) == 0o1777
        (folder / "deep" / "er").mkdir(parents=True)
    assert not os.path.lexists(folder)


def test_removal_never_follows_a_symlink_out_of_the_root(tmp_path):
    outside = tmp_path / "outside"
    (outside / "keep").mkdir(parents=True)
    (outside / "keep" / "file").write_text("kept")
    with scratch_root("hw-links-") as folder:
        (folder / "to-folder").symlink_to(outside / "keep")
        (folder / "inside").mkdir()
        (folder / "inside" / "to-file").symlink_to(outside / "keep" / "file")
    assert not os.path.lexists(folder)
    assert (outside / "keep" / "file").read_text() == "kept"


def test_a_root_replaced_meanwhile_is_left_alone(tmp_path):
    """The name now holds something this helper did not make (a symlink to another folder): nothing is removed."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "file").write_text("not ours")
    with scratch_root("hw-swapped-") as folder:
        folder.rmdir()
        folder.symlink_to(other)
    try:
        assert folder.is_symlink() and (other / "file").read_text() == "not ours"
    finally:
        folder.unlink()


def test_a_readable_copy_opens_what_the_original_kept_to_its_owner(closed):
    source = closed / "open" / "package"
    source.mkdir()
    (source / "private.py").write_text("x = 1\n")
    (source / "private.py").chmod(0o600)
    (source / "tool").write_text("#!/bin/sh\n")
    (source / "tool").chmod(0o700)
    with scratch_root("hw-copy-") as folder:
        copy = readable_copy(source, folder / "package")
        assert blocked_ancestor(copy / "private.py") is None
        assert stat.S_IMODE(os.stat(copy / "private.py").st_mode) == 0o644
        assert stat.S_IMODE(os.stat(copy / "tool").st_mode) == 0o755
    assert stat.S_IMODE(os.stat(source / "private.py").st_mode) == 0o600  # the original is never changed
