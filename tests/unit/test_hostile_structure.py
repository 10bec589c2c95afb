"""Hostile structure (answered within bounds, never a hang or a traceback): a self-referencing YAML alias, JSON nested
thousands deep.

Each home is judged in a child process, as a user or systemd runs it, with a wall-clock bound: the point
is that `check`, `check --gate` and `doctor` answer at once (no hang at 2 GB, no exit 70), with the verdict
the real Hermes reaches.  What Hermes does with each home is pinned against the oracles in
tests/support/oracle/cases.py (the `hostile-*` cases; the real `hermes gateway run` in tests/conformance/test_probe.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VERSIONS = ("0.19.0", "0.18.2")
W = "WEIXIN_ACCOUNT_ID=test-bot@im.bot\nWEIXIN_TOKEN=dummy-ilink-token-123456\n"
OPEN = W + "WEIXIN_DM_POLICY=open\n"  # a real refusal in .env
DEEP = "[" * 3000 + "]" * 3000
BOUND = 5.0  # seconds: loose on purpose, the defect was minutes


def wizard(*argv: str, timeout: float = 20) -> tuple[int, str, float]:
    """`python -m hermes_wizard ARGV` in a child: (exit code, stdout + stderr, seconds)."""
    start = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-m", "hermes_wizard", *argv], capture_output=True, text=True,
                              timeout=timeout, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    except subprocess.TimeoutExpired:
        return -1, f"still running after {timeout} s", time.monotonic() - start
    return done.returncode, done.stdout + done.stderr, time.monotonic() - start


def make_home(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    if (root / ".env").exists():
        (root / ".env").chmod(0o600)
    return root


def judged(home: Path, version: str) -> dict[str, tuple[int, str, float]]:
    """check, check --gate and doctor on one home, each with its time."""
    pin = ["--hermes-version", version]
    return {"check": wizard("check", "--home", str(home), *pin),
            "gate": wizard("check", "--gate", "--home", str(home), *pin),
            "doctor": wizard("doctor", "--home", str(home), "--plain", *pin)}


# --- deep JSON: Hermes's json.load raises RecursionError and it treats the file as unreadable ---------------
DEEP_JSON_HOMES = {
    "gateway_state.json": {".env": OPEN, "gateway_state.json": DEEP},
    "gateway.json": {".env": OPEN, "gateway.json": DEEP},
    "creds.json": {".env": OPEN + "WHATSAPP_ENABLED=true\n", "whatsapp/session/creds.json": DEEP},
    "weixin account file": {".env": "WEIXIN_ACCOUNT_ID=test-bot@im.bot\nWEIXIN_DM_POLICY=open\n",
                            "weixin/accounts/test-bot@im.bot.json": DEEP},
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("where", list(DEEP_JSON_HOMES))
def test_deep_json_never_hides_the_env_refusal(tmp_path, where, version):
    home = make_home(tmp_path / "home", DEEP_JSON_HOMES[where])
    answers = judged(home, version)
    for face, (code, out, seconds) in answers.items():
        assert code != 70 and "internal error" not in out and "Traceback" not in out, f"{face}: {out[-2000:]}"
        assert seconds < BOUND, f"{face} took {seconds:.1f} s"
    assert answers["check"][0] == 78, answers["check"][1][-2000:]
    assert answers["gate"][0] == 78, answers["gate"][1][-2000:]  # before: 'could not judge', exit 0
    assert "weixin" in answers["gate"][1]


# --- a YAML collection that holds itself: the real `hermes gateway run` crashes (RecursionError) ------------
SELF_REFERENCING = {"list": "a: &a [*a]\n", "map": "a: &a {b: *a}\n",
                    "deeper": "model: x\nagents:\n  - name: &n\n      sub: [1, {again: *n}]\n"}


@pytest.mark.parametrize("version", VERSIONS + ("0.17.0",))  # 0.17 has no refusal, but crashes the same way
@pytest.mark.parametrize("shape", list(SELF_REFERENCING))
def test_a_self_referencing_alias_is_answered_at_once(tmp_path, shape, version):
    home = make_home(tmp_path / "home", {".env": OPEN, "config.yaml": SELF_REFERENCING[shape]})
    answers = judged(home, version)
    for face, (code, out, seconds) in answers.items():
        assert seconds < BOUND, f"{face} took {seconds:.1f} s (before: still running after 60 s at 2 GB)"
        assert code != 70 and "internal error" not in out and "Traceback" not in out, f"{face}: {out[-2000:]}"
    code, out, _ = answers["check"]
    assert code == 78 and "HW021" in out and "crashes at start" in out and "config.yaml line" in out, out[-2000:]
    code, out, _ = answers["gate"]  # a crash is gated like a refusal (wizard/faces/gate.py)
    assert code == 78 and "would crash at start" in out, out[-2000:]
    code, out, seconds = wizard("doctor", "--fix", "--yes", "--home", str(home), "--hermes-version", version)
    assert seconds < BOUND and code != 70 and "Traceback" not in out, out[-2000:]


@pytest.mark.parametrize("shape", list(SELF_REFERENCING))
def test_the_yaml_writer_refuses_a_self_referencing_file(shape):
    """Comparing or copying a structure that contains itself recurses without end: the writer refuses such a
    config.yaml with its own error (a ValueError every planner catches), never a RecursionError (exit 70)."""
    from hermes_wizard.plan.yamledit import YamlEditError, append_value, set_value

    text = SELF_REFERENCING[shape] + "platforms:\n  weixin:\n    dm_policy: open\n"
    with pytest.raises(YamlEditError, match="alias inside its own anchor"):
        set_value(text, ("platforms", "weixin", "dm_policy"), "pairing")
    with pytest.raises(YamlEditError, match="alias inside its own anchor"):
        append_value(text, ("platforms", "weixin", "allow_from"), "123")


def alias_bomb(top: str) -> str:
    """A config.yaml whose aliases expand to 9**10 nodes, as a list or under a mapping's key."""
    lines = ["- &a0 [x, x, x, x, x, x, x, x, x]"] + [f"- &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]"
                                                    for i in range(1, 10)]
    return "\n".join(lines) + "\n" if top == "list" else "bomb:\n" + "".join(f"  {line}\n" for line in lines)


BOMB_HOMES = {top: {".env": OPEN, "config.yaml": alias_bomb(top)} for top in ("mapping", "list")}


@pytest.mark.parametrize("top", list(BOMB_HOMES))
def test_an_alias_bomb_hangs_hermes_whatever_its_top_level(tmp_path, top):
    """Importing gateway.run expands ${VAR} over config.yaml whatever its top level (a list too): the real
    gateway hung past 60 s on a 9**10-node list (0.19.0 and 0.18.2). check says so at once, and the gate stops it."""
    home = make_home(tmp_path / "home", BOMB_HOMES[top])
    answers = judged(home, "0.19.0")
    for face, (code, out, seconds) in answers.items():
        assert seconds < BOUND and code != 70 and "Traceback" not in out, f"{face} ({seconds:.1f} s): {out[-2000:]}"
    assert answers["check"][0] == 78 and "never finishes" in answers["check"][1], answers["check"][1][-2000:]
    assert answers["gate"][0] == 78, answers["gate"][1]
