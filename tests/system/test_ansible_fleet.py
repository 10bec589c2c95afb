"""The README's Ansible tasks, run by a real `ansible-playbook` (ansible-core from PyPI) on three homes.

The tasks are read out of README.md, so the documentation cannot drift from what is tested; only the
service restart is left out (there is no gateway unit here).  Three hosts with `connection: local` are
three Hermes homes: a new one, an empty folder, and one with an older token to rotate.  What a fleet
operator relies on: the first run reports changed on each host and the second ok; `--check` writes
nothing yet reports what would change; `--diff` shows the wizard's masked diff; a plan Hermes would
refuse fails its host with the verdict; no secret ever reaches Ansible's output.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow

README = Path(__file__).resolve().parents[2] / "README.md"
PLAYBOOK_BIN = Path(sys.executable).with_name("ansible-playbook")
TG_TOKEN = "7000000001:AAFleetTOKENmustNEVERbePRINTED_x1"
WX_TOKEN = "wx-fleet-SECRET-never-printed-7f3a"
OLD_TOKEN = "7000000002:AAOldTOKENmustNEVERbePRINTEDeither"
ANSWERS = """\
platforms:
  telegram:
    enabled: true
    env: {TELEGRAM_BOT_TOKEN: {from_env: TELEGRAM_BOT_TOKEN}}
    allowed_users: ["123456789"]
