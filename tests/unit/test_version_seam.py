"""A Hermes version is a package: what its model answers is what the engine, the gate and the checks use.

The check here swaps the model of 0.19.0 for one that answers two things differently — no open-policy
startup refusal (0.17 has none) and one platform fewer (0.17 has fewer plugin platforms) — and asks the
same home again.  Before the seam was real, the engine always used the shared 0.19 gate and catalog, so
the answers of the judged version's model never reached the verdict.
"""

from __future__ import annotations

import shutil

import pytest

from hermes_wizard.core.bundled import example_home
from hermes_wizard.faces.fastargs import GATE_FLAGS, check_args
from hermes_wizard.faces.gate import run_gate
from hermes_wizard.hermes import models
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.hermes.v0_19.model import Hermes019
from hermes_wizard.hermes.versions import MODELLED, judgement
from hermes_wizard.judge.engine import evaluate


class WithoutRefusalOrTelegram(Hermes019):
    """0.19.0 as a version that never refuses an open policy and has no Telegram."""

    has_startup_refusal = False

    def platforms(self):
        return {name: spec for name, spec in super().platforms().items() if name != "telegram"}


@pytest.fixture
def home(tmp_path):
    copy = tmp_path / "home"
    shutil.copytree(example_home(), copy)  # the demo: Weixin (and WhatsApp) open without opt-in: 0.19 refuses
    return copy


def _judged(home):
    return evaluate(home, facts=HostFacts(hermes=judgement("0.19.0", None, "given")))


def _gate(home, capsys) -> int:
    code = run_gate(check_args(["--gate", "--home", str(home), "--hermes-version", "0.19.0"], GATE_FLAGS))
    capsys.readouterr()
    return int(code)


def test_the_engine_and_the_gate_judge_with_the_judged_versions_model(home, monkeypatch, capsys):
    real = _judged(home)
    refused = [v.platform for v in real.violations]
    assert not real.would_start and "weixin" in refused
    assert "telegram" in {row.name for row in real.rows}
    assert _gate(home, capsys) == 78

    swapped = WithoutRefusalOrTelegram()
    monkeypatch.setitem(models._LOADED, "0.19.0", swapped)
    judged = _judged(home)
    assert judged.model is swapped
    assert judged.would_start and not judged.violations  # the model says: no refusal in this version
    assert [v.platform for v in judged.upgrade_violations] == refused  # kept as what an upgrade refuses
    assert "telegram" not in {row.name for row in judged.rows}  # the model's platforms, not the catalog's
    assert "HW101" not in {f.code for f in judged.findings} and "HW150" in {f.code for f in judged.findings}
    assert _gate(home, capsys) == 0  # `check --gate` asks the same model


def test_checks_read_platform_facts_from_the_judged_model(home, monkeypatch):
    (home / ".env").write_text((home / ".env").read_text() + "TELEGRAM_ALLOW_ALL_USERS=on\n")
    assert "telegram" in {f.platform for f in _judged(home).findings if f.code == "HW102"}
    monkeypatch.setitem(models._LOADED, "0.19.0", WithoutRefusalOrTelegram())
    assert "telegram" not in {f.platform for f in _judged(home).findings if f.code == "HW102"}


@pytest.mark.parametrize("version", [*MODELLED, None, "0.9.0", "0.16.4", "0.17.9", "0.18.3", "0.19.1rc1", "0.20.0",
                                     "1.2.3", "not a version"])
def test_whether_hermes_refuses_is_one_answer(version):
    """The engine and the gate ask the judging model; the version string's reading (used in wording for a
    version that is not modelled) says the same for every version, modelled or not."""
    judged = judgement(version, None, "given")
    assert models.refuses_at_start(judged) == judged.refuses
