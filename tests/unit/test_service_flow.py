"""Loop evidence and doctor's service steps, against fake systemctl/journalctl (systemd 252 formats).

Covers: a loop in progress (NRestarts=1705) as check --service and doctor report it;
stop → repair → daemon-reload → restart → verified; a restart that loops again (reported,
not "fixed"); --dry-run printing the exact commands and running none; the Restart=on-failure
fallback on systemd < 251; a stop that fails (no user bus) being reported.
"""

from __future__ import annotations

import json

from fake_systemd import loop_journal
from service_box import UNIT, WIZARD, doctor, verbs  # box, the fixture, is tests/conftest.py's

from hermes_wizard.faces.cli import main
from hermes_wizard.service import loop
from hermes_wizard.service.systemd import Runner, parse_show, parse_version
from hermes_wizard.service.units import FALLBACK_DROPIN, GATE_DROPIN

# ---------------------------------------------------------------------------- parsing


def test_systemd_252_formats_parse():
    assert parse_version("systemd 252 (252.38-1~deb12u1)\n+PAM +AUDIT\n") == 252
    assert parse_version("systemd 245 (245.4-4ubuntu3.22)") == 245
    assert parse_version("") is None and parse_version("bash: systemctl: not found") is None
    props = parse_show("NRestarts=1705\nActiveState=activating\nSubState=auto-restart\nResult=success\n")
    assert props["NRestarts"] == "1705" and props["SubState"] == "auto-restart"


def test_evidence_sentence_names_the_restarts_and_the_refusal(tmp_path):
    evidence = loop.Evidence(UNIT, props={"NRestarts": "1705", "ActiveState": "activating",
                                          "SubState": "auto-restart"})
    evidence = loop.read_journal(evidence, loop_journal(UNIT, "weixin", 1705))
    assert evidence.looping and evidence.restarting_now
    assert loop.summary(evidence).startswith(
        "hermes-gateway.service has restarted 1,705 times; last reason: weixin open policy without opt-in")


def test_check_service_reports_the_loop_in_progress(box, capsys):
    fake, home, _ = box
    rc = main(["check", "--service", "--home", str(home), "--format", "json"])
    findings = {f["code"]: f for f in json.loads(capsys.readouterr().out)["findings"]}
    assert rc == 78
    assert findings["HW404"]["message"].startswith(
        "hermes-gateway.service has restarted 1,705 times; last reason: whatsapp open policy without opt-in")
    assert "40 starts within an hour in gateway-starts.log" in findings["HW404"]["message"]
    assert findings["HW404"]["fix"] == f"hermes-wizard doctor --home {home} --fix --install-gate --restart"
    assert verbs(fake) == ["systemctl show", "journalctl"]  # looking only
    assert fake.calls()[0] == ["systemctl", "--user", "show", "-p",
                               "NRestarts,ActiveState,SubState,Result,ExecMainStatus,ExecMainCode", UNIT]
    assert fake.calls()[1] == ["journalctl", "--user", "-u", UNIT, "-o", "cat", "-n", "200", "--no-pager"]


def test_no_loop_is_asserted_when_systemd_cannot_be_asked(box, capsys):
    """`systemctl show` fails (no user bus): the journal's old lines alone are no loop in progress.  HW404 once
    asserted one from them; it says the loop could not be checked, and why."""
    fake, home, dropins = box
    fake.state["fail"] = {"show": [1, "Failed to connect to bus: No medium found"]}
    fake.save()
    main(["check", "--service", "--home", str(home), "--format", "json"])
    loops = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["code"] == "HW404"]
    assert loops and all(f["severity"] != "error" and "has restarted" not in f["message"] for f in loops), loops
    said = " ".join(f["message"] for f in loops)
    assert "could not be checked" in said and "Failed to connect to bus" in said, said

    # a unit that does not restart a clean exit: only the journal could claim a loop, and the verdict does not
    unit = dropins.parent / UNIT
    unit.write_text(unit.read_text().replace("Restart=always", "Restart=on-failure"))
    main(["check", "--service", "--home", str(home)])
    out = capsys.readouterr().out
    assert "HW401" not in out and "could not be checked" in out, out
    assert "restarts it forever" not in out.splitlines()[-1], out