"""
RECAP = re.compile(r"^(\S+)\s*:\s*ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


def readme_tasks() -> list[dict]:
    """The YAML block that follows "A fleet (Ansible" in the README, without the service restart."""
    text = README.read_text()
    block = text[text.index("A fleet (Ansible"):]
    body = block[block.index("```yaml\n") + len("```yaml\n"):]
    tasks = yaml.safe_load(body[:body.index("```")])
    kept = [task for task in tasks if "ansible.builtin.systemd" not in task]
    assert len(kept) == len(tasks) - 1, "the README's fleet tasks changed shape"
    return kept


@pytest.fixture
def fleet(tmp_path: Path):
    if not PLAYBOOK_BIN.exists():
        pytest.skip("ansible-core is not installed in this venv (pip install -e '.[test]')")
    answers = tmp_path / "answers.yaml"
    answers.write_text(ANSWERS)
    homes = {"new": tmp_path / "new-home", "empty": tmp_path / "empty-home", "rotate": tmp_path / "rotate-home"}
    homes["empty"].mkdir()
    homes["rotate"].mkdir()
    (homes["rotate"] / ".env").write_text(f"TELEGRAM_BOT_TOKEN={OLD_TOKEN}\nTELEGRAM_ALLOWED_USERS=123456789\n")
    (homes["rotate"] / ".env").chmod(0o600)
    playbook = tmp_path / "site.yml"
    playbook.write_text(yaml.safe_dump([{"hosts": "all", "gather_facts": False, "tasks": readme_tasks()}]))
    return tmp_path, answers, homes, playbook


def inventory(where: Path, answers: Path, homes: dict[str, Path]) -> Path:
    hosts = {name: {"hermes_home": str(home), "hermes_answers": str(answers)} for name, home in homes.items()}
    path = where / f"inventory-{len(list(where.glob('inventory-*')))}.yml"
    path.write_text(yaml.safe_dump({"all": {
        "hosts": hosts,
        "vars": {"ansible_connection": "local", "ansible_python_interpreter": sys.executable,
                 "vault_telegram_token": TG_TOKEN, "vault_weixin_token": WX_TOKEN}}}))
    return path


def play(where: Path, inventory_file: Path, playbook: Path, *flags: str) -> tuple[dict[str, tuple[int, ...]], str]:
    """(per host: ok, changed, unreachable, failed; everything Ansible printed)."""
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
           "HOME": str(where), "ANSIBLE_HOME": str(where / ".ansible"), "ANSIBLE_LOCAL_TEMP": str(where / ".tmp"),
           "ANSIBLE_NOCOLOR": "1", "ANSIBLE_FORCE_COLOR": "0", "ANSIBLE_HOST_KEY_CHECKING": "0",
           "ANSIBLE_RETRY_FILES_ENABLED": "0"}
    done = subprocess.run([str(PLAYBOOK_BIN), "-i", str(inventory_file), str(playbook), *flags], env=env,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, cwd=where)
    said = done.stdout + done.stderr
    recap = {m.group(1): tuple(int(x) for x in m.groups()[1:]) for m in RECAP.finditer(said)}
    assert recap, said
    return recap, said


def files(homes: dict[str, Path]) -> dict[str, str]:
    out = {}
    for name, home in homes.items():
        for path in sorted(home.rglob("*")) if home.exists() else []:
            if path.is_file():
                out[f"{name}/{path.relative_to(home)}"] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def no_secret_in(said: str) -> None:
    for secret in (TG_TOKEN, WX_TOKEN, OLD_TOKEN):
        assert secret not in said
        assert secret[12:24] not in said  # not even a piece of it


def test_first_run_changes_each_host_and_the_second_changes_none(fleet):
    where, answers, homes, playbook = fleet
    hosts = inventory(where, answers, homes)
    first, said = play(where, hosts, playbook, "-v")
    no_secret_in(said)
    assert {host: (changed, failed) for host, (_, changed, _, failed) in first.items()} == \
           {"new": (1, 0), "empty": (1, 0), "rotate": (1, 0)}, said
    for home in homes.values():
        assert f"TELEGRAM_BOT_TOKEN={TG_TOKEN}" in (home / ".env").read_text()
    second, said = play(where, hosts, playbook, "-v")
    no_secret_in(said)
    assert {host: (changed, failed) for host, (_, changed, _, failed) in second.items()} == \
           {"new": (0, 0), "empty": (0, 0), "rotate": (0, 0)}, said


def test_check_mode_writes_nothing_and_diff_shows_the_masked_diff(fleet):
    where, answers, homes, playbook = fleet
    hosts = inventory(where, answers, homes)
    before = files(homes)
    checked, said = play(where, hosts, playbook, "--check")
    assert files(homes) == before and not homes["new"].exists()
    assert all(changed == 1 and failed == 0 for _, changed, _, failed in checked.values()), said
    assert "+TELEGRAM_ALLOWED_USERS=123456789" not in said  # without --diff, no diff
    diffed, said = play(where, hosts, playbook, "--check", "--diff")
    no_secret_in(said)
    assert files(homes) == before
    assert "+TELEGRAM_ALLOWED_USERS=123456789" in said  # the new homes' diff
    assert "+TELEGRAM_BOT_TOKEN=••••••" in said  # a new home's token: there, masked
    assert "~ TELEGRAM_BOT_TOKEN = (secret changed)" in said  # the rotated one: said, never shown
    assert "Dry run: nothing was written." in said


def test_a_plan_hermes_would_refuse_fails_its_host_with_the_verdict(fleet):
    where, answers, homes, playbook = fleet
    refusing = where / "open-whatsapp-home"
    refusing.mkdir()
    (refusing / ".env").write_text("WHATSAPP_ENABLED=true\nWHATSAPP_MODE=bot\nWHATSAPP_DM_POLICY=open\n")
    (refusing / ".env").chmod(0o600)
    before = (refusing / ".env").read_bytes()
    hosts = inventory(where, answers, {"refusing": refusing, "new": homes["new"]})
    recap, said = play(where, hosts, playbook)
    no_secret_in(said)
    assert recap["refusing"][3] == 1 and recap["new"][3] == 0, said  # only the refusing host fails
    assert "the gateway will refuse to start" in said and '"rc": 78' in said
    assert (refusing / ".env").read_bytes() == before and not (refusing / "config.yaml").exists()


def test_the_readme_tasks_are_valid_ansible(fleet):
    where, answers, homes, playbook = fleet
    done = subprocess.run([str(PLAYBOOK_BIN), "--syntax-check", "-i", str(inventory(where, answers, homes)),
                           str(playbook)], capture_output=True, text=True, timeout=120,
                          env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
                               "HOME": str(where), "ANSIBLE_HOME": str(where / ".ansible")})
    assert done.returncode == 0, done.stdout + done.stderr
    shutil.rmtree(where / ".ansible", ignore_errors=True)
