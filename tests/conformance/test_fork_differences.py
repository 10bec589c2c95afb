"""The 0.22.2 fork's own decisions, pinned: each difference in oracle/fork_differences.py exists, and our model of
upstream's main line (0.21.3) decides as upstream's text does on it.

For each named difference a home made for it is asked of the real fork (0.22.2.post1) and of the real 0.20.1, whose
deciding code upstream's main line kept there: the fork answers otherwise than our 0.21.3 model, our model answers
as 0.20.1 does, and `fork_differences.explain` names the difference for that home (and nothing for the same home
without it).  Were the fork to agree with upstream one day, or our model to drift, a test here fails and the
difference is no longer an excuse for the conformance suites.
"""

from __future__ import annotations

from pathlib import Path

import oracle
import pytest
from oracle import fork_differences
from oracle.compare import mismatches, run_ours

FORK, UPSTREAM_LIKE = "0.22.2", "0.20.1"
W = "WEIXIN_ACCOUNT_ID=test-bot@im.bot\nWEIXIN_TOKEN=dummy-ilink-token-123456\n"
YB = "YUANBAO_APP_ID=yb-app-31\nYUANBAO_APP_SECRET=yb-secret-77\n"
YB_OPEN = "yuanbao:\n  dm_policy: open\n"
WX_EXTRA_OPEN = "platforms:\n  weixin:\n    extra:\n      dm_policy: open\n"

# difference -> (home files, the same home without what the difference is about)
STARTUP_HOMES = {
    "dotenv-interpolation": (
        {".env": YB + "YUANBAO_ALLOW_ALL_USERS=${MY_FLAG:-true}\nMY_FLAG=false\n", "config.yaml": YB_OPEN},
        {".env": YB + "YUANBAO_ALLOW_ALL_USERS=true\nMY_FLAG=false\n", "config.yaml": YB_OPEN}),
    "authored-extra-wins": (
        {".env": W, "config.yaml": WX_EXTRA_OPEN + "weixin:\n  dm_policy: pairing\n"},
        {".env": W, "config.yaml": WX_EXTRA_OPEN}),
    "google-chat-installs-on-demand": (
        {".env": W + "GOOGLE_CHAT_HTTP_EVENTS_URL=https://example.org/chat-events\n"},
        {".env": W}),
    "homeassistant-left-core": (
        {".env": W + "HASS_TOKEN=hass-long-lived-token-0001\n"},
        {".env": W}),
}


def _write(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("name", sorted(STARTUP_HOMES))
def test_the_fork_decides_otherwise_than_upstream(name, hermes_oracle_at, tmp_path):
    oracle.require_oracle(FORK)
    oracle.require_oracle(UPSTREAM_LIKE)
    with_it, without = STARTUP_HOMES[name]
    home = _write(tmp_path / "home", with_it)
    fork, upstream_like = hermes_oracle_at(FORK), hermes_oracle_at(UPSTREAM_LIKE)
    rc, ours, _ = run_ours(home, fork.host_env(), FORK)
    assert mismatches(rc, ours, fork.evaluate(home)), f"the fork now agrees with our model on {name}: drop it"
    rc, ours, _ = run_ours(home, upstream_like.host_env(), FORK)
    assert not mismatches(rc, ours, upstream_like.evaluate(home)), "our main-line model no longer decides as 0.20.1"
    assert fork_differences.explain(FORK, home) == name
    control = _write(tmp_path / "control", without)
    assert fork_differences.explain(FORK, control) is None
    assert fork_differences.explain(UPSTREAM_LIKE, home) is None  # never an excuse for an upstream release


def test_the_fork_sees_no_node_on_path(hermes_oracle_at, tmp_path):
    """node-from-pm-only: with a working Node.js on PATH, 0.20.1 lets the WhatsApp plugin pass enable WhatsApp from
    its YAML extras; the fork looks for Node only where its package manager put one, so it does not.  Its oracle
    therefore runs on a host without Node (oracle.HOST_NODE), which our side is shown too."""
    oracle.require_oracle(FORK)
    oracle.require_oracle(UPSTREAM_LIKE)
    home = _write(tmp_path / "home", {"config.yaml": "platforms:\n  whatsapp:\n    group_policy: allowlist\n"})
    with_node = [oracle.evaluate_batch([home], tmp_path / version, node="present", version=version)[0]["enabled"]
                 for version in (FORK, UPSTREAM_LIKE)]
    assert with_node == [[], ["whatsapp"]]
    assert oracle.HOST_NODE[FORK] == "absent"
    assert hermes_oracle_at(FORK).evaluate(home)["enabled"] == []
