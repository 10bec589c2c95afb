"""The session model under every face (wizard/plan/session.py): answers survive, choices reconcile per
platform, open always needs the typed name, and the report it shows is `check`'s on the written files —
for every combination of choices on the demo home, with the real Hermes agreeing on would-start."""

from __future__ import annotations

import itertools
import shutil

import oracle
import pytest
from oracle.compare import run_ours

from hermes_wizard.judge.engine import evaluate
from hermes_wizard.plan.changes import ENV, planned_contents
from hermes_wizard.plan.repairs import RepairOptions, plan_repairs
from hermes_wizard.plan.session import AnswerError, Session, open_to_everyone

TOKEN = "123456789:AAEhBP0av28c6kEX7b3ZpQ9rT1yU2iO3pLm"


def env_after(session) -> str:
    return planned_contents(session.plan()).get(ENV, b"").decode()


def test_typed_values_survive_a_revisit_and_an_invalid_one_never_reaches_the_plan(demo):
    session = Session(evaluate(demo))
    assert session.type_value("telegram", "TELEGRAM_BOT_TOKEN", "not a token") is not None
    assert session.answer("telegram").typed == {"TELEGRAM_BOT_TOKEN": "not a token"}  # kept as typed
    assert "not a token" not in env_after(session)
    assert session.type_value("telegram", "TELEGRAM_BOT_TOKEN", TOKEN) is None
    assert f"TELEGRAM_BOT_TOKEN={TOKEN}" in env_after(session)


def test_pairing_after_the_repairs_opt_in_leaves_no_allow_all(demo):
    session = Session(evaluate(demo), "doctor")
    repair = plan_repairs(session.report, RepairOptions(open_policy="optin"))
    session.set_repair(repair.plan.changes, confirmed=["weixin"])
    assert "WEIXIN_ALLOW_ALL_USERS=true" in env_after(session)
    session.set_access("weixin", "pairing")
    text = env_after(session)
    assert "WEIXIN_DM_POLICY=pairing" in text and "WEIXIN_ALLOW_ALL_USERS=true" not in text
    assert "weixin" not in open_to_everyone(session.outlook())


def test_the_repairs_opt_in_needs_each_platforms_name_typed(demo):
    session = Session(evaluate(demo), "doctor")
    session.set_repair(plan_repairs(session.report, RepairOptions(open_policy="optin")).plan.changes)
    assert session.needs_confirming() == ["weixin"]  # whatsapp is disabled by the repair (not paired)
    assert "WEIXIN_ALLOW_ALL_USERS" not in env_after(session)
    assert not session.outlook().would_start  # the truth: without the opt-in, Hermes still refuses
    session.set_repair(session.repair, confirmed=["WeChat"])  # not its name
    assert session.needs_confirming() == ["weixin"]
    session.set_repair(session.repair, confirmed=["weixin"])
    assert "WEIXIN_ALLOW_ALL_USERS=true" in env_after(session) and session.outlook().would_start
    session.set_repair(session.repair, confirmed=[])  # the name erased again: closed again
    assert "WEIXIN_ALLOW_ALL_USERS" not in env_after(session)


def judged_as(home, version: str):
    from hermes_wizard.hermes.loader.plugins import HostFacts
    from hermes_wizard.hermes.versions import judgement

    facts = HostFacts.detect(home)
    facts = facts.judged_as(judgement(version, None, "given"))
    return evaluate(home, facts=facts)


def test_disabled_turns_an_env_enabled_platform_off(demo):
    """Up to 0.20.1 Weixin is enabled by its credentials in .env whatever YAML says: "disabled" comments them out
    (reversibly), so the platform and its open policy are gone for Hermes (the DISABLE change used to be dropped
    as a no-op)."""
    session = Session(judged_as(demo, "0.20.1"))
    session.set_access("weixin", "disabled")
    assert "#hermes-wizard-off: WEIXIN_TOKEN=" in env_after(session)
    assert not any(f.platform == "weixin" and f.code == "HW101" for f in session.outlook().findings)


def test_disabled_on_the_main_line_is_an_explicit_yaml_disable(demo):
    """From 0.21 an explicit `enabled: false` beats env credentials: the credentials stay, YAML says off."""
    session = Session(judged_as(demo, "0.21.3"))
    session.set_access("weixin", "disabled")
    assert env_after(session) == "" and [(c.file, c.key, c.after) for c in session.plan().changes] == [
        ("config.yaml", "platforms.weixin.enabled", "false")]
    assert not any(f.platform == "weixin" and f.code == "HW101" for f in session.outlook().findings)


def test_open_needs_the_name_and_never_writes_the_global_allow_all(demo):
    session = Session(evaluate(demo))
    with pytest.raises(AnswerError):
        session.set_access("telegram", "open")
    with pytest.raises(AnswerError):
        session.set_access("telegram", "allowlist", [])
    session.set_access("telegram", "open", confirm="telegram")
    text = env_after(session)
    assert "TELEGRAM_ALLOW_ALL_USERS=true" in text and "GATEWAY_ALLOW_ALL_USERS" not in text
    assert "telegram" in open_to_everyone(session.outlook())


CHOICES = {"telegram": ["pairing", "allowlist", "open", "disabled"],
           "weixin": ["pairing", "allowlist", "open", "disabled", "unanswered"],
           "whatsapp": ["pairing", "disabled"]}
IDS = {"telegram": ["123456789"], "weixin": ["wxid_abc"], "whatsapp": ["15551234567"]}


@pytest.mark.oracle
def test_every_combination_on_the_demo_home_is_what_check_and_hermes_say(demo, tmp_path, monkeypatch):
    oracle.require_oracle()
    host = oracle.host_env(tmp_path / "scratch")
    for key, value in host.items():
        monkeypatch.setenv(key, value)
    homes, expected = [], []
    for i, combo in enumerate(itertools.product(*CHOICES.values())):
        session = Session(evaluate(demo, facts=None))
        for platform, mode in zip(CHOICES, combo):
            if mode == "unanswered":  # left as it is on disk: open without an opt-in
                continue
            session.set_access(platform, mode, IDS[platform] if mode == "allowlist" else (),
                               confirm=platform if mode == "open" else "")
        outlook = session.outlook()
        written = tmp_path / "written" / f"h{i:02d}"
        shutil.copytree(demo, written)
        for name, data in planned_contents(session.plan()).items():
            (written / name).write_bytes(data)
        rc, ours, raw = run_ours(written, host)
        assert ours is not None, raw[-2000:]
        simulated = [(f.code, f.platform) for f in outlook.findings]
        checked = [(f["code"], f["platform"]) for f in ours["findings"]]
        assert simulated == checked, (combo, simulated, checked)
        assert outlook.would_start is ours["would_start"], combo
        homes.append(written)
        expected.append((combo, outlook.would_start))
    answers = oracle.evaluate_batch(homes, tmp_path / "oracle")
    wrong = [(combo, ours, hermes["would_start"]) for (combo, ours), hermes in zip(expected, answers)
             if hermes["would_start"] is not ours]
    assert not wrong, wrong
    assert len(homes) == 40
    assert {start for _, start in expected} == {True, False}  # both verdicts are among the combinations
