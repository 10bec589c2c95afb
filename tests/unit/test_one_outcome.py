"""One outcome sentence (ARCHITECTURE.md, "Contracts"): every headless face — answers file, flags, the plain prompts,
the doctor and the Hermes plugin — ends on `check`'s own verdict line for the files it wrote, "Verified" exactly when
`check` exits 0, over the same generated sessions (tests/support/one_outcome.py) on the demo home and on an empty home.
The TUI is held to the same rule in tests/tui/test_outcome_tui.py."""

from __future__ import annotations

import argparse
import contextlib

import pytest
from one_outcome import (
    IDS,
    answers_yaml,
    as_typed,
    flags_for,
    held_to_check,
    make_home,
    refused_to_write,
    sessions,
    typed,
    write_planned,
)
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from hermes_wizard.faces.cli import main
from hermes_wizard.hermes.loader.catalog import PLATFORMS

CTRL_U = "\x15"
CASES = [(kind, i, session) for kind in ("demo", "empty") for i, session in enumerate(sessions(kind))]
# The plain prompts build a prompt_toolkit Application per question (~15 ms of key bindings each, ~0.4 s a
# session): one session in four runs in the fast loop, all 80 without -m "not slow". The other faces run all 80.
PLAIN_CASES = [pytest.param(case, marks=() if case[1] % 4 == 0 else pytest.mark.slow) for case in CASES]


def _id(case) -> str:
    kind, i, session = case
    return f"{kind}-{i}-" + "-".join(f"{name[:2]}{mode[:2]}" for name, mode in session.items())


def _tree(home):
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


def _planned_copy(kind, session, home, where, monkeypatch):
    """The files the answers face would write for `session` (its own path: declare → Session → plan)."""
    import os

    from hermes_wizard.judge.engine import evaluate
    from hermes_wizard.plan.answers_file.schema import declare
    from hermes_wizard.plan.answers_file.session_io import into_session
    from hermes_wizard.plan.answers_file.tree import read_tree
    from hermes_wizard.plan.session import Session

    text, env = answers_yaml(kind, session)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    report = evaluate(home, "default")
    declared = declare(read_tree(text.encode(), "answers.yaml"), dict(os.environ), report.model.platforms())
    live = Session(report, "setup")
    into_session(declared, live)
    return write_planned(home, live.plan(), where)


def _answers_face(capsys, monkeypatch, kind, session, tmp_path, label, *, plugin=False):
    home = make_home(kind, tmp_path / ("plugin" if plugin else "answers"))
    text, env = answers_yaml(kind, session)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    answers = tmp_path / "answers.yaml"
    answers.write_text(text)
    before = _tree(home)
    capsys.readouterr()
    if plugin:
        code = _through_the_plugin(["setup", "--answers", str(answers)], home, monkeypatch)
    else:
        code = main(["setup", "--home", str(home), "--answers", str(answers)])
    out = capsys.readouterr().out
    if code == 78:
        assert _tree(home) == before, f"{label}: a refused plan was written"
        planned = _planned_copy(kind, session, home, tmp_path / ("p-plugin" if plugin else "p"), monkeypatch)
        refused_to_write(capsys, out, home, planned, label)
        return None
    held_to_check(capsys, out, home, label)
    return home


def _through_the_plugin(argv, home, monkeypatch) -> int:
    """`hermes wizard ARGV` as the plugin runs it inside Hermes (its handler, the active home, its wording)."""
    from hermes_wizard.core import safetext
    from hermes_wizard.faces import hermes_plugin

    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setattr(safetext, "_SPOKEN_AS", [])  # speak_as("hermes wizard") lasts for this test only
    with pytest.raises(SystemExit) as ended:
        hermes_plugin._run(argparse.Namespace(wizard_args=argv))
    return int(ended.value.code or 0)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_answers_file_plugin_and_doctor_end_on_checks_line(case, tmp_path, capsys, monkeypatch):
    kind, i, session = case
    label = f"answers {_id(case)}"
    written = _answers_face(capsys, monkeypatch, kind, session, tmp_path, label)
    _answers_face(capsys, monkeypatch, kind, session, tmp_path, f"plugin {_id(case)}", plugin=True)
    # the doctor, on the home the answers left (or the starting home when they were refused)
    home = make_home(kind, tmp_path / "doctor") if written is None else written
    capsys.readouterr()
    options = ["--dead-transport", "keep"] if i % 2 else []
    code = main(["doctor", "--fix", "--yes", "--no-verify", "--home", str(home), *options])
    out = capsys.readouterr().out
    if out.strip() == "Nothing to fix.":
        assert code == 0, out
        return
    if code != 78:
        held_to_check(capsys, out, home, f"doctor {_id(case)}")


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_flags_end_on_checks_line(case, tmp_path, capsys, monkeypatch):
    kind, _, session = case
    home = make_home(kind, tmp_path)
    argv, env = flags_for(kind, session)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    before = _tree(home)
    capsys.readouterr()
    code = main(["setup", "--home", str(home), *argv])
    out = capsys.readouterr().out
    if code == 78:
        assert _tree(home) == before and "Verified" not in out, out
        return
    held_to_check(capsys, out, home, f"flags {_id(case)}")


