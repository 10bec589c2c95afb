"""Which repairs doctor plans, and that each is judged by the same resolver as `check`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hermes_wizard.judge.engine import evaluate
from hermes_wizard.plan.changes import render_diff
from hermes_wizard.plan.repairs import RepairOptions, plan_repairs

DEMO = Path(__file__).resolve().parents[2] / "assets" / "homes" / "death-loop"
WEIXIN = "WEIXIN_ACCOUNT_ID=bot@im.bot\nWEIXIN_TOKEN=ilink-token-123456\n"


def home_with(tmp_path: Path, env: str = "", yaml_text: str | None = None) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".env").write_text(env)
    (home / ".env").chmod(0o600)
    if yaml_text is not None:
        (home / "config.yaml").write_text(yaml_text)
    return home


def keys(repair) -> dict[tuple[str, str], str | None]:
    return {(c.file, c.key): c.after for c in repair.plan.changes}


def test_demo_home_plan_is_the_minimal_safe_one(tmp_path):
    home = tmp_path / "demo"
    shutil.copytree(DEMO, home)
    (home / ".env").chmod(0o600)
    repair = plan_repairs(evaluate(home))
    assert keys(repair) == {(".env", "WEIXIN_DM_POLICY"): "pairing", (".env", "WHATSAPP_ENABLED"): "false"}
    assert repair.after.would_start and {r.name for r in repair.after.rows if r.enabled} == {"telegram", "weixin"}
    diff = render_diff(repair.plan)
    assert "-WEIXIN_DM_POLICY=open\n+WEIXIN_DM_POLICY=pairing" in diff
    assert "ilink-token" not in diff and "AAHdemo" not in diff


def test_open_policy_in_yaml_is_fixed_in_yaml(tmp_path):
    home = home_with(tmp_path, WEIXIN, "platforms:\n  weixin:\n    extra:\n      dm_policy: open  # c\n")
    repair = plan_repairs(evaluate(home))
    assert keys(repair) == {("config.yaml", "platforms.weixin.extra.dm_policy"): "pairing"}
    assert repair.after.would_start


def test_every_open_place_is_closed_when_several_hold_it(tmp_path):
    home = home_with(tmp_path, WEIXIN + "WEIXIN_GROUP_POLICY=open\n",
                     "weixin:\n  dm_policy: Open\nplatforms:\n  weixin:\n    extra:\n      dm_policy: open\n")
    repair = plan_repairs(evaluate(home))
    assert keys(repair) == {(".env", "WEIXIN_GROUP_POLICY"): "pairing", ("config.yaml", "weixin.dm_policy"): "pairing",
                            ("config.yaml", "platforms.weixin.extra.dm_policy"): "pairing"}
    assert repair.after.would_start


@pytest.mark.parametrize("choice, expected", [
    ("optin", {(".env", "WEIXIN_ALLOW_ALL_USERS"): "true"}),
    ("allowlist", {(".env", "WEIXIN_DM_POLICY"): "allowlist"}),
])
def test_open_policy_choices(tmp_path, choice, expected):
    home = home_with(tmp_path, WEIXIN + "WEIXIN_DM_POLICY=open\nWEIXIN_ALLOWED_USERS=u1@im.wechat\n")
    repair = plan_repairs(evaluate(home), RepairOptions(open_policy=choice))
    assert keys(repair) == expected and repair.after.would_start


def test_never_a_global_or_wildcard_opt_in(tmp_path):
    home = home_with(tmp_path, WEIXIN + "WEIXIN_DM_POLICY=open\nWECOM_BOT_ID=b\nWECOM_SECRET=s\nWECOM_DM_POLICY=open\n"
                     "WEIXIN_ALLOWED_USERS=u1@im.wechat\nWECOM_ALLOWED_USERS=u2\n")
    for choice in ("pairing", "allowlist", "optin"):
        repair = plan_repairs(evaluate(home), RepairOptions(open_policy=choice))
        assert all(c.key != "GATEWAY_ALLOW_ALL_USERS" and c.after != "*" for c in repair.plan.changes)
        assert repair.after.would_start


def test_allow_all_spelled_on_is_never_opened_by_default(tmp_path):
    """Hermes does not read `on`: the platform is closed, so --yes closes it (pairing) and says how to keep
    it open on purpose; only --open-policy optin respells it."""
    home = home_with(tmp_path, WEIXIN + "WEIXIN_DM_POLICY=open\nWEIXIN_ALLOW_ALL_USERS=on\n")
    repair = plan_repairs(evaluate(home))
    assert keys(repair) == {(".env", "WEIXIN_DM_POLICY"): "pairing"}
    assert any("'on' is not read" in note and "--open-policy optin" in note for note in repair.notes)
    assert repair.after.would_start and not repair.after.effective.environ.get("WEIXIN_ALLOW_ALL_USERS") == "true"
    optin = plan_repairs(evaluate(home), RepairOptions(open_policy="optin"))
    assert keys(optin) == {(".env", "WEIXIN_ALLOW_ALL_USERS"): "true"}
    assert optin.after.would_start


def test_doctor_fix_yes_never_respells_an_allow_all(tmp_path, capsys):
    from hermes_wizard.faces.cli import main

    home = home_with(tmp_path, WEIXIN + "WEIXIN_DM_POLICY=open\nWEIXIN_ALLOW_ALL_USERS=on\n")
    main(["doctor", "--fix", "--yes", "--home", str(home)])
    out = capsys.readouterr().out
    assert (home / ".env").read_text() == WEIXIN + "WEIXIN_DM_POLICY=pairing\nWEIXIN_ALLOW_ALL_USERS=on\n"
    assert "--open-policy optin" in out and "Verified: the gateway will start (weixin)" in out


def judged_as(home: Path, version: str):
    from hermes_wizard.hermes.loader.plugins import HostFacts
    from hermes_wizard.hermes.versions import judgement

    facts = HostFacts.detect(home)
    facts = facts.judged_as(judgement(version, None, "given"))
    return evaluate(home, facts=facts)


def test_weixin_without_token_is_disabled_by_commenting_out_its_credentials(tmp_path):
    """Up to 0.20.1 Weixin's env credentials enable it whatever YAML says: they are commented out."""
    home = home_with(tmp_path, "WEIXIN_ACCOUNT_ID=bot@im.bot\nWEIXIN_DM_POLICY=open\nTELEGRAM_BOT_TOKEN=123:abcdef\n")
    repair = plan_repairs(judged_as(home, "0.20.1"))
    assert {c.key: c.action for c in repair.plan.changes} == {"WEIXIN_ACCOUNT_ID": "disable"}
    assert repair.after.would_start
    assert [r.name for r in repair.after.rows if r.enabled] == ["telegram"]
    keep = plan_repairs(judged_as(home, "0.20.1"), RepairOptions(dead_transport="keep"))
    assert keys(keep) == {(".env", "WEIXIN_DM_POLICY"): "pairing"}


