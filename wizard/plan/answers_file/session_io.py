"""Declared platforms into a Session, and a Session's answers back out as an answers file.

`into_session(declared, session)` gives the session the same answers a person would give the TUI or
the prompts, so an answers file and the flags make the same Plan through the same reconciliation
(wizard/plan/session.py).  `render_answers(session, secret_env_names)` is the inverse: the text of an
answers file recording what the session chose, secrets referenced by an environment variable's name
and never written.

Contract: pure; AnswerError from the session passes through (the schema has ruled most of it out).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import yaml

from hermes_wizard.judge.masking import is_secret_name
from hermes_wizard.plan.answers_file.schema import Declared, PlatformDecl

if TYPE_CHECKING:
    from hermes_wizard.hermes.loader.catalog import Spec
    from hermes_wizard.plan.session import Session

HEADER = ("# hermes-wizard answers file: apply with `hermes-wizard setup --answers FILE`.\n"
          "# Secrets are not in this file: each {from_env: NAME} is read from the environment when applying.\n")


def into_session(declared: Declared, session: Session) -> None:
    """Answer, in `session`, every platform `declared` names (and where its secrets are kept)."""
    session.secrets_in_keyring = declared.secrets_store == "keyring"
    specs = session.report.model.platforms()
    for name, decl in declared.platforms.items():
        if not decl.enabled:
            session.set_access(name, "disabled")
            continue
        for key, value in decl.values.items():
            session.type_value(name, key, value)
        confirm = name if decl.allow_all else ""  # `allow_all: true` is the file's typed confirmation
        session.set_access(name, access_mode(decl, specs[name]), decl.allowed_users, confirm=confirm)
        if decl.group_policy is not None:
            session.set_group(name, decl.group_policy, confirm=confirm, chats=decl.group_chats)


def access_mode(decl: PlatformDecl, spec: Spec) -> str:
    """The session's access mode for a declared platform: its dm_policy; else allowlist when IDs are
    listed for a platform whose only gate is the gateway's allowlist, and pairing otherwise (a gated
    platform's adapter reads both its DM policy and the list; a platform without access control is
    only turned on, which pairing does without writing any policy)."""
    if decl.dm_policy:
        return decl.dm_policy
    return "allowlist" if decl.allowed_users and spec.gate is None else "pairing"


def render_answers(session: Session, secret_env_names: dict[str, str] | None = None) -> str:
    """The answers file recording `session`'s answers (not the doctor's repair: an answers file
    declares platforms).  A secret credential becomes {from_env: NAME}, NAME from `secret_env_names`
    (key → variable) or the key itself; credentials that failed their check are left out."""
    names = secret_env_names or {}
    platforms: dict[str, dict[str, object]] = {}  # the answers file's YAML, as written
    for name, answer in session.platforms.items():
        if answer.access == "disabled":
            platforms[name] = {"enabled": False}
            continue
        problems = session.credential_problems(name)
        env = {key: ({"from_env": names.get(key, key)} if is_secret_name(key) else value)
               for key, value in answer.typed.items() if value and key not in problems}
        if answer.access is None and answer.group is None and not env:
            continue  # visited, nothing chosen
        entry: dict[str, object] = {"enabled": True}
        if env:
            entry["env"] = env
        spec = session.report.model.platforms()[name]
        if spec.allowlist_env or spec.allow_all_env or spec.gate:  # the schema refuses access words elsewhere
            if answer.access is not None:
                entry["dm_policy"] = answer.access
            if answer.ids:
                entry["allowed_users"] = list(answer.ids)
        if answer.group is not None:
            entry["group_policy"] = answer.group
            if answer.chats:
                entry["group_chats"] = list(answer.chats)
        if answer.access == "open" or answer.group == "open":
            entry["allow_all"] = True
        platforms[name] = entry
    document: dict[str, object] = {"platforms": platforms}
    if session.secrets_in_keyring:
        document["secrets"] = "keyring"
    body = yaml.safe_dump(document, sort_keys=False, default_flow_style=False, allow_unicode=True)
    return HEADER + body