@contextlib.contextmanager
def _keys(typed_keys: str):
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text(typed_keys)
        yield


def plain_keys(kind: str, session: dict[str, str], *, refused: bool) -> str:
    """The keys a user presses in the plain face for `session`: each platform (typed to filter), its
    credentials, its access, its IDs or its name; then review, and yes — or, for a plan Hermes would refuse,
    Enter at "type write anyway" (back to the list) and quit."""
    keys = []
    for name, mode in session.items():
        keys.append(f"({name})\r")
        values = typed(kind, name)
        keys += [values.get(key, "") + "\r" for key in PLATFORMS[name].credentials if not key.endswith("_ENABLED")]
        keys.append(f"{mode}\r")
        if mode in ("allowlist", "pairing"):
            keys.append(CTRL_U + (IDS[name] if mode == "allowlist" else "") + "\r")
        if mode == "open":
            keys.append(f"{name}\r")
        if PLATFORMS[name].gate is not None and mode != "disabled":
            keys.append("\r")  # group chats: as the adapter applies them now
    keys.append("review\r")
    keys += ["\r", "quit\r"] if refused else ["y\r"]
    return "".join(keys)


@pytest.mark.parametrize("case", PLAIN_CASES, ids=_id)
def test_plain_prompts_end_on_checks_line(case, tmp_path, capsys):
    from hermes_wizard.faces.plain import run_plain

    kind, _, session = case
    label = f"plain {_id(case)}"
    home = make_home(kind, tmp_path)
    predicted = as_typed(kind, session, home)
    refused = not predicted.outlook().would_start
    before = _tree(home)
    capsys.readouterr()
    with _keys(plain_keys(kind, session, refused=refused)):
        code = run_plain("setup", home, ssh=False, echo_hidden=True, width=100)
    out = capsys.readouterr().out
    if refused:  # Enter at "write anyway" wrote nothing; the preview was check's line on the planned files
        assert code == 0 and "No changes were made." in out and _tree(home) == before, f"{label}: {out}"
        refused_to_write(capsys, out, home, write_planned(home, predicted.plan(), tmp_path / "p"), label)
        return
    # the exit code every face gives this outcome: check's own for the written home (1 with an error left)
    assert code == predicted.outlook().exit_code(), out
    held_to_check(capsys, out, home, label)


@pytest.mark.parametrize("case", PLAIN_CASES, ids=_id)
def test_answers_and_plain_faces_exit_alike_for_one_outcome(case, tmp_path, capsys, monkeypatch):
    """The same answers given through an answers file and typed at the plain prompts leave the same home and
    exit with the same code (wizard/cases/fixing.py outcome_code): 0 clean, 1 an error left.  (A plan Hermes
    would refuse is not a shared outcome: the answers face refuses it, exit 78; the prompts go back to the
    choices and the user quits, exit 0.)"""
    from hermes_wizard.faces.plain import run_plain

    kind, _, session = case
    predicted = as_typed(kind, session, make_home(kind, tmp_path / "predicted"))
    if not predicted.outlook().would_start:
        return
    answered = make_home(kind, tmp_path / "answers")
    text, env = answers_yaml(kind, session)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    (tmp_path / "answers.yaml").write_text(text)
    answers_code = main(["setup", "--home", str(answered), "--answers", str(tmp_path / "answers.yaml")])
    typed_home = make_home(kind, tmp_path / "typed")
    with _keys(plain_keys(kind, session, refused=False)):
        plain_code = run_plain("setup", typed_home, ssh=False, echo_hidden=True, width=100)
    out = capsys.readouterr().out
    assert answers_code == plain_code == predicted.outlook().exit_code(), out
