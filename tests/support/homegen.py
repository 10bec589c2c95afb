"""Hypothesis strategies that build Hermes homes (``.env``, ``config.yaml``, credential files).

``homes()`` draws a :class:`HomeSpec`: the exact bytes of every file plus a short
human summary (its ``repr``), so a failing example reads like a bug report.
The space covers what decides whether Hermes 0.19.0 starts its gateway:

* platforms: own-policy ones (weixin, whatsapp, wecom, qqbot, yuanbao) and others
  (telegram, whatsapp_cloud, feishu, discord, slack, signal, matrix, email);
* credentials: all, some, none, placeholders, or in YAML instead of ``.env``;
* where a setting lives: ``.env``, ``platforms.X``, ``platforms.X.extra``,
  ``gateway.platforms.X`` (+ ``.extra``), top-level ``X:`` -- sometimes several
  places at once with different values;
* dm/group policies in odd case and padding, allow-all opt-ins in every spelling
  (per platform and ``GATEWAY_ALLOW_ALL_USERS``), ``enabled`` as YAML bools and
  strings, ``WHATSAPP_ENABLED`` spellings;
* ``.env`` quirks: ``export``, quotes, CRLF, BOM, inline comments, duplicates
  (last wins), ``${VAR}`` (backward and forward references, single-quoted),
  blanks, padding, two entries glued on one line;
* YAML quirks: broken syntax, ``qq:`` for ``qqbot:``, platform keys in odd case,
  ``home_channel`` with and without ``platform``, non-mapping ``extra`` or blocks,
  non-string policies; a legacy ``gateway.json`` underneath.
* a session-reset policy's ``bg_process_max_age_hours`` (config.yaml ``session_reset:``, ``gateway:
  session_reset:``, gateway.json ``default_reset_policy``): numbers, and the strings, lists, mappings and
  dates the runner of 0.18 and later crashes on;
* where Hermes 0.18.x and 0.19.0 load differently (research §8): a ``gateway:``
  that is not a mapping, a ``home_channel`` that is not one, a key only 0.19
  knows (``FIREWORKS_API_KEY``...) glued in front of an entry, a UTF-16 ``.env``
  with its BOM, non-mapping blocks and ``extra`` in ``gateway.json``.

This is test data, not a model of Hermes: the oracle decides what it means.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

OWN_POLICY = ("weixin", "whatsapp", "wecom", "qqbot", "yuanbao")
OTHERS = ("telegram", "whatsapp_cloud", "feishu", "discord", "slack", "signal", "matrix", "email")
PLATFORMS = OWN_POLICY + OTHERS

# platform -> (env credentials, YAML form of the credentials, policy env prefix, allow-all env)
_CREDS = {
    "weixin": ({"WEIXIN_ACCOUNT_ID": "b0f5c1d2e3a4@im.bot", "WEIXIN_TOKEN": "ilink-token-7f3a9c01"},
               {"token": "ilink-token-7f3a9c01", "extra": {"account_id": "b0f5c1d2e3a4@im.bot"}}),
    "whatsapp": ({"WHATSAPP_ENABLED": "true"}, {}),
    "wecom": ({"WECOM_BOT_ID": "aibot-5521", "WECOM_SECRET": "wecom-secret-0a1b"},
              {"extra": {"bot_id": "aibot-5521", "secret": "wecom-secret-0a1b"}}),
    "qqbot": ({"QQ_APP_ID": "102030405", "QQ_CLIENT_SECRET": "qq-secret-9z8y"},
              {"extra": {"app_id": "102030405", "client_secret": "qq-secret-9z8y"}}),
    "yuanbao": ({"YUANBAO_APP_ID": "yb-app-31", "YUANBAO_APP_SECRET": "yb-secret-77"},
                {"extra": {"app_id": "yb-app-31", "app_secret": "yb-secret-77"}}),
    "telegram": ({"TELEGRAM_BOT_TOKEN": "7123456789:AAHdemoTokenNotReal_0123"},
                 {"token": "7123456789:AAHdemoTokenNotReal_0123"}),
    "whatsapp_cloud": ({"WHATSAPP_CLOUD_PHONE_NUMBER_ID": "109876543210",
                        "WHATSAPP_CLOUD_ACCESS_TOKEN": "EAAGdemo0000"},
                       {"extra": {"phone_number_id": "109876543210", "access_token": "EAAGdemo0000"}}),
    "feishu": ({"FEISHU_APP_ID": "cli_a1b2c3d4", "FEISHU_APP_SECRET": "feishu-secret-55"},
               {"extra": {"app_id": "cli_a1b2c3d4", "app_secret": "feishu-secret-55"}}),
    "discord": ({"DISCORD_BOT_TOKEN": "MTAdemo.discord.token0"}, {"token": "MTAdemo.discord.token0"}),
    "slack": ({"SLACK_BOT_TOKEN": "xoxb-demo-0001", "SLACK_APP_TOKEN": "xapp-demo-0001"}, {"token": "xoxb-demo-0001"}),
    "signal": ({"SIGNAL_HTTP_URL": "http://127.0.0.1:8080", "SIGNAL_ACCOUNT": "+15551234567"},
               {"extra": {"http_url": "http://127.0.0.1:8080", "account": "+15551234567"}}),
    "matrix": ({"MATRIX_HOMESERVER": "https://matrix.example.org", "MATRIX_ACCESS_TOKEN": "syt_demo_token_01"},
               {"token": "syt_demo_token_01", "extra": {"homeserver": "https://matrix.example.org"}}),
    "email": ({"EMAIL_ADDRESS": "bot@example.org", "EMAIL_PASSWORD": "app-password-1",
               "EMAIL_IMAP_HOST": "imap.example.org", "EMAIL_SMTP_HOST": "smtp.example.org"},
              {"extra": {"address": "bot@example.org"}}),
}
_ENV_PREFIX = {"qqbot": "QQ", "whatsapp_cloud": "WHATSAPP_CLOUD"}
PLACES = ("env", "platforms", "platforms.extra", "gateway.platforms", "gateway.platforms.extra", "toplevel")

POLICIES = ("open", "pairing", "open", "allowlist", "Open", "disabled", " Open ", "OPEN", "open ", "", "public")
OPT_INS = ("true", "TRUE", "True", "1", "yes", "YES", "on", " true", "true ", "false", "0", "no", "", "y")
WHATSAPP_ENABLED = ("true", "on", "false", "0", "no", "TRUE", "yes", "1", "off", " true", "")
# YAML scalars for `enabled`, written verbatim: bools, quoted strings, junk.
ENABLED_YAML = ("true", "false", "yes", "no", "on", "off", '"yes"', '"off"', '"true"', '"1"', "1", "0", '"enabled"',
                "True")
PLACEHOLDERS = ("changeme", "xxx", "dummy", "***", "", "  ", "none")
# Keys in Hermes 0.19.0's glued-line list but not 0.18.x's (research §1.3), with plain values.
KEYS_019_ONLY = (("FIREWORKS_API_KEY", "fw-demo-123"), ("DEEPINFRA_API_KEY", "di-demo-123"),
                 ("DEEPINFRA_BASE_URL", "https://api.deepinfra.com/v1"), ("UPSTAGE_API_KEY", "up-demo-123"),
                 ("UPSTAGE_BASE_URL", "https://api.upstage.ai/v1"), ("GOOGLE_CHAT_HTTP_EVENTS_URL", "chat-events"),
                 ("GOOGLE_CHAT_HTTP_EVENTS_AUDIENCE", "aud-1"),
                 ("GOOGLE_CHAT_HTTP_EVENTS_SERVICE_ACCOUNT_EMAIL", "sa@example.iam"))
# `gateway:` values that are not a mapping (0.18.x then drops every platform setting of config.yaml).
GATEWAY_NOT_A_MAPPING = ("", '"x"', "[]", "true", "null")
# session-reset `bg_process_max_age_hours` values, YAML as written and JSON: the runner of 0.18 and later compares
# a truthy one with 0, a TypeError for anything but a number (0.17 never reads it).
AGES_YAML = ('"48"', "abc", "[24]", '"48"', "{hours: 1}", "2026-01-01", "abc", "''", "[]", "0", "48", "-1", "1.5",
             "true", "null")
AGES_JSON = ('"12"', '"x"', "[1]", '"12"', '{"h": 1}', '""', "[]", "0", "72", "null", "true")
# where the policy lives: config.yaml (0.19 also reads gateway.session_reset), legacy gateway.json, or both
AGE_PLACES = ("session_reset", "gateway.json", "gateway.session_reset", "session_reset", "gateway.json+yaml")


def rare(one_in: int) -> st.SearchStrategy[bool]:
    """True about once in *one_in* draws (False is the simple, shrink-to value)."""
    return st.sampled_from((False,) * (one_in - 1) + (True,))


def env_prefix(platform: str) -> str:
    return _ENV_PREFIX.get(platform, platform.upper())


class Raw(str):
    """A YAML scalar emitted exactly as written (``yes``, ``"off"``, ``1``)."""


def _yaml(node, indent: int = 0) -> str:
    pad = "  " * indent
    if isinstance(node, dict):
        if not node:
            return " {}\n"
        out = "\n"
        for k, v in node.items():
            out += f"{pad}{k}:{_yaml(v, indent + 1)}"
        return out
    if isinstance(node, Raw):
        return f" {node}\n"
    return f" {json.dumps(node)}\n"


@dataclass
class HomeSpec:
    """A generated home: file bytes by relative path, plus what was meant."""

    files: dict[str, bytes]
    summary: list[str] = field(default_factory=list)

    def write(self, path: Path) -> Path:
        path.mkdir(parents=True, exist_ok=True)
        for rel, data in self.files.items():
            target = path / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            if rel == ".env" or rel.endswith(".json"):
                target.chmod(0o600)
        return path

    def key(self) -> tuple:
        """Identity of the home on disk (two specs with equal keys are the same home)."""
        return tuple(sorted(self.files.items()))

    def describe(self) -> str:
        return "; ".join(self.summary) or "empty home"

    def __repr__(self) -> str:
        return f"HomeSpec<{self.describe()}>"


def _put(tree: dict, place: str, platform: str, key: str, value) -> None:
    """Put ``key: value`` for *platform* at a YAML *place*."""
    if place == "toplevel":
        block = tree.setdefault(platform, {})
    else:
        root = tree.setdefault("gateway", {}) if place.startswith("gateway.") else tree
        block = root.setdefault("platforms", {}).setdefault(platform, {})
    if place.endswith(".extra"):
        block = block.setdefault("extra", {})
    block[key] = value


@st.composite
def _platform(draw, name: str, env: list, tree: dict, summary: list) -> None:  # noqa: C901 -- one draw per platform knob, mirroring the catalog; its ifs are the cases
    creds, yaml_creds = _CREDS[name]
    prefix = env_prefix(name)
    mode = draw(st.sampled_from(("all", "all", "all", "some", "none", "yaml")))
    note = [f"{name}: creds={mode}"]
    if mode in ("all", "some"):
        keys = list(creds)
        if mode == "some" and len(keys) > 1:
            keys = draw(st.lists(st.sampled_from(keys), min_size=1, max_size=len(keys) - 1, unique=True))
        for key in keys:
            value = creds[key]
            if name == "whatsapp":
                value = draw(st.sampled_from(WHATSAPP_ENABLED))
                note.append(f"WHATSAPP_ENABLED={value!r}")
            elif "TOKEN" in key and draw(rare(10)):
                value = draw(st.sampled_from(PLACEHOLDERS))
                note.append(f"{key}={value!r}")
            env.append((key, value))
    elif mode == "yaml" and yaml_creds:
        place = draw(st.sampled_from(("platforms", "gateway.platforms", "toplevel")))
        for key, value in yaml_creds.items():
            for sub, subval in (value.items() if isinstance(value, dict) else [(None, value)]):
                _put(tree, place + (".extra" if sub else ""), name, sub or key, subval)
        note.append(f"creds@{place}")
    n_enabled = draw(st.sampled_from((0, 0, 0, 1, 1, 2)))
    if mode == "yaml" and not n_enabled and not draw(rare(4)):
        n_enabled = 1
    for _ in range(n_enabled):  # possibly two places that disagree
        place = draw(st.sampled_from(PLACES[1:]))
        value = draw(st.sampled_from(ENABLED_YAML))
        _put(tree, place, name, "enabled", Raw(value))
        note.append(f"enabled={value}@{place}")
    for kind in ("dm_policy", "group_policy"):
        for _ in range(draw(st.sampled_from((0, 0, 1, 1, 1, 2)))):
            place = draw(st.sampled_from(PLACES))
            value = draw(st.sampled_from(POLICIES))
            if place == "env":
                env.append((f"{prefix}_{kind.upper()}", value))
            elif draw(rare(13)):
                value = draw(st.sampled_from(("on", "yes", "null", "~", "false", "0", "[open]")))  # non-strings
                _put(tree, place, name, kind, Raw(value))
            else:
                _put(tree, place, name, kind, value)
            note.append(f"{kind}={value!r}@{place}")
    if draw(rare(3)):
        value = draw(st.sampled_from(OPT_INS))
        env.append((f"{prefix}_ALLOW_ALL_USERS", value))
        note.append(f"{prefix}_ALLOW_ALL_USERS={value!r}")
    if draw(rare(6)):
        value = draw(st.sampled_from(("*", "u1,u2", "123456789")))
        env.append((f"{prefix}_ALLOWED_USERS", value))
        note.append(f"allowed={value!r}")
    if draw(rare(80)):
        _put(tree, draw(st.sampled_from(PLACES[1:])), name, "home_channel", {"chat_id": "123"})
        note.append("home_channel-without-platform")
    if draw(rare(12)):
        odd = draw(st.sampled_from(("home_channel", "extra-string", "block-scalar", "home_channel-scalar")))
        if odd == "home_channel":
            _put(tree, draw(st.sampled_from(PLACES[1:])), name, "home_channel", {"platform": name, "chat_id": "42"})
        elif odd == "home_channel-scalar":  # 0.19 ignores it; 0.18 crashes
            value = Raw(draw(st.sampled_from(('"12345"', "12345", "null", "[]"))))
            _put(tree, draw(st.sampled_from(PLACES[1:])), name, "home_channel", value)
        elif odd == "extra-string":
            root = tree.setdefault("gateway", {}) if draw(st.booleans()) else tree
            platforms = root.setdefault("platforms", {})
            if isinstance(platforms.get(name), dict):
                platforms[name]["extra"] = "oops"
            else:
                platforms[name] = {"extra": "oops"}
        else:
            tree[name] = Raw(draw(st.sampled_from(("true", "open", "[]"))))
        note.append(f"odd-yaml:{odd}")
    summary.append(" ".join(note))


@st.composite
def _env_line(draw, key: str, value: str, n: int) -> list[str]:
    """Render one entry (maybe with an earlier shadow line and a ${} helper)."""
    lines: list[str] = []
    quote = draw(st.sampled_from(("", "", "", '"', "'")))
    if value != value.strip() and quote == "":
        quote = draw(st.sampled_from(('"', "'", "")))
    if draw(rare(10)):  # duplicate key: an earlier line, the last one wins
        lines.append(f"{key}={draw(st.sampled_from(('open', 'pairing', 'true', 'false', '')))}")
    helper = None
    if value and draw(rare(8)):  # ${VAR}: before/after the use, maybe single-quoted
        helper = f"HGEN_VALUE_{n}"
        value, helper_line = "${" + helper + "}", f"{helper}={value}"
        if draw(st.booleans()):
            lines.append(helper_line)
            helper = None
    text = f"{quote}{value}{quote}"
    if draw(rare(8)):
        text += draw(st.sampled_from((" # note", "  #inline", "#glued")))
    lead = draw(st.sampled_from(("", "", "", "", "export ", "  ")))
    sep = draw(st.sampled_from(("=", "=", "=", "=", " = ")))
    lines.append(f"{lead}{key}{sep}{text}")
    if helper:
        lines.append(helper_line)
    return lines


@st.composite
def homes(draw, utf16: bool = True) -> HomeSpec:  # noqa: C901 -- draws a whole home in file order; its ifs are the cases
    """A home; ``utf16=False`` never writes a UTF-16 ``.env`` (see test_repair_conformance.py)."""
    env: list[tuple[str, str]] = []
    tree: dict = {}
    summary: list[str] = []
    pool = st.sampled_from(OWN_POLICY + OWN_POLICY + OTHERS)
    chosen = draw(st.lists(pool, min_size=0 if draw(rare(15)) else 1, max_size=4, unique=True))
    for name in chosen:
        draw(_platform(name, env, tree, summary))
    if draw(rare(5)):
        value = draw(st.sampled_from(OPT_INS))
        env.append(("GATEWAY_ALLOW_ALL_USERS", value))
        summary.append(f"GATEWAY_ALLOW_ALL_USERS={value!r}")
    if draw(rare(10)):
        env.append(("QQ_DM_POLICY", "open"))  # not read by Hermes
        summary.append("QQ_DM_POLICY='open'")
    env = draw(st.permutations(env))
    files: dict[str, bytes] = {}
    if env or not draw(rare(10)):
        lines = ["# generated by tests/support/homegen.py"]
        for i, (key, value) in enumerate(env):
            lines += draw(_env_line(key, value, i))
            if draw(rare(6)):
                lines.append(draw(st.sampled_from(("", "# comment", "   "))))
            elif draw(rare(40)):
                lines.append(draw(st.sampled_from(
                    ("JUST_A_KEY", "=no-key", "not a valid line", 'BROKEN="unterminated'))))
        if len(lines) > 2 and draw(rare(12)):  # two entries glued on one line
            i = draw(st.integers(1, len(lines) - 2))
            lines[i:i + 2] = [lines[i] + lines[i + 1]]
            summary.append("glued-lines")
        if len(lines) > 1 and draw(rare(10)):  # a key only 0.19 splits on, glued in front of an entry
            i = draw(st.integers(1, len(lines) - 1))
            key, value = draw(st.sampled_from(KEYS_019_ONLY))
            lines[i] = f"{key}={value}{lines[i]}"
            summary.append(f"glued-behind-{key}")
        eol = draw(st.sampled_from(("\n", "\n", "\n", "\r\n")))
        encoding = draw(st.sampled_from(("utf-8",) * 6 + ("utf-8-sig",) * 2 + (("utf-16",) if utf16 else ())))
        if encoding == "utf-16" and len(lines) > 1:  # the BOM then garbles a real key, not the header comment
            lines = lines[1:]
        text = eol.join(lines) + draw(st.sampled_from((eol, eol, "")))
        # Python's utf-16 codec writes a BOM (Windows Notepad's "Unicode"); 0.18 reads it as utf-8-sig.
        files[".env"] = text.encode(encoding)
        summary.append(f".env eol={eol!r}" + {"utf-8": "", "utf-8-sig": " BOM", "utf-16": " UTF-16"}[encoding])
    else:
        summary.append("no .env")
    if draw(rare(20)):  # `qq:` is not a platform name (it must be `qqbot:`)
        tree.setdefault("platforms", {})["qq"] = {"extra": {"dm_policy": "open"}}
        summary.append("platforms.qq dm_policy=open")
    gateway_json: dict = {}
    if draw(rare(7)):  # the session-reset policy's background-process age
        place = draw(st.sampled_from(AGE_PLACES))
        if place.startswith("gateway.json"):
            value = draw(st.sampled_from(AGES_JSON))
            gateway_json["default_reset_policy"] = {"bg_process_max_age_hours": json.loads(value)}
            if place.endswith("+yaml"):  # config.yaml's policy replaces gateway.json's unless it is empty
                tree["session_reset"] = draw(st.sampled_from(({}, {"mode": "idle"})))
        else:
            value = draw(st.sampled_from(AGES_YAML))
            root = tree.setdefault("gateway", {}) if place.startswith("gateway.") else tree
            policy = root.setdefault("session_reset", {})
            if draw(st.booleans()):
                policy["mode"] = "idle"
            policy["bg_process_max_age_hours"] = Raw(value)
        summary.append(f"bg_process_max_age_hours={value}@{place}")
    gateway_scalar = None
    if draw(rare(20)):  # a non-mapping gateway: replaces whatever gateway: held
        tree.pop("gateway", None)
        gateway_scalar = draw(st.sampled_from(GATEWAY_NOT_A_MAPPING))
        summary.append(f"gateway: {gateway_scalar or '(empty)'}")
    yaml_text = _yaml(tree).lstrip("\n") if tree else ""
    if gateway_scalar is not None:
        yaml_text += f"gateway:{' ' + gateway_scalar if gateway_scalar else ''}\n"
    if tree and draw(rare(20)):  # platform key in odd case
        name = draw(st.sampled_from(chosen or ["weixin"]))
        yaml_text = yaml_text.replace(f"  {name}:", f"  {name.upper()}:", 1)
        summary.append(f"{name.upper()}-key")
    if draw(rare(30)):
        yaml_text += "broken: [unclosed\n  - : :\n"
        summary.append("broken-yaml")
    if yaml_text or draw(st.booleans()):
        files["config.yaml"] = ("model:\n  default: anthropic/claude-sonnet-4\n" + yaml_text).encode()
    if chosen and draw(rare(8)):  # legacy gateway.json: the lowest layer
        name = draw(st.sampled_from(chosen))
        block = {"enabled": draw(st.booleans()), "extra": {"dm_policy": draw(st.sampled_from(POLICIES))}}
        if draw(rare(6)):  # 0.19 skips or coerces these; 0.18 crashes
            block = draw(st.sampled_from(("x", {"enabled": True, "extra": "x"})))
        gateway_json["platforms"] = {name: block}
        summary.append(f"gateway.json {name}={block}")
    if gateway_json:
        files["gateway.json"] = json.dumps(gateway_json).encode()
    if "whatsapp" in chosen and draw(st.booleans()):
        files["whatsapp/session/creds.json"] = b'{"me": {"id": "15551234567:1@s.whatsapp.net"}}'
        summary.append("whatsapp creds.json")
    if "weixin" in chosen and draw(st.booleans()):
        files["weixin/accounts/b0f5c1d2e3a4@im.bot.json"] = json.dumps(
            {"token": "ilink-token-7f3a9c01", "base_url": "https://ilinkai.weixin.qq.com"}).encode()
    return HomeSpec(files, summary)


def _distinct(budget: int) -> dict[tuple, HomeSpec]:
    """The distinct homes among *budget* derandomized hypothesis examples."""
    specs: dict[tuple, HomeSpec] = {}

    @settings(max_examples=budget, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(homes())
    def collect(spec: HomeSpec) -> None:
        specs.setdefault(spec.key(), spec)

    collect()
    return specs


def corpus(n: int) -> list[HomeSpec]:
    """A deterministic list of *n* distinct generated homes."""
    budget = 2 * n
    while len(specs := _distinct(budget)) < n:
        budget *= 2
    return list(specs.values())[:n]