def test_no_unit_is_stopped_on_journal_lines_alone(box, capsys):
    """systemd cannot be asked (no user bus): the journal's refusals and restart counter are old news, so the
    doctor plans no stop of a loop it cannot see; it repairs the files, and says the loop could not be checked."""
    fake, home, _ = box
    fake.state["fail"] = {"show": [1, "Failed to connect to bus: No medium found"]}
    fake.save()
    assert loop.Evidence(UNIT, refusals=("refusing",), counter=40).may_be_looping is False
    rc, out = doctor(capsys, home, "--fix", "--yes")
    assert "systemctl stop" not in verbs(fake), (verbs(fake), out)
    assert "could not be checked" in out, out
    assert rc == 0, out


def test_doctor_report_shows_the_loop_and_changes_nothing(box, capsys):
    fake, home, dropins = box
    before = (home / ".env").read_text()
    rc, out = doctor(capsys, home, "--plain")
    assert rc == 1
    assert "[✗] HW404 service-restart-loop: hermes-gateway.service has restarted 1,705 times" in out
    assert f"Run `hermes-wizard doctor --fix --home {home} --wizard-path " in out  # the same home, the same plan
    assert verbs(fake) == ["systemctl show", "journalctl"] and (home / ".env").read_text() == before
    assert not dropins.exists()


# ---------------------------------------------------------------------------- acting


def test_stop_repair_reload_restart_verified(box, capsys):
    fake, home, dropins = box
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out
    assert verbs(fake) == ["systemctl show", "journalctl",  # evidence
                           "systemctl --version",  # planning: which drop-in this systemd needs
                           "systemctl stop", "systemctl reset-failed",  # the loop, before any edit
                           "systemctl daemon-reload",  # after the gate drop-in
                           "systemctl restart", "systemctl show", "journalctl"]  # restart + verify
    seen = {" ".join(e["argv"][:3]): e["seen"][str(home / ".env")] for e in fake.entries()}
    assert "WEIXIN_DM_POLICY=open" in seen["systemctl --user stop"]  # stopped before the repair
    assert "WEIXIN_DM_POLICY=pairing" in seen["systemctl --user restart"]  # restarted after it
    assert fake.calls()[-1][-2] == "--since" and fake.calls()[-1][-1].startswith("@")
    gate = (dropins / GATE_DROPIN).read_text()
    assert f'--home "{home}"' in gate and f'w="{WIZARD}"' in gate
    assert "Stopped hermes-gateway.service (the loop is over)." in out
    assert "Verified: the gateway is running" in out
    assert out.index("Stopped") < out.index("Backup:") < out.index("Wrote") < out.index("Verified: the gateway is")
    # a second run: nothing to do, nothing run but the look
    fake.log_path.write_text("")
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0 and "Nothing to fix." in out and "The gate is already in place" in out
    assert verbs(fake) == ["systemctl show", "journalctl"]


def test_restart_that_loops_again_is_reported_not_fixed(box, capsys):
    fake, home, _ = box
    fake.state["phases"]["restarted"] = {"show": {"Result": "success", "NRestarts": "0", "ExecMainCode": "1",
                                                  "ExecMainStatus": "0", "ActiveState": "active",
                                                  "SubState": "running"}, "climb": True,
                                         "journal": loop_journal(UNIT, "telegram", 1)}
    fake.save()
    rc, out = doctor(capsys, home, "--fix", "--yes")
    assert rc == 1
    assert "Not fixed:" in out and "the loop is not fixed" in out
    assert "the gateway is running" not in out
    assert "systemctl restart" in verbs(fake)


def test_dry_run_prints_the_exact_commands_and_runs_none(box, capsys):
    fake, home, dropins = box
    before = (home / ".env").read_text()
    rc, out = doctor(capsys, home, "--dry-run", "--install-gate")
    assert rc == 1
    assert fake.calls() == []
    commands = [line[2:] for line in out.splitlines() if line.startswith("$ ")]
    assert commands[:6] == ["systemctl --version",  # asked while planning: a dry run prints it, runs nothing
                            f"systemctl --user stop {UNIT}", f"systemctl --user reset-failed {UNIT}",
                            "systemctl --user daemon-reload",
                            f"systemctl --user restart {UNIT}",
                            f"systemctl --user show -p NRestarts,ActiveState,SubState,Result,ExecMainStatus,"
                            f"ExecMainCode {UNIT}"]
    assert commands[6].startswith(f"journalctl --user -u {UNIT} -o cat -n 200 --no-pager --since @")
    assert f"would write {dropins / GATE_DROPIN}" in out and "ExecCondition=/bin/sh -c" in out
    assert (home / ".env").read_text() == before and not dropins.exists()