def test_on_the_main_line_an_explicit_disable_keeps_the_credentials(tmp_path):
    """From 0.21 an explicit `enabled: false` beats env credentials: the repair writes it and leaves .env alone."""
    home = home_with(tmp_path, "WEIXIN_ACCOUNT_ID=bot@im.bot\nWEIXIN_DM_POLICY=open\nTELEGRAM_BOT_TOKEN=123:abcdef\n")
    repair = plan_repairs(judged_as(home, "0.21.3"))
    assert keys(repair) == {("config.yaml", "platforms.weixin.enabled"): "false"}
    assert repair.after.would_start
    assert [r.name for r in repair.after.rows if r.enabled] == ["telegram"]


def test_whatsapp_enabled_only_by_yaml_extras_needs_yaml_disable(tmp_path):
    home = home_with(tmp_path, "", "whatsapp:\n  dm_policy: open\n  require_mention: true\n")
    report = evaluate(home)
    if "whatsapp" not in [r.name for r in report.rows if r.enabled]:
        pytest.skip("no Node.js on this host: Hermes would not enable WhatsApp from YAML extras")
    repair = plan_repairs(report)
    assert ("config.yaml", "whatsapp.enabled") in keys(repair)
    assert repair.after.would_start and "whatsapp" not in [r.name for r in repair.after.rows if r.enabled]


def test_loose_env_mode_is_tightened(tmp_path):
    home = home_with(tmp_path, "TELEGRAM_BOT_TOKEN=123:abcdef\n")
    (home / ".env").chmod(0o644)
    repair = plan_repairs(evaluate(home))
    assert [(c.action, c.after) for c in repair.plan.changes] == [("mode", "0600")]


def test_healthy_home_needs_nothing(tmp_path):
    home = home_with(tmp_path, "TELEGRAM_BOT_TOKEN=123:abcdef\nTELEGRAM_ALLOWED_USERS=42\n")
    repair = plan_repairs(evaluate(home))
    assert not repair.plan and repair.notes == ()
