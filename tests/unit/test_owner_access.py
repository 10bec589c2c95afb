"""Who may read a file, decided as Linux decides it for that user (wizard/core/owner_access.py): the owner class
first, then the group class (every group the user is in, a POSIX ACL's named users and groups limited by its
mask), then others.  The real kernel's answer for the same files is compared in
tests/system/test_root_reads_as_owner.py; these pin the rule's corners on made-up files."""

from __future__ import annotations

import os
import stat

import pytest

from hermes_wizard.core.owner_access import READ, SEARCH, Reader, permits

ME, FRIEND, ROOT = 1000, 1001, 0
MY_GROUP, SHARED, WHEEL = 1000, 2000, 0


def made(mode: int, uid: int = ROOT, gid: int = WHEEL, kind: int = stat.S_IFREG) -> os.stat_result:
    return os.stat_result((kind | mode, 1, 1, 1, uid, gid, 0, 0, 0, 0))


def acl(*entries: tuple[int, int, int]) -> bytes:
    body = b"".join(tag.to_bytes(2, "little") + perm.to_bytes(2, "little") + ident.to_bytes(4, "little")
                    for tag, perm, ident in entries)
    return (2).to_bytes(4, "little") + body


ANY = 0xFFFFFFFF
USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
me = Reader(ME, frozenset({MY_GROUP, SHARED}))


@pytest.mark.parametrize("mode,readable", [(0o000, False), (0o200, False), (0o040, False), (0o004, False),
                                           (0o400, True), (0o600, True)])
def test_the_owner_gets_the_owner_bits_only(mode, readable):
    assert permits(me, made(mode, ME, MY_GROUP), READ) is readable


@pytest.mark.parametrize("gid,mode,readable", [
    (SHARED, 0o040, True),  # a supplementary group of mine
    (MY_GROUP, 0o040, True),  # my primary group, on someone else's file
    (WHEEL, 0o040, False),  # a group I am not in
    (WHEEL, 0o004, True),  # others
    (SHARED, 0o004, False),  # in the group: the group bits decide, not others'
])
def test_groups_are_every_group_the_user_is_in(gid, mode, readable):
    assert permits(me, made(mode, ROOT, gid), READ) is readable


def test_a_folder_must_grant_search():
    assert permits(me, made(0o751, ROOT, WHEEL, stat.S_IFDIR), SEARCH)
    assert not permits(me, made(0o750, ROOT, WHEEL, stat.S_IFDIR), SEARCH)


@pytest.mark.parametrize("entries,readable", [
    ([(USER_OBJ, 6, ANY), (USER, 4, ME), (GROUP_OBJ, 0, ANY), (MASK, 4, ANY), (OTHER, 0, ANY)], True),
    ([(USER_OBJ, 6, ANY), (USER, 4, ME), (GROUP_OBJ, 0, ANY), (MASK, 0, ANY), (OTHER, 0, ANY)], False),  # masked
    ([(USER_OBJ, 6, ANY), (USER, 0, ME), (GROUP_OBJ, 4, ANY), (MASK, 4, ANY), (OTHER, 4, ANY)], False),  # named: no
    ([(USER_OBJ, 6, ANY), (GROUP_OBJ, 0, ANY), (GROUP, 4, SHARED), (MASK, 4, ANY), (OTHER, 0, ANY)], True),
    ([(USER_OBJ, 6, ANY), (GROUP_OBJ, 0, ANY), (GROUP, 0, SHARED), (MASK, 4, ANY), (OTHER, 4, ANY)], False),
])
def test_a_posix_acl_decides_as_the_kernel(entries, readable):
    assert permits(me, made(0o600, ROOT, WHEEL), READ, acl(*entries)) is readable


def test_the_acl_owner_entry_is_the_owners_bits():
    assert not permits(me, made(0o000, ME, MY_GROUP), READ, acl((USER_OBJ, 0, ANY), (USER, 4, ME), (MASK, 4, ANY),
                                                              (GROUP_OBJ, 4, ANY), (OTHER, 4, ANY)))


def test_an_unreadable_acl_leaves_the_mode_bits_to_decide():
    assert permits(me, made(0o004), READ, b"\x01\x00") and not permits(me, made(0o000), READ, b"junk")
