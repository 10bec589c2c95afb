"""What a declaration, a secret move and a face may name is the judged Hermes's platforms, not 0.19's catalog.

0.20 added two bundled platforms (a2a, buzz: wizard/hermes/v0_20/model.py).  An answers file or `--platform`
flag naming one is accepted for a home judged as 0.20.1 and refused, with the file's line, for 0.19.0; their
secrets are platform secrets (moved to the keyring, masked) only where the judged Hermes knows them."""

from __future__ import annotations

import pytest

from hermes_wizard.hermes.models import model_of
from hermes_wizard.plan.answers_file.schema import AnswersError, declare
from hermes_wizard.plan.answers_file.tree import read_tree
from hermes_wizard.plan.keyring_steps import platform_secrets

BUZZ = b"""\
platforms:
  buzz:
    env: {BUZZ_RELAY_URL: "wss://relay.example", BUZZ_PRIVATE_KEY: {from_env: MY_BUZZ_PRIVATE_KEY}}
    allowed_users: [npub1alice]
"""


def test_an_answers_file_may_declare_a_platform_the_judged_hermes_knows():
    declared = declare(read_tree(BUZZ, "answers.yaml"), {"MY_BUZZ_PRIVATE_KEY": "nsec1secret"},
                       model_of("0.20.1").platforms())
    buzz = declared.platforms["buzz"]
    assert (buzz.values, buzz.allowed_users) == (
        {"BUZZ_RELAY_URL": "wss://relay.example", "BUZZ_PRIVATE_KEY": "nsec1secret"}, ("npub1alice",))
    assert declared.secrets() == ["nsec1secret"]


def test_a_platform_the_judged_hermes_does_not_know_is_refused_at_its_line():
    with pytest.raises(AnswersError) as refused:
        declare(read_tree(BUZZ, "answers.yaml"), {"MY_BUZZ_PRIVATE_KEY": "nsec1secret"}, model_of("0.19.0").platforms())
    assert refused.value.problems == ["answers.yaml:2: unknown platform 'buzz'; see the README for the names"]


def test_platform_secrets_are_the_judged_versions():
    assert "BUZZ_PRIVATE_KEY" in platform_secrets(model_of("0.20.1").platforms())
    assert "BUZZ_PRIVATE_KEY" not in platform_secrets(model_of("0.19.0").platforms())
    assert "TELEGRAM_BOT_TOKEN" in platform_secrets(model_of("0.19.0").platforms())
