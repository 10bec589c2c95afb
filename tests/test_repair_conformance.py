"""Repair conformance: after ``doctor --fix --yes`` the real Hermes 0.19.0 starts, as we said it would.

The homes: every VIOLATING one (Hermes's own startup gate refuses it; the oracle
decides, tests/oracle/) among at least ``MIN_VIOLATING`` distinct
hypothesis-generated homes (tests/homegen.py) plus the hand-written ones
(tests/oracle/cases.py). Each is copied and repaired in-process with
``doctor --fix --yes``, with the host facts the oracle runs with (PATH with its
node shim, HERMES_WIZARD_HERMES_PYTHON; see oracle/compare.py). Then:

* Hermes, on a fresh copy of the repaired home: the gate passes (no refusal, no crash);
* our ``check --format json`` on the repaired home agrees with Hermes exactly
  (compare.mismatches: would_start, enabled platforms, exit code), and so does the
  doctor's own "Verified: ..." line;
* the repair enabled no platform Hermes did not enable before (it only closes or disables);
* it opened nothing: allowlists untouched (never a ``*``), GATEWAY_ALLOW_ALL_USERS
  never added or changed, no ``*_ALLOW_ALL_USERS`` that Hermes reads as true unless
  it was already meant true (``on``/``" true"`` -> ``true`` is the spelling fix);
* a second run says "Nothing to fix." and writes nothing (bytes and mtime_ns);
* ``--open-policy optin`` / ``allowlist`` on a subset: the gate passes too.

A repair that leaves Hermes refusing is an engine bug. Each one found is pinned
below as a minimal hand-written home (``PINNED``, xfail strict); the generated
sweep excuses a failing home only when it matches a pinned bug's description
(``_known_bug``), and prints it. The end-to-end test repairs the demo death-loop
home and runs the real ``hermes gateway run`` on it.

Generation is derandomized like test_conformance.py (``CONFORMANCE_RANDOM=1``
explores new homes, ``REPAIR_EXAMPLES=N`` draws more). The oracle answers through
one long-lived probe (the session fixture), pipelined with our work.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml
from dotenv import dotenv_values
from hypothesis import HealthCheck, Phase, given, settings

import homegen
import oracle
from oracle.cases import BY_NAME, CASES, Case
from oracle.compare import _environ, dump_home, env_flag, mismatches, run_ours
from oracle.fixtures import SUMMARY
from oracle.pipeline import Pipeline

MIN_VIOLATING = 300  # generated homes Hermes refuses, each repaired and re-judged
MIN_PER_OPTION = 50  # homes repaired with --open-policy optin, and with allowlist
MAX_NOT_FIXED = 0.02  # share of homes left with "not fixed:" for a reason that is not an engine bug
# Derandomized: hypothesis repeats many homes; 2000 draws give ~1000 distinct, ~330 of them violating.
EXAMPLES = max(int(os.environ.get("REPAIR_EXAMPLES", "0") or 0), 2000)
GATE_TRUE = {"true", "1", "yes"}  # what Hermes's gate accepts as an opt-in
MEANT_TRUE = GATE_TRUE | {"on"}  # ...and what a user evidently meant as one (compared stripped)
ALLOWLIST_ENV = re.compile(r"ALLOWED_(USERS|CHATS|GROUPS)$|ALLOW_FROM$|ALLOWLIST", re.I)
ALLOWLIST_YAML = re.compile(r"^(allow_from|allowed_users|allowed_chats|allowlist|group_allow_from)$", re.I)
FILES = (".env", "config.yaml")


# --- running our CLI in-process, as compare.run_ours does -------------------------------------------
def run_doctor(home: Path, host: dict, *options: str) -> tuple[int, str]:
    from wizard.cli import main

    out = io.StringIO()
    with _environ(host), contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            rc = main(["doctor", "--fix", "--yes", "--home", str(home), *options])
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 2
    return rc if rc is not None else 0, out.getvalue()


def file_state(home: Path) -> dict:
    """Bytes, mtime_ns and mode of .env and config.yaml, and the backup sets (None: absent)."""
    state = {}
    for name in FILES:
        path = home / name
        state[name] = (path.read_bytes(), path.stat().st_mtime_ns, path.stat().st_mode) if path.exists() else None
    backups = home / ".wizard-backups"
    state["backups"] = sorted(p.name for p in backups.iterdir()) if backups.is_dir() else []
    return state


@dataclass
class Repaired:
    label: str
    source: Path  # the violating home, never written
    home: Path  # the repaired copy
    before: dict  # Hermes on the source
    rc: int = 0
    out: str = ""  # doctor --fix --yes
    files_before: dict = field(default_factory=dict)
    files_after: dict = field(default_factory=dict)
    after: dict | None = None  # Hermes on the repaired copy
    check: tuple = ()  # (rc, json, raw) of our check on the repaired copy
    second: tuple = ()  # (rc, out, state before, state after) of a second doctor --fix --yes

    def show(self) -> str:
        shown = {k: (self.after or {}).get(k) for k in ("would_start", "refusal_reason", "enabled", "error")}
        return (f"{self.label}\nhome files before the repair:\n{dump_home(self.source)}\n"
                f"Hermes before: enabled={self.before['enabled']} refusal={self.before['refusal_reason']!r}\n"
                f"doctor --fix --yes (exit {self.rc}):\n{self.out.rstrip()}\n"
                f"files after the repair:\n{dump_home(self.home)}\nHermes after: {json.dumps(shown)}")


# --- the sweep ------------------------------------------------------------------------------------------
@dataclass
class Sweep:
    drawn: int = 0
    generated: int = 0  # violating generated homes
    hand_written: int = 0
    default: list = field(default_factory=list)
    options: dict = field(default_factory=dict)


def _repair(items, root: Path, host: dict, pipe: Pipeline, options: tuple = (), second: bool = False) -> list:
    done = []
    for i, (label, source, before) in enumerate(items):
        home = oracle.copy_home(source, root / f"r{i:04d}")
        item = Repaired(label, source, home, before, files_before=file_state(home))
        item.rc, item.out = run_doctor(home, host, *options)
        item.files_after = file_state(home)
        pipe.submit(home, i)  # Hermes gets a copy made now, before anything else touches it
        item.check = run_ours(home, host)
        if second:
            state = file_state(home)
            rc, out = run_doctor(home, host, *options)
            item.second = (rc, out, state, file_state(home))
        done.append(item)
    for i, answer in pipe.drain():
        done[i].after = answer
    return done


@pytest.fixture(scope="module")
def sweep(hermes_oracle, tmp_path_factory) -> Sweep:
    root = Path(tmp_path_factory.mktemp("repair"))
    host = hermes_oracle.host_env()
    pipe = Pipeline(hermes_oracle, "repair")
    for case in CASES:
        pipe.submit(case.write(root / "cases" / case.name), f"hand-written home {case.name!r}")
    seen: set = set()

    @settings(max_examples=EXAMPLES, derandomize=not env_flag("CONFORMANCE_RANDOM"), database=None,
              deadline=None, suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    @given(spec=homegen.homes())
    def draw(spec: homegen.HomeSpec) -> None:
        if spec.key() not in seen:
            seen.add(spec.key())
            pipe.submit(spec.write(root / "generated" / f"g{len(seen):04d}"), repr(spec))

    draw()
    result = Sweep(drawn=len(seen))
    violating = []
    for label, answer in pipe.drain():
        if answer["error"] is None and not answer["would_start"]:
            violating.append((label, Path(answer["home"]), answer))
            result.hand_written += label.startswith("hand-written")
    result.generated = len(violating) - result.hand_written
    result.default = _repair(violating, root / "pairing", host, pipe, second=True)
    subset = violating[::max(1, len(violating) // (MIN_PER_OPTION + 10))]
    for choice in ("optin", "allowlist"):
        result.options[choice] = _repair(subset, root / choice, host, pipe, ("--open-policy", choice))
    return result


# --- what a failure is ------------------------------------------------------------------------------------
def gate_problem(item: Repaired) -> str | None:
    after = item.after
    if after is None:
        return "the oracle gave no answer"
    if after["error"]:
        return f"Hermes crashes loading the repaired home: {after['error']}"
    if not after["would_start"]:
        return f"Hermes still refuses: {after['refusal_reason']}"
    return None


def _yaml(home: Path):
    try:
        return yaml.safe_load((home / "config.yaml").read_text(encoding="utf-8"))
    except Exception:  # absent or broken: nothing to find in it
        return None


def _gateway_json_open(home: Path, platform: str) -> bool:
    try:
        block = json.loads((home / "gateway.json").read_text())["platforms"][platform]
    except Exception:
        return False
    places = [block, block.get("extra")] if isinstance(block, dict) else []
    return any(isinstance(p, dict) and str(p.get(k, "")).strip().lower() == "open"
               for p in places for k in ("dm_policy", "group_policy"))


def _odd_case_key(home: Path, platform: str) -> bool:
    data = _yaml(home)
    roots = [data.get("platforms"), (data.get("gateway") or {}).get("platforms")] if isinstance(data, dict) else []
    return any(isinstance(r, dict) and any(str(k).lower() == platform and k != platform for k in r) for r in roots)


KNOWN_BUGS = {  # id -> (matches a home whose repair left `platform` refusing, what the bug is)
    "gateway-json-open": (_gateway_json_open, "an open policy in the legacy gateway.json is never closed "
                                              "(and 'not fixed' blames /etc/hermes or the service env)"),
    "platform-key-case": (_odd_case_key, "an open policy under an odd-case platform key (platforms: WEIXIN:) "
                                         "is never closed: repairs look only at the lower-case path"),
}


def known_bug(item: Repaired) -> str | None:
    platform = (item.after or {}).get("refusal_platform") or ""
    for bug, (matches, _) in KNOWN_BUGS.items():
        if platform and matches(item.home, platform):
            return bug
    return None


def _env_values(data: bytes | None) -> dict:
    if data is None:
        return {}
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    return dict(dotenv_values(stream=io.StringIO(text), interpolate=False))


def _yaml_allowlists(node, path=()) -> dict:
    found = {}
    if isinstance(node, dict):
        for k, v in node.items():
            if ALLOWLIST_YAML.match(str(k)):
                found[path + (str(k),)] = json.dumps(v, default=str)
            found.update(_yaml_allowlists(v, path + (str(k),)))
    return found


def opened(item: Repaired, optin: bool = False) -> list[str]:
    """Every way the repair opened access (empty when it only closed or disabled)."""
    problems = []
    env_b = _env_values((item.files_before[".env"] or (None,))[0])
    env_a = _env_values((item.files_after[".env"] or (None,))[0])
    for key in sorted(set(env_b) | set(env_a)):
        if ALLOWLIST_ENV.search(key) and env_a.get(key) != env_b.get(key):
            star = " (a '*')" if "*" in (env_a.get(key) or "") else ""
            problems.append(f".env allowlist {key} changed{star}: {env_b.get(key)!r} -> {env_a.get(key)!r}")
    yaml_b = _yaml_allowlists(yaml.safe_load(item.files_before["config.yaml"][0]) if _parses(item.files_before) else {})
    yaml_a = _yaml_allowlists(yaml.safe_load(item.files_after["config.yaml"][0]) if _parses(item.files_after) else {})
    if yaml_a != yaml_b:
        problems.append(f"config.yaml allowlists changed: {yaml_b} -> {yaml_a}")
    lines = [[ln.strip() for ln in (s[".env"] or (b"",))[0].decode("utf-8", "replace").splitlines()
              if "GATEWAY_ALLOW_ALL_USERS" in ln] for s in (item.files_before, item.files_after)]
    if lines[0] != lines[1] or env_a.get("GATEWAY_ALLOW_ALL_USERS") != env_b.get("GATEWAY_ALLOW_ALL_USERS"):
        problems.append(f"GATEWAY_ALLOW_ALL_USERS added or set: {lines[0]} -> {lines[1]}")
    seen_b = (item.before.get("debug") or {}).get("env") or {}
    seen_a = ((item.after or {}).get("debug") or {}).get("env") or {}
    if seen_a.get("GATEWAY_ALLOW_ALL_USERS") != seen_b.get("GATEWAY_ALLOW_ALL_USERS"):
        problems.append(f"Hermes sees GATEWAY_ALLOW_ALL_USERS={seen_a.get('GATEWAY_ALLOW_ALL_USERS')!r}, "
                        f"was {seen_b.get('GATEWAY_ALLOW_ALL_USERS')!r}")
    for key, value in sorted(seen_a.items()):
        if optin or not key.endswith("_ALLOW_ALL_USERS") or value.lower() not in GATE_TRUE:
            continue
        was = seen_b.get(key)
        if was is None or was.strip().lower() not in MEANT_TRUE:
            problems.append(f"Hermes now sees {key}={value!r} (an allow-all), was {was!r}")
    return problems


def _parses(state: dict) -> bool:
    try:
        return state["config.yaml"] is not None and isinstance(yaml.safe_load(state["config.yaml"][0]), dict)
    except Exception:
        return False


def prediction_problems(item: Repaired) -> list[str]:
    rc, ours, _ = item.check
    problems = [f"check: {p}" for p in mismatches(rc, ours, item.after)]
    verified = re.search(r"^Verified: the gateway will start \((.*)\)\.$", item.out, re.M)
    if verified and not item.after["error"]:
        said = set() if verified.group(1) == "no platforms" else set(verified.group(1).split(", "))
        if said != set(item.after["enabled"]):
            problems.append(f"doctor said 'Verified' with {sorted(said)}, Hermes enables {item.after['enabled']}")
    if item.after["would_start"] and not verified:
        problems.append("Hermes starts, but the doctor did not say 'Verified: the gateway will start'")
    return problems


def _fail(what: str, bad: list, n: int) -> None:
    shown = "\n\n".join(f"- {problem}\n{item.show()}" for item, problem in bad[:4])
    pytest.fail(f"{len(bad)} of {n} repaired homes: {what}\n\n{shown}", pytrace=False)


# --- the generated sweep -------------------------------------------------------------------------------------
def test_enough_violating_homes(sweep):
    n = len(sweep.default)
    starts = sum(gate_problem(i) is None for i in sweep.default)
    bugs = [known_bug(i) for i in sweep.default if gate_problem(i)]
    line = (f"hermes repair conformance: {n} violating homes repaired with doctor --fix --yes "
            f"({sweep.generated} generated of {sweep.drawn} distinct drawn, {sweep.hand_written} hand-written); "
            f"Hermes starts after {starts}; pinned engine bugs: "
            + (", ".join(f"{b} {bugs.count(b)}" for b in dict.fromkeys(bugs)) or "none")
            + "; " + ", ".join(f"--open-policy {k}: {sum(gate_problem(i) is None for i in v)}/{len(v)} start"
                               for k, v in sweep.options.items()))
    SUMMARY.append(line)
    print(line)
    assert sweep.generated >= MIN_VIOLATING, f"only {sweep.generated} generated violating homes ({line})"
    assert all(len(v) >= MIN_PER_OPTION for v in sweep.options.values()), line


def test_hermes_starts_after_repair(sweep):
    excused = [(i, known_bug(i)) for i in sweep.default if gate_problem(i) and known_bug(i)]
    for item, bug in excused:
        print(f"pinned engine bug {bug}: {item.label}")
    bad = [(i, gate_problem(i)) for i in sweep.default if gate_problem(i) and not known_bug(i)]
    if bad:
        _fail("Hermes still refuses after doctor --fix --yes (an engine bug: pin it in PINNED)", bad,
              len(sweep.default))


def test_repaired_home_is_predicted_exactly(sweep):
    bad = [(i, "; ".join(p)) for i in sweep.default if (p := prediction_problems(i))]
    if bad:
        _fail("our verdict on the repaired home differs from Hermes's", bad, len(sweep.default))


def test_repair_enables_nothing_new(sweep):
    bad = [(i, f"Hermes enables {sorted(set(i.after['enabled']) - set(i.before['enabled']))} only after the repair")
           for i in sweep.default if not set(i.after["enabled"]) <= set(i.before["enabled"])]
    if bad:
        _fail("the repair enabled a platform", bad, len(sweep.default))


def test_repair_never_opens_access(sweep):
    bad = [(i, "; ".join(p)) for i in sweep.default if (p := opened(i))]
    if bad:
        _fail("the repair opened access", bad, len(sweep.default))


def test_not_fixed_is_rare_and_explained(sweep):
    left = [i for i in sweep.default if "not fixed:" in i.out]
    unexplained = []
    for item in left:
        why = known_bug(item)
        lines = [ln for ln in item.out.splitlines() if ln.startswith("not fixed:")]
        print(f"not fixed ({'pinned engine bug ' + why if why else 'UNEXPLAINED'}): {item.label}: {lines}")
        if why is None:
            unexplained.append((item, "; ".join(lines)))
    # The oracle and the doctor see no managed dir and no service environment, so
    # nothing in these homes is legitimately out of reach: every 'not fixed' is a bug.
    if unexplained:
        _fail("'not fixed:' without a known reason", unexplained, len(sweep.default))
    assert len(unexplained) <= MAX_NOT_FIXED * len(sweep.default)
    # ...and the doctor never claims to have fixed a home Hermes still refuses.
    claims = [(i, gate_problem(i)) for i in sweep.default if gate_problem(i) and "not fixed:" not in i.out]
    if claims:
        _fail("Hermes refuses, but the doctor reported nothing left unfixed", claims, len(sweep.default))


def test_second_run_changes_nothing(sweep):
    bad = []
    for item in sweep.default:
        rc, out, state, state_after = item.second
        if state_after != state:
            changed = [k for k in state if state[k] != state_after[k]]
            bad.append((item, f"the second run changed {changed}:\n{out}"))
        elif gate_problem(item) is None and (out.strip() != "Nothing to fix." or rc not in (0, 1)):
            bad.append((item, f"the second run (exit {rc}) did not just say 'Nothing to fix.':\n{out}"))
        elif "Backup:" in out or re.search(r"^\+\+\+ ", out, re.M):
            bad.append((item, f"the second run planned changes:\n{out}"))
    if bad:
        _fail("doctor --fix --yes is not idempotent", bad, len(sweep.default))


@pytest.mark.parametrize("choice", ["optin", "allowlist"])
def test_other_open_policy_choices(sweep, choice):
    items = sweep.options[choice]
    assert len(items) >= MIN_PER_OPTION
    bad = [(i, gate_problem(i)) for i in items if gate_problem(i) and not known_bug(i)]
    bad += [(i, "; ".join(p)) for i in items if (p := prediction_problems(i) + opened(i, optin=choice == "optin"))]
    bad += [(i, "enabled a platform") for i in items if not set(i.after["enabled"]) <= set(i.before["enabled"])]
    if bad:
        _fail(f"--open-policy {choice}", bad, len(items))


# --- engine bugs, pinned ------------------------------------------------------------------------------------
W = "WEIXIN_ACCOUNT_ID=b0f5c1d2e3a4@im.bot\nWEIXIN_TOKEN=ilink-token-7f3a9c01\n"
PINNED = [
    pytest.param(Case("gateway-json-open", {".env": W, "gateway.json":
                      '{"platforms": {"weixin": {"extra": {"dm_policy": "open"}}}}'}),
                 id="gateway-json-open", marks=pytest.mark.xfail(
                     strict=True, raises=AssertionError, reason=KNOWN_BUGS["gateway-json-open"][1])),
    pytest.param(Case("platform-key-case", {".env": W, "config.yaml":
                      "platforms:\n  WEIXIN:\n    extra:\n      dm_policy: open\n"}),
                 id="platform-key-case", marks=pytest.mark.xfail(
                     strict=True, raises=AssertionError, reason=KNOWN_BUGS["platform-key-case"][1])),
]


@pytest.mark.parametrize("case", PINNED)
def test_pinned_engine_bug(case, hermes_oracle, tmp_path):
    source = case.write(tmp_path / "source")
    before = hermes_oracle.evaluate(source)
    if before["would_start"] or before["error"]:
        pytest.fail(f"the pinned home no longer makes Hermes refuse: {before}")  # not an xfail: fix the pin
    item = Repaired(case.name, source, oracle.copy_home(source, tmp_path / "home"), before)
    item.rc, item.out = run_doctor(item.home, hermes_oracle.host_env())
    item.after = hermes_oracle.evaluate(item.home)
    if gate_problem(item) and known_bug(item) != case.name:
        pytest.fail(f"the pinned home no longer matches its description ({known_bug(item)}):\n{item.show()}")
    assert gate_problem(item) is None, item.show()


# --- end to end: the demo home, repaired, then the real gateway ------------------------------------------------
ADAPTERS = re.compile(r"No adapter (available|could be created)|adapter creation failed|[Cc]onnect(ing|ed) to")


def test_repaired_demo_home_gets_past_the_real_gateway(tmp_path):
    oracle.require_oracle()
    home = BY_NAME["death-loop"].write(tmp_path / "demo")  # .env gets 0600
    host = oracle.host_env(tmp_path / "scratch")
    rc, out = run_doctor(home, host)
    assert rc == 0, out
    assert "Verified: the gateway will start (telegram, weixin)." in out, out
    check_rc, ours, raw = run_ours(home, host)
    assert ours is not None and check_rc in (0, 1) and ours["would_start"] is True, raw[-2000:]
    predicted = {p["name"] for p in ours["platforms"] if p["enabled"]}

    # 1. stopped right after the startup check (gateway_hook): its verdict and platforms
    run = oracle.run_gateway(home, tmp_path / "hooked", stop_after_check=True)
    assert "Refusing to start" not in run.output, run.output[-3000:]
    assert run.report is not None, f"never reached the startup check (exit {run.returncode}):\n{run.output[-3000:]}"
    assert run.report["reason"] is None and set(run.report["order"]) == predicted == {"telegram", "weixin"}

    # 2. unhooked: it goes on to create adapters (none connect: no SDKs in the oracle venv, no network)
    scratch = tmp_path / "unhooked"
    copy = oracle.copy_home(home, scratch / "home")
    proc = subprocess.Popen([str(oracle.venv_dir() / "bin" / "hermes"), "gateway", "run"],
                            env=oracle.clean_env(scratch, hermes_home=copy), cwd=scratch, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    seen, deadline = [], time.monotonic() + 60
    try:
        for line in proc.stdout:
            seen.append(line)
            if ADAPTERS.search(line) or "Refusing to start" in line or time.monotonic() > deadline:
                break
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    output = "".join(seen)
    assert "Refusing to start" not in output, output[-3000:]
    assert ADAPTERS.search(output), f"the gateway did not get to its adapters:\n{output[-3000:]}"
    assert "No adapter available for whatsapp" not in output, "the disabled WhatsApp was started anyway"