def test_old_systemd_gets_the_restart_on_failure_fallback(box, capsys):
    fake, home, dropins = box
    fake.state["version"] = "systemd 249 (249.11-0ubuntu3.12)\n+PAM +AUDIT\n"
    fake.save()
    rc, out = doctor(capsys, home, "--fix", "--yes", "--install-gate")
    assert rc == 0, out
    assert "systemd 249 < 251" in out and sorted(p.name for p in dropins.iterdir()) == [FALLBACK_DROPIN]
    assert "Restart=on-failure" in (dropins / FALLBACK_DROPIN).read_text()


def test_a_stop_that_fails_is_reported_and_the_repair_still_lands(box, capsys):
    fake, home, _ = box
    fake.state["fail"] = {"stop": [1, "Failed to connect to bus: No medium found"]}
    fake.save()
    rc, out = doctor(capsys, home, "--fix", "--yes")
    assert rc == 1
    assert "Could not stop the loop" in out and "XDG_RUNTIME_DIR" in out
    assert "WEIXIN_DM_POLICY=pairing" in (home / ".env").read_text()


def test_restart_alone_on_a_healthy_running_service(box, capsys):
    fake, home, _ = box
    (home / ".env").write_text("TELEGRAM_BOT_TOKEN=1:x\nTELEGRAM_ALLOWED_USERS=42\n")
    (home / "config.yaml").unlink()
    fake.state["phase"] = "restarted"
    fake.save()
    rc, out = doctor(capsys, home, "--restart", "--yes")
    assert rc == 0, out
    assert "Verified: the gateway is running" in out
    assert "systemctl stop" not in verbs(fake)


def test_runner_reports_a_missing_command():
    result = Runner().run(["hermes-wizard-no-such-command-xyz"])
    assert result.rc == 127 and not result.ok and "not found" in result.why()


def test_a_start_stopped_by_the_gate_is_reported_as_such(box, capsys):
    fake, home, _ = box
    line = ("hermes-wizard gate: Hermes would refuse to start (whatsapp: open policy without allow-all opt-in: "
            f"dm_policy is open, WHATSAPP_ALLOW_ALL_USERS not set); not starting it. Fix: hermes-wizard doctor "
            f"--fix --yes --home {home}")
    fake.state["phases"]["loop"] = {"show": {"Result": "exec-condition", "NRestarts": "0", "ExecMainCode": "0",
                                             "ExecMainStatus": "0", "ActiveState": "inactive", "SubState": "dead"},
                                    "journal": [f"Starting {UNIT} - Hermes Agent Gateway...", line,
                                                f"{UNIT}: Skipped due to 'exec-condition'.",
                                                f"Condition check resulted in {UNIT} being skipped."]}
    fake.save()
    main(["check", "--service", "--home", str(home), "--format", "json"])
    findings = {f["code"]: f for f in json.loads(capsys.readouterr().out)["findings"]}
    assert findings["HW404"]["severity"] == "info"
    assert findings["HW404"]["message"].startswith(f"{UNIT} was not started: the hermes-wizard gate stopped it")


def test_the_verdict_claims_a_loop_only_where_this_homes_service_loops(box, tmp_path, capsys):
    """What is said is what happens: no text claims a loop that nothing runs or that a gate stops.  With the home's own
    looping unit the verdict says its service restarts it forever; once the gate drop-in is in place (or with no unit at
    all) it says only what a service restarting on success would do."""
    from hermes_wizard.judge.engine import evaluate
    from hermes_wizard.judge.report import verdict_clause

    fake, home, dropins = box
    looping = verdict_clause(evaluate(home))
    assert "exits 0, and its service restarts it forever" in looping
    assert doctor(capsys, home, "--install-gate", "--yes")[0] in (0, 1, 78)
    gated = verdict_clause(evaluate(home))
    assert "its service restarts it forever" not in gated and "(Hermes's own unit) restarts forever" in gated
