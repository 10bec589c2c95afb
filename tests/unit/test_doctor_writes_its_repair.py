"""A doctor given no answers writes exactly its repair: the session the faces share (wizard/plan/session.py)
reconciles answers over the repair, and with none given it drops nothing and adds nothing.

It once dropped every change to GATEWAY_ALLOW_ALL_USERS (the session never *sets* the global allow-all), the
repair's commenting out included: a UTF-16 `.env` converted for Hermes 0.18 then handed 0.18 a
GATEWAY_ALLOW_ALL_USERS=true it had never read, opening every platform.  The conformance sweep found it by
chance (the corpus here holds no such home); the named test below finds it every run."""

from __future__ import annotations

import homegen
import pytest
from oracle import VERSIONS, model_version
from oracle.cases import CASES

from hermes_wizard.cases.fixing import DoctorChoices, Fixing
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.hermes.versions import judgement
from hermes_wizard.plan.changes import ENV
from hermes_wizard.plan.repairs import RepairOptions

GENERATED = 100  # generated homes per version (each judged, repaired and previewed in-process)
TOKEN = "7123456789:AAHdemoTokenNotReal_0123"


def _fixing(home, version: str) -> Fixing:
    facts = HostFacts(modules=None).judged_as(judgement(version, None, "given"))
    return Fixing(home, mode="doctor", base_env={}, facts=facts)


@pytest.fixture(scope="module")
def homes(tmp_path_factory):
    root = tmp_path_factory.mktemp("doctor-writes-its-repair")
    found = [(f"hand-written {case.name!r}", case.write(root / case.name)) for case in CASES]
    found += [(repr(spec), spec.write(root / f"gen{i:03d}")) for i, spec in enumerate(homegen.corpus(GENERATED))]
    return found


@pytest.mark.parametrize("open_policy", ["pairing", "allowlist", "optin"])
@pytest.mark.parametrize("version", [model_version(v) for v in VERSIONS])
def test_the_doctors_plan_is_its_repair(homes, version, open_policy):
    differ = []
    for label, home in homes:
        fixing = _fixing(home, version)
        choices = DoctorChoices(RepairOptions(open_policy=open_policy), confirmed=None)
        proposal = fixing.propose(choices)
        assert proposal.repair is not None
        if proposal.plan.changes != proposal.repair.plan.changes:
            differ.append(f"{label}\n  repair:  {proposal.repair.plan.changes}\n  planned: {proposal.plan.changes}")
    assert not differ, f"{len(differ)} of {len(homes)} homes:\n" + "\n".join(differ[:3])


@pytest.mark.parametrize("value", ["true", "true ", "on"])
def test_a_converted_utf16_env_keeps_the_global_allow_all_unread(tmp_path, value):
    """0.18 reads a UTF-16 `.env` as UTF-8 and never sees its first key; converted, that key stays unread."""
    home = tmp_path / "home"
    home.mkdir()
    text = f'GATEWAY_ALLOW_ALL_USERS="{value}"\nTELEGRAM_BOT_TOKEN={TOKEN}\nTELEGRAM_ALLOWED_USERS=12345\n'
    (home / ENV).write_bytes(text.encode("utf-16"))
    (home / ENV).chmod(0o600)
    (home / "config.yaml").write_text("model:\n  default: x\n")
    fixing = _fixing(home, "0.18.2")
    assert fixing.report.snapshot.env.values.get("GATEWAY_ALLOW_ALL_USERS") is None  # Hermes 0.18 never read it
    applied = fixing.apply(fixing.propose(DoctorChoices(confirmed=None)), reason="test")
    written = (home / ENV).read_text(encoding="utf-8")
    assert written.startswith(f'#hermes-wizard-off: GATEWAY_ALLOW_ALL_USERS="{value}"\n'), written
    assert applied.report.snapshot.env.values.get("GATEWAY_ALLOW_ALL_USERS") is None
