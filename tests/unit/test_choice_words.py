"""Each access choice says what `access` then says: its words against the home written with that choice.

For every modelled version (the oracles' `VERSIONS`, as our side models them), every platform a face offers access
choices for, every DM choice and, on the platforms whose adapter has its own gate, every group policy: the choice
is made through the session the faces share (wizard/cases/fixing.py), applied to a new home, and the home is asked
as `access` asks it — the overview's DM and group sides, and single senders through the adapter's gate and the
authorizer.  The words the faces show for that choice (wizard/faces/choice_words.py) must claim exactly what
that answer is: "no group message is answered" where `access` says the adapter drops them, "anyone" where a
stranger gets through, "a one-time code" where a stranger's DM gets one, and so on.

Hermes 0.18 and later drop every WhatsApp and Weixin group message under `pairing`, and their group allowlist
names group chats, not people: words that said "only people approved by pairing are answered" there fail here.
"""

from __future__ import annotations

import time

import pytest
from oracle import VERSIONS, model_version

from hermes_wizard.cases.fixing import Fixing
from hermes_wizard.faces import choice_words as words
from hermes_wizard.hermes.access.authz import Sender
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.hermes.models import model_of
from hermes_wizard.hermes.versions import judgement
from hermes_wizard.judge.access import decide, load_view, platform_access
from hermes_wizard.plan.answers import GROUP_POLICIES, TOKEN_SHAPES

MODELLED = sorted({model_version(v) for v in VERSIONS})
DM_MODES = ("pairing", "allowlist", "open")
STRANGER, LISTED, CHAT = "15551230001", "15551230002", "120363999999999999"
LISTED_CHAT = "120363888888888888@g.us"  # the one chat a group allowlist names
# a value each credential accepts (the session refuses one of the wrong shape)
SAMPLES = {"TELEGRAM_BOT_TOKEN": "7123456789:AAHdemoTokenNotReal_0123456789abcd", "SLACK_BOT_TOKEN": "xoxb-1-2-abc",
           "SLACK_APP_TOKEN": "xapp-1-2-abc", "WEIXIN_ACCOUNT_ID": "b0f5demo@im.bot",
           "MATRIX_HOMESERVER": "https://matrix.example.org", "SIGNAL_HTTP_URL": "http://127.0.0.1:8080",
           "SIGNAL_ACCOUNT": "+15551234567", "EMAIL_ADDRESS": "bot@example.org"}
assert set(SAMPLES) == set(TOKEN_SHAPES)


def _platforms(version: str) -> list[str]:
    """The platforms a face asks who may use (an allowlist to choose), whose credentials can be typed."""
    return [name for name, spec in model_of(version).platforms().items()
            if spec.allowlist_env and spec.credentials and not spec.always_authorized]


def _written(tmp_path, version: str, platform: str, mode: str, group: str | None):
    """A new home set up through the session with these choices, applied; `access`'s view of it."""
    home = tmp_path / f"{platform}-{mode}-{group}"
    facts = HostFacts(modules=None).judged_as(judgement(version, None, "given"))
    fixing = Fixing(home, base_env={}, facts=facts)
    session = fixing.session
    for key in session.report.model.platforms()[platform].credentials:
        if not key.endswith("_ENABLED"):
            assert session.type_value(platform, key, SAMPLES.get(key, "demo-value-1234567890")) is None
    session.set_access(platform, mode, [LISTED] if mode == "allowlist" else [], confirm=platform)
    if group is not None:
        session.set_group(platform, group, confirm=platform, chats=[LISTED_CHAT] if group == "allowlist" else [])
    fixing.apply(fixing.propose(), reason="test")
    view = load_view(home, base_env={}, facts=facts)
    assert platform in view.report.effective.enabled(), f"{platform} is not enabled by the choice"
    row = next(r for r in platform_access(view, time.time()) if r.name == platform)
    return view, row


def _through(view, sender: Sender) -> bool:
    """`access PLATFORM SENDER`'s answer: the adapter forwards the message (where it gates it) and it is authorized."""
    effective = view.report.effective
    forwarded, _ = view.authorizer.intake(effective.environ, effective.platforms, view.files, sender)
    if forwarded is None:  # no per-message gate modelled (WhatsApp Cloud's DMs): its gate by policy
        side = "dm" if sender.chat_type == "dm" else "group"
        gate = view.authorizer.gate(effective.environ, effective.platforms, sender.platform, side)
        forwarded = gate is None or gate[0] == "forwards"
    return forwarded and decide(view, sender).authorized


