"""The oracle itself: is probe.py a faithful stand-in for the real Hermes (each of ``oracle.VERSIONS``)?

* batch and stream mode answer exactly like one fresh process per home;
* the fresh answers agree with a real ``hermes gateway run`` stopped right after
  its startup check (gateway_hook/sitecustomize.py), crashes in the runner's constructor included;
* the section 7.2 reference cases and the traps in cases.py come out as recorded;
* homes are never modified, and a missing venv fails under CI / skips locally.

Every test runs once per Hermes version. None of this needs our engine. The first two start a fresh Hermes
(or its real gateway) per home, for many seconds: they are marked slow, so the fast loop trusts the harness
they prove and the whole suite (CI) proves it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import homegen
import oracle
import pytest
from oracle.cases import BY_NAME, CASES

# Varied on purpose: every source of cross-home state the batch mode must reset
# (.env rewrites, YAML->env bridges, interpolation, plugin pass, crashes).
VARIED = ["A", "B", "E", "H", "I", "J2", "K", "L", "death-loop", "home-channel-without-platform",
          "broken-yaml", "forward-ref", "bom-clean", "bom-no-final-newline", "glued-lines",
          "whatsapp-extras-no-enabled", "order-yaml-first", "int-token",
          "v-gateway-null", "v-utf16-bom-env", "v-home-channel-string", "v-glued-fireworks", "v-nested-session-reset",
          "runner-bg-age-gateway-json", "runner-bg-age-nested", "runner-bg-age-empty-string"]
# Homes whose answer depends on Hermes's real start-up sequence, plus some plain ones.
AGAINST_GATEWAY = ["A", "B", "I", "J", "K", "death-loop", "home-channel-without-platform", "forward-ref",
                   "forward-ref-chain", "bom-clean", "bom-no-final-newline", "glued-lines",
                   "glued-policy", "glued-creds", "gateway-json-open", "extra-not-a-mapping",
                   "whatsapp-extras-no-enabled", "order-yaml-first", "order-env-only", "placeholder-token",
                   "hostile-yaml-self-list", "hostile-yaml-self-map", "hostile-yaml-self-top-list",
                   "loader-sessions-dir-null", "loader-utf32-le-env", "loader-profile-routes-number",
                   "runner-bg-age-string", "runner-bg-age-quoted-number-before-refusal", "runner-bg-age-gateway-json",
                   "runner-bg-age-empty-string", "runner-bg-age-gateway-json-under-empty-yaml-policy"]
# Against the real gateway of an older Hermes: the homes where it differs from 0.19.0, and some plain ones.
AGAINST_GATEWAY_OLDER = ["A", "B", "I", "forward-ref", "bom-no-final-newline", "glued-lines", "gateway-json-open",
                         "v-gateway-null", "v-gateway-string-platforms", "v-glued-fireworks", "v-home-channel-string",
                         "v-utf16-bom-env", "v-gateway-json-platform-string", "v-nested-session-reset",
                         "hostile-yaml-self-list", "hostile-yaml-self-top-list", "loader-streaming-yaml-wins",
                         "loader-streaming-json-alone", "loader-reset-by-type-exclude-number",
                         "runner-bg-age-string", "runner-bg-age-quoted-number-before-refusal", "runner-bg-age-nested",
                         "runner-bg-age-gateway-json", "runner-bg-age-date"]
COMPARED = ("would_start", "refusal_platform", "refusal_reason", "enabled", "order", "error")


@pytest.fixture(scope="module")
def varied_homes(tmp_path_factory):
    root = tmp_path_factory.mktemp("varied")
    homes = [BY_NAME[name].write(root / name) for name in VARIED]
    # Interleave generated homes so a leak from one home would show in the next.
    homes += [spec.write(root / f"gen{i}") for i, spec in enumerate(homegen.corpus(40)[-6:])]
    return homes


def _strip(result: dict) -> dict:
    out = {k: result[k] for k in COMPARED}
    debug = dict(result.get("debug") or {})
    debug.pop("isolated", None)
    debug.pop("traceback", None)
    out["debug"] = debug
    return out


@pytest.mark.slow  # a fresh Hermes process per home, ~30 of them per version
@pytest.mark.parametrize("version", oracle.VERSIONS)
def test_batch_and_stream_match_fresh_processes(version, varied_homes, tmp_path):
    oracle.require_oracle(version)
    batch = oracle.evaluate_batch(varied_homes, tmp_path / "batch", version=version)
    stream = oracle.Oracle(tmp_path / "stream", version=version)
    try:
        streamed = [stream.evaluate(h) for h in varied_homes]
    finally:
        stream.close()
    with ThreadPoolExecutor(2) as pool:
        fresh = list(pool.map(lambda h: oracle.evaluate_fresh(h, tmp_path / "fresh", version=version), varied_homes))
    for home, b, s, f in zip(varied_homes, batch, streamed, fresh):
        assert _strip(b) == _strip(f), f"batch differs from a fresh process on {home.name}"
        assert _strip(s) == _strip(f), f"stream differs from a fresh process on {home.name}"
    assert {r["would_start"] for r in fresh} == {True, False}


@pytest.mark.slow  # a real `hermes gateway run` per home, ~30 of them per version
@pytest.mark.parametrize("version", oracle.VERSIONS)
def test_probe_agrees_with_real_gateway(version, tmp_path):
    oracle.require_oracle(version)
    newest = version == oracle.HERMES_VERSION
    names = AGAINST_GATEWAY if newest else AGAINST_GATEWAY_OLDER
    homes = [BY_NAME[name].write(tmp_path / "homes" / name) for name in names]
    generated = homegen.corpus(60)[-(8 if newest else 4):]
    homes += [spec.write(tmp_path / "homes" / f"gen{i}") for i, spec in enumerate(generated)]
    probed = oracle.evaluate_batch(homes, tmp_path / "probe", version=version)
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda h: oracle.run_gateway(h, tmp_path / "gw", stop_after_check=True, version=version),
                             homes))
    for home, probe, run in zip(homes, probed, runs):
        real = run.answer()
        for key in ("would_start", "refusal_platform", "enabled", "order"):
            assert probe[key] == real[key], (f"{home.name}: {key} probe={probe[key]!r} gateway={real[key]!r}\n"
                                             f"{run.output[-1500:]}")
        assert bool(probe["error"]) == bool(real["error"]), f"{home.name}: {probe['error']!r} vs {real['error']!r}"
        if probe["error"]:
            assert probe["error"].split(":")[0] in real["error"]  # same exception type


@pytest.mark.parametrize("version", oracle.VERSIONS)
@pytest.mark.parametrize("case", [c for c in CASES if c.expect is not None], ids=lambda c: c.name)
def test_oracle_reproduces_recorded_answers(case, version, hermes_oracle_at, tmp_path):
    got = hermes_oracle_at(version).evaluate(case.write(tmp_path / case.name))
    expect = case.expected(version)
    if expect == "crash":
        assert got["error"] and got["would_start"] is False, got
        return
    assert not got["error"], f"{case.name} ({case.note}): Hermes {version} crashes: {got['error']}"
    would_start, refusal, enabled = expect
    assert (got["would_start"], got["refusal_platform"], set(got["enabled"])) == (would_start, refusal, enabled), (
        f"{case.name} ({case.note}): {got}")


@pytest.mark.parametrize("version", oracle.VERSIONS)
def test_homes_are_never_modified(version, hermes_oracle_at, tmp_path):
    # All of these make Hermes rewrite .env (final newline missing; glued entries; 0.18 rewrites UTF-16).
    for name in ("bom-no-final-newline", "glued-lines", "v-utf16-bom-env"):
        home = BY_NAME[name].write(tmp_path / name)
        before = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
        hermes_oracle_at(version).evaluate(home)
        oracle.evaluate_fresh(home, tmp_path / "fresh", version=version)
        after = {p: p.read_bytes() for p in home.rglob("*") if p.is_file()}
        assert after == before


def test_whatsapp_from_yaml_extras_needs_node(tmp_path):
    """Why the oracle pins Node.js: without it Hermes leaves this WhatsApp disabled."""
    oracle.require_oracle()
    home = BY_NAME["whatsapp-extras-no-enabled"].write(tmp_path / "home")
    with_node = oracle.evaluate_batch([home], tmp_path / "with", node="present")[0]
    without = oracle.evaluate_batch([home], tmp_path / "without", node="absent")[0]
    assert (with_node["would_start"], with_node["enabled"]) == (False, ["whatsapp"])
    assert (without["would_start"], without["enabled"]) == (True, [])


@pytest.mark.parametrize("version", oracle.VERSIONS)
@pytest.mark.parametrize("ci", ["", "true"])
def test_missing_venv_fails_under_ci_and_skips_locally(ci, version, monkeypatch, tmp_path):
    monkeypatch.setenv(oracle.venv_env_var(version), str(tmp_path / "nope"))
    if ci:
        monkeypatch.setenv("CI", ci)
    else:
        monkeypatch.delenv("CI", raising=False)
    expected = pytest.fail.Exception if ci else pytest.skip.Exception
    with pytest.raises(expected, match=f"Hermes {version} oracle venv not found.*{oracle.venv_env_var(version)}"):
        oracle.require_oracle(version)


def test_each_version_has_its_own_venv(monkeypatch):
    monkeypatch.delenv("HERMES_ORACLE_VENV", raising=False)
    monkeypatch.delenv("HERMES_ORACLE_VENV_0_18_2", raising=False)
    monkeypatch.delenv("HERMES_ORACLE_VENV_0_17_0", raising=False)
    assert oracle.venv_dir() == oracle.REPO / ".cache" / "oracle-venv"
    assert oracle.venv_dir("0.18.2") == oracle.REPO / ".cache" / "oracle-venv-0.18.2"
    assert oracle.venv_dir("0.17.0") == oracle.REPO / ".cache" / "oracle-venv-0.17.0"


# Run inside the oracle venv: a batch over the given homes, printing sys.path's length after each one.
_PATH_AFTER_EACH_HOME = """
import sys
sys.path.insert(0, sys.argv[1])
import probe
probe._own_stdout()
batch = probe.Batch()
for home in sys.argv[2:]:
    batch.evaluate(home)
    print(len(sys.path), file=probe._OUT)
"""


@pytest.mark.parametrize("version", oracle.VERSIONS)
def test_a_batch_starts_every_home_from_the_same_import_path(version, tmp_path):
    """0.20 re-inserts entries into sys.path for every home; left to grow, each import of the next home searched
    them all (the n-th home cost ~0.0012 n s more: a full repair sweep took 72 min). Every home starts from the
    baseline's path, so what it leaves behind is the same each time."""
    import subprocess

    oracle.require_oracle(version)
    source = BY_NAME["death-loop"].write(tmp_path / "src")
    homes = [oracle.copy_home(source, tmp_path / f"h{i}") for i in range(4)]
    run = subprocess.run([str(oracle.venv_python(version)), "-c", _PATH_AFTER_EACH_HOME, str(oracle.PROBE.parent),
                          *map(str, homes)], env=oracle.clean_env(tmp_path, version=version), cwd=tmp_path,
                         capture_output=True,
                         text=True, timeout=300)
    lengths = [int(line) for line in run.stdout.split()]
    assert len(lengths) == len(homes), run.stderr[-2000:]
    assert len(set(lengths)) == 1, f"sys.path grows from home to home: {lengths}"
