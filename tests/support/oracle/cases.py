"""Hand-written homes: hermes-platforms.md section 7.2 (A..Z8b) and known traps.

Each :class:`Case` is a home (file name -> text or bytes) and, where we know it, what
Hermes 0.19.0 answers (``expect``: would_start, refusal platform, enabled set);
``expect_by`` overrides that per version where another Hermes answers differently
(``Case.expected(version)``). ``VERSION_CASES`` (below) pin every researched
0.18.x / 0.19.0 difference (/work/research-hermes-versions.md), each answer
observed with the real oracle of that version.
The expectations were observed with the oracle and agree with the reference doc;
``test_probe.py`` keeps the oracle honest against them, ``test_conformance.py``
holds our engine to the oracle.

Section 7.2 ran with inherited process env in cases G/G2; here a home is judged
by its files alone (both sides run with a clean environment), so G2 -- whose
opt-in lived only in the process env -- refuses.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from . import REPO

DEMO_HOME = REPO / "assets" / "homes" / "death-loop"
V18 = "0.18.2"
V20 = "0.20.1"  # reads .env without the sanitizer's key splitting, and drops a leading BOM
V22 = "0.22.2"  # the fork packaging the main line (fork_differences.py says where it is not upstream)
V17 = "0.17.0"  # expected: 0.18.2's answers turned into starts (no refusal), unless `expect_by` says otherwise

W = "WEIXIN_ACCOUNT_ID=test-bot@im.bot\nWEIXIN_TOKEN=dummy-ilink-token-123456\n"
QQ = "QQ_APP_ID=102030405\nQQ_CLIENT_SECRET=qq-secret-9z8y\n"
WECOM = "WECOM_BOT_ID=aibot-5521\nWECOM_SECRET=wecom-secret-0a1b\n"
YB = "YUANBAO_APP_ID=yb-app-31\nYUANBAO_APP_SECRET=yb-secret-77\n"
TG = "TELEGRAM_BOT_TOKEN=7123456789:AAHdemoTokenNotReal_0123\n"


@dataclass(frozen=True)
class Case:
    name: str
    files: dict = field(default_factory=dict)  # relative path -> str (written byte-exact, utf-8)
    note: str = ""
    expect: tuple | None = None  # (would_start, refusal_platform, {enabled}); "crash" for a loader error
    source: Path | None = None  # copy this directory first (git drops modes: .env gets 0600)
    expect_by: dict = field(default_factory=dict)  # version -> expect, where it differs from 0.19.0's

    def expected(self, version: str = "0.19.0"):
        if version in self.expect_by:
            return self.expect_by[version]
        if version == V22:  # the main-line fork: 0.20.1's answer where none of its own is recorded
            return self.expected(V20)
        if version == V17:  # 0.18.2's answer, except that 0.17 has no refusal: a home it refuses starts
            answer = self.expected(V18)
            return (True, None, answer[2]) if isinstance(answer, tuple) and answer[0] is False else answer
        return self.expect

    def write(self, dst: Path) -> Path:
        if self.source is not None:
            shutil.copytree(self.source, dst, symlinks=True)
            if (dst / ".env").exists():
                (dst / ".env").chmod(0o600)
        dst.mkdir(parents=True, exist_ok=True)
        for rel, text in self.files.items():
            target = dst / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
            if rel == ".env":
                target.chmod(0o600)
        return dst


def _c(name, env=None, yaml=None, expect=None, note="", expect_by=None, **extra_files):
    files = dict(extra_files)
    if env is not None:
        files[".env"] = env
    if yaml is not None:
        files["config.yaml"] = yaml
    return Case(name, files, note, expect, expect_by=expect_by or {})


REFUSE_WX = (False, "weixin", {"weixin"})

CASES = [
    # --- hermes-platforms.md 7.2 -------------------------------------------------
    _c("A", W + "WEIXIN_DM_POLICY=open\n", expect=REFUSE_WX, note="weixin dm open, no allow-all"),
    _c("B", W + "WEIXIN_DM_POLICY=open\nWEIXIN_ALLOW_ALL_USERS=true\n", expect=(True, None, {"weixin"})),
    _c("C", W + "WEIXIN_DM_POLICY=open\nWEIXIN_ALLOW_ALL_USERS=on\n", expect=REFUSE_WX, note="'on' is not an opt-in"),
    _c("D", W + "WEIXIN_DM_POLICY=open\nGATEWAY_ALLOW_ALL_USERS=YES\n", expect=(True, None, {"weixin"})),
    _c("E", W + "WEIXIN_DM_POLICY=pairing\nWEIXIN_ALLOW_ALL_USERS=false\nWEIXIN_GROUP_POLICY=open\n",
       expect=REFUSE_WX, note="what Hermes's own weixin wizard writes"),
    _c("F", W, "platforms:\n  weixin:\n    enabled: true\n    extra:\n      dm_policy: open\n", expect=REFUSE_WX),
    _c("G", W + "WEIXIN_DM_POLICY=open\nWEIXIN_ALLOW_ALL_USERS=false\n", expect=REFUSE_WX),
    _c("G2", W + "WEIXIN_DM_POLICY=open\n", expect=REFUSE_WX, note="opt-in only in process env: not a file"),
    _c("H", W + "WEIXIN_DM_POLICY=pairing\n", "weixin:\n  dm_policy: open\n", expect=(True, None, {"weixin"}),
       note="env beats YAML"),
    _c("L", W + "WEIXIN_DM_POLICY=open\n", "platforms:\n  weixin:\n    enabled: false\n", expect=REFUSE_WX,
       note="env creds force-enable over enabled: false"),
    _c("P", W + 'WEIXIN_DM_POLICY=" Open "\n', expect=REFUSE_WX, note="policy is stripped and lower-cased"),
    _c("I", "WHATSAPP_ENABLED=true\n", "whatsapp:\n  dm_policy: open\n", expect=(False, "whatsapp", {"whatsapp"})),
    _c("I2", "WHATSAPP_ENABLED=true\nWHATSAPP_DM_POLICY=open\nWHATSAPP_ALLOW_ALL_USERS=1\n",
       expect=(True, None, {"whatsapp"})),
    _c("J", QQ, "platforms:\n  qqbot:\n    extra:\n      dm_policy: open\n", expect=(False, "qqbot", {"qqbot"})),
    _c("J2", QQ + "QQ_DM_POLICY=open\n", expect=(True, None, {"qqbot"}), note="QQ has no env policy var"),
    _c("N", WECOM + "WECOM_DM_POLICY=open\n", expect=(False, "wecom", {"wecom"})),
    _c("O", YB + "YUANBAO_GROUP_POLICY=open\n", expect=(False, "yuanbao", {"yuanbao"})),
    _c("K", TG, "telegram:\n  dm_policy: open\n", expect=(True, None, {"telegram"}), note="telegram is not checked"),
    _c("Z8b", W + "WEIXIN_ALLOWED_USERS=*\n", expect=(True, None, {"weixin"}), note="'*' is open by another name"),
    # --- homes the brief names ---------------------------------------------------
    Case("death-loop", source=DEMO_HOME, expect=(False, "whatsapp", {"telegram", "weixin", "whatsapp"}),
         note="assets demo; whatsapp (from YAML) is checked before weixin (from env)"),
    _c("home-channel-without-platform", W,
       "platforms:\n  telegram:\n    enabled: true\n    home_channel:\n      chat_id: '123'\n", expect="crash"),
    _c("broken-yaml", W + "WEIXIN_DM_POLICY=open\n", "platforms:\n  weixin: [\n  bad: : :\n", expect=REFUSE_WX,
       note="YAML ignored, .env still applies"),
    _c("qq-not-qqbot", QQ, "platforms:\n  qq:\n    extra:\n      dm_policy: open\n", expect=(True, None, {"qqbot"})),
    _c("empty-home", expect=(True, None, set())),
    _c("no-dotenv", yaml="platforms:\n  weixin:\n    enabled: true\n    dm_policy: open\n", expect=REFUSE_WX),
    # --- traps found with the oracle --------------------------------------------
    _c("forward-ref", W + "WEIXIN_DM_POLICY=${POL}\nPOL=open\n", expect=REFUSE_WX,
       note=".env is loaded twice; a ${VAR} defined later resolves on the 2nd load"),
    _c("forward-ref-chain", W + "WEIXIN_DM_POLICY=${A}\nA=${B}\nB=open\n", expect=(True, None, {"weixin"}),
       note="two loads resolve only one level of forward reference"),
    _c("single-quoted-ref", W + "POL=open\nWEIXIN_DM_POLICY='${POL}'\n", expect=REFUSE_WX,
       note="python-dotenv 1.2 expands ${VAR} even inside single quotes"),
    _c("bom-clean", "\ufeffWEIXIN_DM_POLICY=open\n" + W, expect=(True, None, {"weixin"}), expect_by={V20: REFUSE_WX},
       note="BOM glues onto the first key name when the sanitizer has nothing to rewrite (0.20: BOM dropped)"),
    _c("bom-no-final-newline", "\ufeffWEIXIN_DM_POLICY=open\n" + W.rstrip("\n"), expect=REFUSE_WX,
       note="missing final newline makes the sanitizer rewrite the file, which drops the BOM"),
    _c("bom-crlf", ("\ufeffWEIXIN_DM_POLICY=open\n" + W).replace("\n", "\r\n"), expect=(True, None, {"weixin"}),
       expect_by={V20: REFUSE_WX}),
    _c("glued-lines", W + "WEIXIN_DM_POLICY=openWEIXIN_ALLOW_ALL_USERS=true\n", expect=(True, None, {"weixin"}),
       note="the sanitizer splits concatenated known keys"),
    _c("glued-policy", W + "WEIXIN_GROUP_POLICY=disabledWEIXIN_DM_POLICY=open\n", expect=REFUSE_WX,
       expect_by={V20: (True, None, {"weixin"})}, note="split into two entries: dm_policy=open (0.20: one entry)"),
    _c("glued-creds", "WECOM_BOT_ID=aibot-5521WECOM_SECRET=wecom-secret-0a1b\n", expect=(True, None, {"wecom"}),
       expect_by={V20: (True, None, set())}, note="0.20: not split, so WECOM_SECRET is missing: wecom off"),
    _c("glued-unknown-key", W + "WEIXIN_DM_POLICY=pairingWHATSAPP_DM_POLICY=open\n", expect=(True, None, {"weixin"}),
       note="WHATSAPP_DM_POLICY is not in Hermes's known-key list, so nothing is split"),
    _c("inline-comment", "export " + W + "WEIXIN_DM_POLICY=open # was pairing\n", expect=REFUSE_WX),
    _c("hash-glued", W + "WEIXIN_DM_POLICY=open#x\n", expect=(True, None, {"weixin"})),
    _c("duplicate-last-wins", W + "WEIXIN_DM_POLICY=open\nWEIXIN_DM_POLICY=pairing\n", expect=(True, None, {"weixin"})),
    _c("placeholder-token", "WEIXIN_ACCOUNT_ID=a@im.bot\nWEIXIN_TOKEN=changeme\nWEIXIN_DM_POLICY=open\n",
       expect=(True, None, set()), note="placeholder token disables weixin at validation"),
    _c("short-token", "WEIXIN_ACCOUNT_ID=a@im.bot\nWEIXIN_TOKEN=abc\nWEIXIN_DM_POLICY=open\n",
       expect=(True, None, set())),
    _c("account-id-only", "WEIXIN_ACCOUNT_ID=a@im.bot\nWEIXIN_DM_POLICY=open\n", expect=REFUSE_WX),
    _c("int-token", yaml="platforms:\n  telegram:\n    enabled: true\n    token: 123456\n", expect="crash",
       note="a YAML int token crashes validation (.strip on int)"),
    _c("platform-key-case", W, "platforms:\n  WEIXIN:\n    extra:\n      dm_policy: open\n", expect=REFUSE_WX,
       note="platform names under platforms: are case-insensitive"),
    _c("platform-key-case-direct", W, "platforms:\n  WeiXin:\n    dm_policy: open\n", expect=(True, None, {"weixin"}),
       note="...but the shared-key bridge only looks up the exact lower-case name"),
    _c("gateway-platforms-beats-platforms", W,
       "gateway:\n  platforms:\n    weixin:\n      dm_policy: open\nplatforms:\n  weixin:\n    dm_policy: pairing\n",
       expect=REFUSE_WX, note="for bridged keys gateway.platforms is consulted first"),
    _c("toplevel-beats-platforms", W, "weixin:\n  dm_policy: open\nplatforms:\n  weixin:\n    dm_policy: pairing\n",
       expect=REFUSE_WX),
    _c("direct-key-beats-extra", W,
       "platforms:\n  weixin:\n    dm_policy: pairing\n    extra:\n      dm_policy: open\n",
       expect=(True, None, {"weixin"})),
    _c("yaml-on-is-bool", W, "weixin:\n  dm_policy: on\n", expect=(True, None, {"weixin"})),
    _c("enabled-yes-string", yaml='platforms:\n  wecom:\n    enabled: "yes"\n    dm_policy: open\n',
       expect=(False, "wecom", {"wecom"})),
    _c("whatsapp-extras-no-enabled", yaml="platforms:\n  whatsapp:\n    extra:\n      dm_policy: open\n",
       expect=(False, "whatsapp", {"whatsapp"}), expect_by={"0.17.0": (True, None, set())},
       note="plugin pass enables it (node present); in 0.17 WhatsApp is a core adapter the pass never enables"),
    _c("whatsapp-enabled-on", "WHATSAPP_ENABLED=on\nWHATSAPP_DM_POLICY=open\n",
       expect=(False, "whatsapp", {"whatsapp"}), expect_by={"0.17.0": (True, None, set())},
       note="research h05: 'on' enables WhatsApp from 0.18.1 on (0.18.0 and 0.17.0 start with nothing enabled)"),
    _c("whatsapp-enabled-no-beats-yaml", "WHATSAPP_ENABLED=no\n",
       "platforms:\n  whatsapp:\n    enabled: true\n    dm_policy: open\n", expect=(True, None, set())),
    _c("order-yaml-first", W + "WEIXIN_DM_POLICY=open\n" + WECOM + "WECOM_DM_POLICY=open\n",
       "platforms:\n  weixin:\n    reply_to_mode: first\n", expect=(False, "weixin", {"weixin", "wecom"}),
       note="refusal names the first violator in Hermes's dict order"),
    _c("order-env-only", W + "WEIXIN_DM_POLICY=open\n" + WECOM + "WECOM_DM_POLICY=open\n",
       expect=(False, "wecom", {"weixin", "wecom"})),
    _c("gateway-json-open", W, expect=REFUSE_WX,
       **{"gateway.json": '{"platforms": {"weixin": {"enabled": true, "extra": {"dm_policy": "open"}}}}'}),
    _c("extra-not-a-mapping", WECOM,
       "platforms:\n  wecom:\n    dm_policy: open\n  weixin:\n    extra: oops\n", expect=(True, None, {"wecom"}),
       note="a non-mapping extra aborts the whole YAML phase: wecom's dm_policy is lost"),
    _c("email-address-only", "EMAIL_ADDRESS=bot@example.org\n", expect=(True, None, set())),
    # --- a character YAML forbids: Hermes's yaml.safe_load raises, the whole file is ignored ---
    *[_c(f"yaml-control-{label}-keeps-env-open", W + "WEIXIN_DM_POLICY=open\n",
         f"platforms:\n  weixin:\n    dm_policy: pairing # a{char}b\n", expect=REFUSE_WX,
         note="config.yaml's pairing is lost; .env's open applies")
      for label, char in (("bel", "\x07"), ("esc", "\x1b"), ("nul", "\x00"), ("del", "\x7f"))],
    _c("yaml-control-drops-yaml-open", W, "model: 'x\x1by'\nplatforms:\n  weixin:\n    dm_policy: open\n",
       expect=(True, None, {"weixin"}), note="an open policy in an ignored config.yaml is not read"),
    _c("allow-all-padded", W + 'WEIXIN_DM_POLICY=open\nWEIXIN_ALLOW_ALL_USERS=" true"\n', expect=REFUSE_WX),
]


# --- Hermes 0.18.2 vs 0.19.0 (research §1-§2, §8; homes h01..h10) -----------------
START_NONE = (True, None, set())
VERSION_CASES = [
    _c("v-gateway-null", W, "gateway:\nweixin:\n  dm_policy: open\n", expect=REFUSE_WX,
       expect_by={V18: (True, None, {"weixin"})},
       note="h01: 0.18 reads gateway.streaming off a null gateway:, the YAML phase aborts, dm_policy is lost"),
    _c("v-gateway-string-platforms", yaml='gateway: "x"\nplatforms:\n  whatsapp:\n    enabled: true\n'
       "    extra:\n      dm_policy: open\n", expect=(False, "whatsapp", {"whatsapp"}), expect_by={V18: START_NONE},
       note="h10: a string gateway: aborts 0.18's YAML phase: every platform setting is lost"),
    _c("v-glued-fireworks", W + "WEIXIN_DM_POLICY=open\nFIREWORKS_API_KEY=fw123WEIXIN_ALLOW_ALL_USERS=true\n",
       expect=(True, None, {"weixin"}), expect_by={V18: REFUSE_WX, V20: REFUSE_WX},
       note="h02: FIREWORKS_API_KEY is a known key only in 0.19: 0.18 (and 0.20) do not split the line"),
    _c("v-glued-deepinfra", W + "WEIXIN_DM_POLICY=open\nDEEPINFRA_API_KEY=di123WEIXIN_ALLOW_ALL_USERS=true\n",
       expect=(True, None, {"weixin"}), expect_by={V18: REFUSE_WX, V20: REFUSE_WX},
       note="DEEPINFRA_API_KEY: known in 0.19 only (0.20 splits nothing)"),
    _c("v-glued-upstage", W + "WEIXIN_DM_POLICY=open\nUPSTAGE_API_KEY=up123WEIXIN_ALLOW_ALL_USERS=true\n",
       expect=(True, None, {"weixin"}), expect_by={V18: REFUSE_WX, V20: REFUSE_WX},
       note="UPSTAGE_API_KEY: known in 0.19 only (0.20 splits nothing)"),
    _c("v-home-channel-string", TG, 'platforms:\n  telegram:\n    home_channel: "12345"\n',
       expect=(True, None, {"telegram"}), expect_by={V18: "crash"},
       note="h03: 0.18's from_dict indexes a string home_channel (TypeError); 0.19 ignores it"),
    _c("v-utf16-bom-env", ("\ufeffWEIXIN_ALLOW_ALL_USERS=true\n" + W + "WEIXIN_DM_POLICY=open\n").encode("utf-16-le"),
       expect=(True, None, {"weixin"}), expect_by={V18: REFUSE_WX},
       note="h04: 0.18 reads UTF-16 as utf-8-sig, the BOM glues U+FFFD U+FFFD onto the first key (allow-all lost)"),
    _c("v-nested-session-reset", yaml='gateway:\n  session_reset:\n    at_hour: "4"\n', expect="crash",
       expect_by={V18: START_NONE}, note="h06: only 0.19 reads gateway.session_reset (and crashes comparing '4')"),
    _c("v-gateway-json-platform-string", expect=START_NONE, expect_by={V18: "crash"},
       note="h07: 0.18 calls .get on a non-dict gateway.json platform block",
       **{"gateway.json": '{"platforms": {"telegram": "x"}}\n'}),
    _c("v-gateway-json-extra-string", expect=START_NONE, expect_by={V18: "crash"},
       note="0.18 calls .get on a non-dict gateway.json extra",
       **{"gateway.json": '{"platforms": {"telegram": {"extra": "x"}}}'}),
    _c("v-google-chat-http", "GOOGLE_CHAT_HTTP_EVENTS_URL=https://chat.example.org/events\n", expect=START_NONE,
       note="HTTP mode alone is enough for 0.19 only, but its SDK is missing in the oracle venvs: neither enables it"),
    _c("v-mattermost-token-env", "MATTERMOST_URL=https://mm.example.org\nMATTERMOST_TOKEN=mm-token-123\n",
       expect=(True, None, {"mattermost"}), note="0.18's check_fn also wants the token in os.environ: here it is"),
    _c("v-mattermost-token-unparsed", 'MATTERMOST_URL=https://mm.example.org\nMATTERMOST_TOKEN="mm-token-123\n',
       expect=START_NONE, note="token not in os.environ (unterminated quote): disabled in both"),
    _c("v-homeassistant-token-env", "HASS_TOKEN=ha-token-123\n", expect=(True, None, {"homeassistant"}),
       note="0.18's check_fn also wants HASS_TOKEN in os.environ: here it is"),
    _c("v-dingtalk-nested-allowed-users", "DINGTALK_CLIENT_ID=ding-1\nDINGTALK_CLIENT_SECRET=ding-secret-1\n",
       "dingtalk:\n  extra:\n    allowed_users: [u1]\n", expect=(True, None, {"dingtalk"}),
       note="only 0.19 reads dingtalk.extra.allowed_users: authorization only, same verdict"),
    _c("v-telegram-free-response-topics", TG, "telegram:\n  free_response_topics: ['1']\n",
       expect=(True, None, {"telegram"}), note="0.19 seeds extra from free_response_topics: order only"),
    _c("v-discord-seed", "DISCORD_BOT_TOKEN=MTAdemo.discord.token0\n" + TG,
       "discord:\n  missed_message_backfill: true\n",
       expect=(True, None, {"discord", "telegram"}), note="0.19's discord hook seeds extra: order only"),
]
CASES += VERSION_CASES

# --- hostile structure (aliases, depth): what Hermes does with it, per version ---------------------------------
DEEP = "[" * 3000 + "]" * 3000  # Hermes's json.load raises RecursionError on it
HOSTILE_CASES = [
    _c("hostile-deep-gateway-json", W + "WEIXIN_DM_POLICY=open\n", expect=REFUSE_WX,
       note="gateway.json nested 3,000 deep: Hermes logs the load failure and goes on without it",
       **{"gateway.json": DEEP}),
    _c("hostile-deep-gateway-json-starts", W, expect=(True, None, {"weixin"}), **{"gateway.json": DEEP}),
    _c("hostile-deep-gateway-state", W + "WEIXIN_DM_POLICY=open\n", expect=REFUSE_WX,
       note="gateway_state.json is runtime state: no part of the start-up decision",
       **{"gateway_state.json": DEEP}),
    _c("hostile-deep-whatsapp-creds", "WHATSAPP_ENABLED=true\n", expect=(True, None, {"whatsapp"}),
       note="creds.json is read by the bridge after start-up, never by the loader",
       **{"whatsapp/session/creds.json": DEEP}),
    _c("hostile-deep-weixin-account", "WEIXIN_ACCOUNT_ID=test-bot@im.bot\nWEIXIN_DM_POLICY=open\n",
       expect=REFUSE_WX, **{"weixin/accounts/test-bot@im.bot.json": DEEP}),
    # A collection that holds itself: Hermes's loaders read it, its runner's ${VAR} expansion recurses and
    # crashes before the startup check (so before any refusal); observed with the real `hermes gateway run`.
    _c("hostile-yaml-self-list", W + "WEIXIN_DM_POLICY=open\n", "a: &a [*a]\n", expect="crash"),
    _c("hostile-yaml-self-map", W, "a: &a {b: *a}\n", expect="crash"),
    _c("hostile-yaml-self-nested", W, "platforms:\n  weixin:\n    dm_policy: pairing\n"
       "x:\n  - y: &loop\n      z: [1, *loop]\n", expect="crash"),
    _c("hostile-yaml-shared-not-self", W + "WEIXIN_DM_POLICY=open\n", "a: &a [1, 2]\nb: [*a, *a]\nc: {d: *a}\n",
       expect=REFUSE_WX, note="an alias used twice is no cycle"),
    _c("hostile-yaml-self-top-list", W + "WEIXIN_DM_POLICY=open\n", "&a [*a]\n", expect=REFUSE_WX,
       note="a top level that is not a mapping: the runner reads {} and never walks it"),
]
CASES += HOSTILE_CASES

# --- loader decisions found by a differential run (crashes at start), each observed with both oracles ----------
U32 = (W + "WEIXIN_DM_POLICY=open\n").encode("utf-32-le")
LOADER_CASES = [
    _c("loader-sessions-dir-null", expect="crash", note="R1: Path(None) in from_dict, every version",
       **{"gateway.json": '{"sessions_dir": null}'}),
    _c("loader-sessions-dir-number-before-refusal", W + "WEIXIN_DM_POLICY=open\n", expect="crash",
       note="R1: the crash comes before the startup check", **{"gateway.json": '{"sessions_dir": 5}'}),
    _c("loader-sessions-dir-list", expect="crash", **{"gateway.json": '{"sessions_dir": ["a"]}'}),
    _c("loader-sessions-dir-string", expect=START_NONE, **{"gateway.json": '{"sessions_dir": "/nonexistent/x"}'}),
    _c("loader-streaming-yaml-wins", yaml="streaming:\n  enabled: true\n", expect=START_NONE,
       note="R2: config.yaml's streaming mapping replaces gateway.json's bool before from_dict",
       **{"gateway.json": '{"streaming": true}'}),
    _c("loader-streaming-nested-yaml-wins", yaml="streaming: true\ngateway:\n  streaming: {enabled: true}\n",
       expect=START_NONE, **{"gateway.json": '{"streaming": true}'}),
    _c("loader-streaming-json-alone", expect=START_NONE, expect_by={V18: "crash"},
       note="0.18's StreamingConfig.from_dict calls .get on the bool", **{"gateway.json": '{"streaming": true}'}),
    _c("loader-streaming-yaml-phase-dropped", yaml="gateway: 5\nstreaming: true\n", expect=START_NONE,
       expect_by={V18: "crash"}, note="0.18's YAML phase fails on gateway: 5 before it lays streaming over",
       **{"gateway.json": '{"streaming": "x"}'}),
    _c("loader-reset-by-type-exclude-number", expect="crash", note="R3: tuple(5)",
       **{"gateway.json": '{"reset_by_type": {"dm": {"notify_exclude_platforms": 5}}}'}),
    _c("loader-reset-by-platform-exclude-bool", expect="crash",
       **{"gateway.json": '{"reset_by_platform": {"telegram": {"notify_exclude_platforms": true}}}'}),
    _c("loader-reset-by-platform-not-a-platform", expect=START_NONE, note="Platform('nope') is skipped first",
       **{"gateway.json": '{"reset_by_platform": {"nope": {"notify_exclude_platforms": 1}}, '
                          '"reset_by_type": {"dm": {"notify_exclude_platforms": "ab"}}}'}),
    _c("loader-session-reset-exclude-number", yaml="session_reset:\n  notify_exclude_platforms: 3\n",
       expect="crash"),
    _c("loader-utf32-le-env", b"\xff\xfe\x00\x00" + U32, expect="crash", expect_by={V18: REFUSE_WX},
       note="R4: 0.19's sanitizer leaves UTF-32; dotenv's latin-1 fallback puts NULs into os.environ"),
    _c("loader-utf32-be-env", b"\x00\x00\xfe\xff" + W.encode("utf-32-be"), expect="crash",
       expect_by={V18: (True, None, {"weixin"})}),
    _c("loader-utf32-comment-only", b"\xff\xfe\x00\x00" + "# a comment\n".encode("utf-32-le"), expect=START_NONE),
    _c("loader-not-utf8-nul", b"\xff\x01X=1\n" + W.encode() + b"B=x\x00y\n", expect="crash",
       expect_by={V18: (True, None, {"weixin"})}, note="0.19 leaves a file whose first line is U+FFFD as it is"),
    _c("loader-profile-routes-number", expect="crash", expect_by={V18: START_NONE},
       note="R5: parse_profile_routes iterates it (0.19 only)", **{"gateway.json": '{"profile_routes": 5}'}),
    _c("loader-profile-routes-true", expect="crash", expect_by={V18: START_NONE},
       **{"gateway.json": '{"profile_routes": true}'}),
    _c("loader-profile-routes-zero", expect=START_NONE, **{"gateway.json": '{"profile_routes": 0}'}),
    _c("loader-profile-routes-yaml-list-wins", yaml="profile_routes: []\n", expect=START_NONE,
       **{"gateway.json": '{"profile_routes": 5}'}),
]
CASES += LOADER_CASES

# --- what the runner's constructor crashes on, before the startup check (R6), each observed with every oracle ----
SR = "session_reset:\n  bg_process_max_age_hours: "
START_WX = (True, None, {"weixin"})
RUNNER_CASES = [
    _c("runner-bg-age-string", yaml=SR + "abc\n", expect="crash", expect_by={V17: START_NONE},
       note="R6: the runner compares it with 0 (TypeError); 0.17 has no such value"),
    _c("runner-bg-age-quoted-number-before-refusal", W + "WEIXIN_DM_POLICY=open\n", SR + '"48"\n', expect="crash",
       expect_by={V17: START_WX}, note="R6: the runner is built before the startup check"),
    _c("runner-bg-age-list", yaml=SR + "[24]\n", expect="crash", expect_by={V17: START_NONE}),
    _c("runner-bg-age-mapping", yaml=SR + "{hours: 24}\n", expect="crash", expect_by={V17: START_NONE}),
    _c("runner-bg-age-date", yaml=SR + "2026-01-01\n", expect="crash", expect_by={V17: START_NONE}),
    _c("runner-bg-age-empty-string", yaml=SR + "''\n", expect=START_NONE, note="falsy: never compared"),
    _c("runner-bg-age-empty-list", yaml=SR + "[]\n", expect=START_NONE),
    _c("runner-bg-age-numbers", yaml=SR + "1.5\n", expect=START_NONE),
    _c("runner-bg-age-negative", yaml=SR + "-3\n", expect=START_NONE),
    _c("runner-bg-age-true", yaml=SR + "true\n", expect=START_NONE, note="a bool is a number: one hour"),
    _c("runner-bg-age-nested", yaml="gateway:\n  session_reset:\n    bg_process_max_age_hours: x\n", expect="crash",
       expect_by={V18: START_NONE}, note="only 0.19 reads gateway.session_reset"),
    _c("runner-bg-age-gateway-json", expect="crash", expect_by={V17: START_NONE},
       **{"gateway.json": '{"default_reset_policy": {"bg_process_max_age_hours": "12"}}'}),
    _c("runner-bg-age-gateway-json-under-yaml-policy", yaml="session_reset:\n  mode: idle\n", expect=START_NONE,
       note="config.yaml's session_reset replaces gateway.json's policy",
       **{"gateway.json": '{"default_reset_policy": {"bg_process_max_age_hours": "12"}}'}),
    _c("runner-bg-age-gateway-json-under-empty-yaml-policy", yaml="session_reset: {}\n", expect="crash",
       expect_by={V17: START_NONE}, note="an empty session_reset leaves gateway.json's policy in place",
       **{"gateway.json": '{"default_reset_policy": {"bg_process_max_age_hours": [1]}}'}),
]
CASES += RUNNER_CASES
# config.yaml with a key written twice: PyYAML keeps the last (0.17-0.20), the main line's ruamel rejects the file
CASES += [_c("yaml-duplicate-key", W, "weixin:\n  dm_policy: open\nmodel: x\nmodel: y\n", expect=REFUSE_WX)]

BY_NAME = {c.name: c for c in CASES}

# The 0.22.2 fork's own answers where they differ from 0.20.1's, recorded from it.  Each is either a main-line change
# our 0.21.3 model makes too (held to it by the conformance suites) or a fork difference (fork_differences.py).
MAIN_LINE_ANSWERS = {
    "L": (True, None, set()),  # an explicit enabled: false beats env credentials (main line)
    "forward-ref": (True, None, {"weixin"}),  # fork: dotenv-interpolation
    "platform-key-case-direct": REFUSE_WX,  # adapter keys under a platform block reach extra (main line)
    "direct-key-beats-extra": REFUSE_WX,  # fork: authored-extra-wins
    "whatsapp-extras-no-enabled": (True, None, set()),  # fork: node-from-pm-only (its host has no Node.js)
    "extra-not-a-mapping": (False, "wecom", {"wecom"}),  # adapter keys under a platform block (main line)
    "v-nested-session-reset": (True, None, set()),  # no session-reset policies (main line)
    "v-google-chat-http": (True, None, {"google_chat"}),  # fork: google-chat-installs-on-demand
    "v-homeassistant-token-env": (True, None, set()),  # fork: homeassistant-left-core
    "hostile-yaml-self-list": REFUSE_WX,  # the runner's config read fails open (main line)
    "hostile-yaml-self-map": (True, None, {"weixin"}),
    "hostile-yaml-self-nested": (True, None, {"weixin"}),
    **{name: (True, None, set()) for name in (  # no session-reset policies: nothing in them crashes (main line)
        "loader-reset-by-type-exclude-number", "loader-reset-by-platform-exclude-bool",
        "loader-session-reset-exclude-number", "runner-bg-age-string", "runner-bg-age-list", "runner-bg-age-mapping",
        "runner-bg-age-date", "runner-bg-age-nested", "runner-bg-age-gateway-json",
        "runner-bg-age-gateway-json-under-empty-yaml-policy")},
    "runner-bg-age-quoted-number-before-refusal": REFUSE_WX,
    "yaml-duplicate-key": (True, None, {"weixin"}),  # ruamel rejects the file: its open policy is never read
}
for _name, _answer in MAIN_LINE_ANSWERS.items():
    BY_NAME[_name].expect_by[V22] = _answer