def _forwarded(view, platform: str, chat: str) -> bool:
    """Whether the adapter forwards a stranger's message in group `chat`."""
    effective = view.report.effective
    return view.authorizer.intake(effective.environ, effective.platforms, view.files,
                                  Sender(platform, STRANGER, "group", chat))[0] is True


def _dm_claims(text: str) -> dict[str, bool]:
    return {"anyone": words.ANYONE in text, "nobody": words.NOBODY_IN_DMS in text, "code": words.CODE in text,
            "ignored": words.IGNORED in text, "listed": words.ONLY_LISTED in text}


@pytest.mark.parametrize("version", MODELLED)
def test_each_dm_choice_says_what_access_then_says(version, tmp_path):
    model = model_of(version)
    wrong = []
    for platform in _platforms(version):
        for mode in DM_MODES:
            text = words.access_words(model, platform, mode)
            view, row = _written(tmp_path, version, platform, mode, None)
            effective = view.report.effective
            stranger = Sender(platform, STRANGER, "dm", STRANGER)
            stranger_in = _through(view, stranger)
            listed_in = _through(view, Sender(platform, LISTED, "dm", LISTED))
            forwarded = view.authorizer.intake(effective.environ, effective.platforms, view.files, stranger)[0]
            code = (not stranger_in and forwarded is not False
                    and view.authorizer.unauthorized_dm_behavior(effective.environ, effective.platforms, platform)
                    == "pair")
            nobody = bool(row.dm.disabled) or (mode == "allowlist" and not listed_in)
            truth = {"anyone": stranger_in and bool(row.dm.everyone), "nobody": nobody, "code": code,
                     "ignored": not (stranger_in or nobody or code), "listed": listed_in and not stranger_in}
            if _dm_claims(text) != truth:
                wrong.append(f"{platform} {mode}: says {_dm_claims(text)}, access {truth}\n  {text}")
    assert not wrong, f"Hermes {version}:\n" + "\n".join(wrong)


def _group_claims(text: str) -> dict[str, bool]:
    return {"nobody": words.NOBODY_IN_GROUPS in text, "anyone": words.ANYONE_IN_GROUPS in text,
            "chats": words.LISTED_CHATS in text, "anyone_there": words.ANYONE_IN_CHATS in text,
            "paired": words.PAIRED_IN_GROUPS in text, "opens_dms": words.OPENS_DMS in text}


@pytest.mark.parametrize("version", MODELLED)
def test_each_group_choice_says_what_access_then_says(version, tmp_path):
    model = model_of(version)
    wrong = []
    gated = [name for name in _platforms(version) if model.platforms()[name].gate is not None]
    assert {"whatsapp", "weixin"} <= set(gated)
    for platform in gated:
        for mode in DM_MODES:
            for policy in GROUP_POLICIES:
                text = words.group_words(model, platform, policy, mode)
                view, row = _written(tmp_path, version, platform, mode, policy)
                stranger_in = _through(view, Sender(platform, STRANGER, "group", CHAT))
                dm_opened = mode != "open" and bool(row.dm.everyone) and _through(
                    view, Sender(platform, STRANGER, "dm", STRANGER))
                dropped, chats = bool(row.group.disabled), bool(row.group.chats_only)
                # in the chat its list names, a stranger gets through where the overview says anyone does
                anyone_there = chats and _through(view, Sender(platform, STRANGER, "group", LISTED_CHAT))
                if policy == "allowlist":  # the chat the wizard listed is forwarded, and `access` names it
                    assert chats and row.group.chats == (LISTED_CHAT,), (platform, mode, row.group)
                    assert _forwarded(view, platform, LISTED_CHAT), (platform, mode)
                    assert not _forwarded(view, platform, CHAT), (platform, mode)
                truth = {"nobody": dropped, "anyone": stranger_in and bool(row.group.everyone), "chats": chats,
                         "anyone_there": anyone_there, "paired": not (dropped or stranger_in or anyone_there),
                         "opens_dms": dm_opened}
                if chats:  # the chats the wizard never lists are dropped, whoever sends
                    assert not stranger_in
                if _group_claims(text) != truth:
                    wrong.append(f"{platform} dm {mode}, group {policy}: says {_group_claims(text)}, access {truth}"
                                 f"\n  {text}")
    assert not wrong, f"Hermes {version}:\n" + "\n".join(wrong)
