"""The plugin venvs (scripts/plugin-venv.sh: a real Hermes with hermes-wizard installed into it, plus keyrings.alt)
and `Box`, a temp user with a Hermes home and a file keyring that runs their commands.

Which Hermes: `PLUGIN_HERMESES` names each venv's variable and command (0.20.1 is the repackaged upstream release,
`hermesx`; 0.22.2 the fork packaging the main line).  `plugin_hermes(version)` is the venv when scripts/test.sh
made it, else None; `require(version)` skips without it (a test of the real Hermes is marked `oracle`, so under
CI=true that skip fails).  The keyring is keyrings.alt's plaintext file in a temp XDG_DATA_HOME, chosen
explicitly (PYTHON_KEYRING_BACKEND): never the machine's keyring.
"""

from __future__ import annotations

import base64
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import oracle
import pytest

from hermes_wizard.core import keyring_store

TOKEN = "7654321:AAHplugin-test-SECRET-value_x9"
# version -> (the variable scripts/test.sh exports, the console script that runs that Hermes)
PLUGIN_HERMESES = {"0.19.0": ("HERMES_PLUGIN_VENV", "hermes"), "0.20.1": ("HERMES_PLUGIN_VENV_0_20_1", "hermesx"),
                   "0.22.2": ("HERMES_PLUGIN_VENV_0_22_2", "hermes")}


@dataclass(frozen=True)
class PluginHermes:
    version: str
    venv: Path
    command: str  # `hermes`, or `hermesx` for the repackaged 0.20.1

    @property
    def python(self) -> str:
        return str(self.venv / "bin" / "python")


def plugin_hermes(version: str) -> PluginHermes | None:
    variable, command = PLUGIN_HERMESES[version]
    venv = os.environ.get(variable)
    if not venv or not (Path(venv) / "bin" / command).exists():
        return None
    return PluginHermes(version, Path(venv), command)


def require(version: str) -> PluginHermes:
    found = plugin_hermes(version)
    if found is None:
        variable = PLUGIN_HERMESES[version][0]
        pytest.skip(f"{variable} is not set (scripts/test.sh makes it with scripts/plugin-venv.sh {version})")
    return found


class Box:
    """A temp user with a Hermes home and a file keyring, and the plugin venv's commands."""

    def __init__(self, root: Path, hermes: PluginHermes, source_home: Path | None = None,
                 home: Path | None = None) -> None:
        """`home`: where the Hermes home is (default `root/hermes-home`; a named profile is `.../profiles/NAME`)."""
        self.root = root
        self.hermes = hermes
        self.home = home or root / "hermes-home"
        if source_home is not None:
            shutil.copytree(source_home, self.home, symlinks=True)
        else:
            self.home.mkdir(parents=True)
        self.env = oracle.clean_env(root / "scratch", hermes_home=self.home)
        self.env |= {"XDG_DATA_HOME": str(root / "keyring-data"),
                     "PYTHON_KEYRING_BACKEND": "keyrings.alt.file.PlaintextKeyring"}
        self.bin = hermes.venv / "bin"
        self.outputs: list[str] = []

    def run(self, *argv: str, extra: dict | None = None, stdin: str = "", timeout: float = 120):
        """`argv[0]` is a program of the venv (`hermes` stands for this Hermes's own command) or a full path."""
        name = self.hermes.command if argv[0] == "hermes" else argv[0]
        program = name if name.startswith("/") else str(self.bin / name)
        proc = subprocess.run([program, *argv[1:]], env=self.env | (extra or {}), cwd=self.root, input=stdin,
                              capture_output=True, text=True, timeout=timeout)
        self.outputs.append(proc.stdout + proc.stderr)
        return proc

    def python(self, script: str, *args: str, extra: dict | None = None, stdin: str = ""):
        path = self.root / "driver.py"
        path.write_text(script)
        return self.run("python", str(path), *args, extra=extra, stdin=stdin)

    def keyring_home(self, token: str = TOKEN) -> None:
        """Telegram with its token ONLY in the keyring; config.yaml maps it and enables the plugin."""
        (self.home / ".env").write_text("TELEGRAM_ALLOWED_USERS=12345\n")
        service, username = keyring_store.entry_for(self.home, "TELEGRAM_BOT_TOKEN")
        (self.home / "config.yaml").write_text(
            f"plugins:\n  enabled: [{keyring_store.PLUGIN_NAME}]\nsecrets:\n  {keyring_store.SOURCE_NAME}:\n"
            f"    enabled: true\n    env:\n      TELEGRAM_BOT_TOKEN: {{service: {service}, username: '{username}'}}\n")
        self.store(service, username, token)

    def store(self, service: str, username: str, value: str) -> None:
        stored = self.python("import sys\nfrom hermes_wizard.core import keyring_store as k\n"
                             "k.store(sys.argv[1], sys.argv[2], sys.stdin.read())\n", service, username, stdin=value)
        assert stored.returncode == 0, stored.stderr

    def gateway(self, marker: str, extra: dict | None = None, seconds: float = 120) -> str:
        """The real `hermes gateway run -v` until `marker` shows in its log (or `seconds`), then SIGTERM."""
        log = self.root / f"gateway-{len(self.outputs)}.log"
        with open(log, "w") as sink:
            proc = subprocess.Popen([str(self.bin / self.hermes.command), "gateway", "run", "-v"],
                                    env=self.env | (extra or {}), cwd=self.root, stdin=subprocess.DEVNULL,
                                    stdout=sink, stderr=subprocess.STDOUT, start_new_session=True)
            try:
                deadline = time.monotonic() + seconds
                while time.monotonic() < deadline and proc.poll() is None and marker not in log.read_text():
                    time.sleep(0.5)
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
        output = log.read_text(errors="replace")
        self.outputs.append(output)
        return output

    def assert_no_secret_leaked(self, token: str = TOKEN) -> None:
        needles = [token.encode(), base64.b64encode(token.encode())]
        for text in self.outputs:
            assert token not in text
        for folder in (self.home, self.root / "scratch"):
            for path in folder.rglob("*"):
                if path.is_file() and not path.is_symlink():
                    data = path.read_bytes()
                    assert not any(needle in data for needle in needles), f"the token is in {path}"
