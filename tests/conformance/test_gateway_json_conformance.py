"""Conformance on the values `GatewayConfig.from_dict` reads (found by a differential run): for each Hermes version in
``oracle.VERSIONS``, seeded random homes whose legacy gateway.json holds `sessions_dir`, `streaming`,
`profile_routes` and session-reset policies of every JSON type (`bg_process_max_age_hours` among their keys: the
runner of 0.18 and later crashes on a truthy one that is not a number), under config.yaml's `streaming`,
`gateway.streaming`, `profile_routes` and `session_reset` of every type, are judged by our `check` and by
the oracle, which must agree (tests/support/oracle/compare.py).  On the code before that run, 112 of 1,000 such
homes disagreed (a crash predicted as a start, or 0.18's from_dict crash predicted under a YAML mapping).

The homegen corpus (tests/support/homegen.py) is left as it is: these homes are their own corpus, so the
generated homes of the other suites do not change.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from oracle import VERSIONS
from oracle.cases import Case
from oracle.compare import assert_conforms

HOMES = {"full": 400, "quick": 100}  # per version; the fast loop's stand-in judges the first quarter
SIZES = [pytest.param("full", marks=pytest.mark.slow), pytest.param("quick", marks=pytest.mark.stand_in)]
SEED = 23
W = "WEIXIN_ACCOUNT_ID=test-bot@im.bot\nWEIXIN_TOKEN=dummy-ilink-token-123456\n"
VALUES = (None, 0, 1, 5, 2.5, True, False, "", "x", "/nonexistent/sessions", [], ["telegram"], [1], {}, {"a": 1})
KINDS = ("dm", "group", "telegram", "weixin", "not-a-platform")


def _policy(r: random.Random):
    policy = {key: r.choice(VALUES) for key in ("notify_exclude_platforms", "at_hour", "idle_minutes", "mode", "notify",
                                                 "bg_process_max_age_hours") if r.random() < 0.4}
    return policy if r.random() < 0.85 else r.choice(VALUES)


def _home(r: random.Random) -> dict[str, str]:
    data: dict = {}
    for key in ("sessions_dir", "streaming", "profile_routes"):
        if r.random() < 0.35:
            data[key] = r.choice(VALUES)
    for key in ("reset_by_type", "reset_by_platform"):
        if r.random() < 0.35:
            data[key] = {r.choice(KINDS): _policy(r)} if r.random() < 0.85 else r.choice(VALUES)
    if r.random() < 0.35:
        data["default_reset_policy"] = _policy(r)
    if r.random() < 0.35:
        data["platforms"] = {"weixin": {"enabled": True, "extra": {"dm_policy": r.choice(("open", "pairing"))}}}
    yaml = ""
    if r.random() < 0.4:
        yaml += f"streaming: {json.dumps(r.choice(VALUES))}\n"
    if r.random() < 0.3:
        yaml += (f"gateway:\n  streaming: {json.dumps(r.choice(VALUES))}\n"
                 f"  profile_routes: {json.dumps(r.choice(VALUES))}\n")
    elif r.random() < 0.1:
        yaml += f"gateway: {json.dumps(r.choice(VALUES))}\n"
    if r.random() < 0.3:
        yaml += f"profile_routes: {json.dumps(r.choice(VALUES))}\n"
    if r.random() < 0.3:
        yaml += f"session_reset: {json.dumps(_policy(r))}\n"
    files = {".env": W + ("WEIXIN_DM_POLICY=open\n" if r.random() < 0.3 else ""), "gateway.json": json.dumps(data)}
    if yaml:
        files["config.yaml"] = yaml
    return files


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("size", SIZES)
def test_gateway_json_values_are_judged_as_hermes_judges_them(size, version, hermes_oracle_at, tmp_path):
    hermes = hermes_oracle_at(version)
    r = random.Random(SEED)
    crashes = 0
    homes = HOMES[size]
    for i in range(homes):
        files = _home(r)
        home = Case(f"gj{i}", files).write(Path(tmp_path) / f"gj{i:04d}")
        answer = hermes.evaluate(home)
        crashes += bool(answer["error"])
        assert_conforms(home, answer, label=f"gateway.json {files['gateway.json']} / config.yaml "
                        f"{files.get('config.yaml')!r}", host_env=hermes.host_env(), version=version)
    assert crashes > homes // 10, f"only {crashes} of {homes} homes crash Hermes: the corpus lost its point"
