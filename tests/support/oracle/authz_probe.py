"""Oracle authorization probe: ask the real Hermes whether each sender of a home is authorized.

Runs INSIDE an oracle venv (0.17.0, 0.18.x or 0.19.0), imports Hermes and never our code.  Reads one
JSON object per stdin line, ``{"home": PATH, "senders": [{platform, user_id, chat_type, chat_id,
is_bot, user_name}, ...]}``, and answers one JSON line ``{"home", "results", "live", "error"}``:
``results[i]`` is ``true``/``false`` from ``GatewayRunner._is_user_authorized`` or
``"error: Type: message"`` when it raises; ``pairing_dir`` is the folder (relative to the home) the runner's
pairing store opened; ``adapter_errors`` names the own-policy adapters whose
constructor raises (the gateway's ``start()`` would crash on them: nothing is authorized at all);
``intake[i]`` is the live own-policy adapter's own gate for that sender (``_is_dm_intake_allowed``
-- 0.17: ``_is_dm_allowed``, the only DM gate its message handlers ask -- / ``_is_group_allowed``;
null without one, for WhatsApp Cloud; for Weixin groups before 0.22, the tests its message handler makes
inline, on the policy and list its constructor read: ``_weixin_inline_group_gate``); ``behavior`` maps each
sender's platform to ``_get_unauthorized_dm_behavior`` (pair | ignore).

Each home is loaded as ``probe.Batch`` loads it (environment reset, both ``.env`` loads), and its
runner is built as ``hermes gateway run`` builds it (``probe._build_runner``: the real
``GatewayRunner.__init__``, with its config and the pairing store it opens for this home), never
started; a runner that cannot be built is the home's ``error``.  As in a running gateway, it is then
given a live adapter for every ENABLED platform whose adapter enforces its own access policy, built
with Hermes's own ``_create_adapter`` (never connected), and every other enabled platform one that holds
its config (``ConfigOnlyAdapter``; not the relay, whose upstream decision it cannot stand in for).
``live`` lists the own-policy ones.

Homes must be throw-away copies: Hermes rewrites ``.env``, and its runner makes folders and files in the
home and the pairing store merges folders.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import traceback

import probe

OWN_POLICY = ("whatsapp", "whatsapp_cloud", "weixin", "wecom", "qqbot", "yuanbao")
# The adapter classes, for when `_create_adapter` declines because this venv lacks the platform's SDK
# (aiohttp, cryptography...): the oracle models a host that has it, where the adapter would be built.
# WhatsApp and WeCom are plugins from 0.18.0 on, core adapters in 0.17.0: the first module that exists (the main-line
# fork imports its bundled plugins under another namespace: then straight from the wheel's plugins/ package).
ADAPTER_CLASSES = {
    "whatsapp": (("hermes_plugins.whatsapp_platform.adapter", "plugins.platforms.whatsapp.adapter",
                  "gateway.platforms.whatsapp"), "WhatsAppAdapter"),
    "whatsapp_cloud": (("gateway.platforms.whatsapp_cloud",), "WhatsAppCloudAdapter"),
    "weixin": (("gateway.platforms.weixin",), "WeixinAdapter"),
    "wecom": (("hermes_plugins.wecom_platform.adapter", "plugins.platforms.wecom.adapter", "gateway.platforms.wecom"),
              "WeComAdapter"),
    "qqbot": (("gateway.platforms.qqbot.adapter",), "QQAdapter"),
    "yuanbao": (("gateway.platforms.yuanbao",), "YuanbaoAdapter"),
}


def _adapter_class(platform: str):
    modules, name = ADAPTER_CLASSES[platform]
    for module in modules[:-1]:
        try:
            return getattr(importlib.import_module(module), name)
        except ModuleNotFoundError:
            continue
    return getattr(importlib.import_module(modules[-1]), name)


class ConfigOnlyAdapter:
    """An enabled platform's adapter as the authorizer reads it (from 0.20 on): its ``config`` only.

    0.20's ``_is_user_authorized`` reads the live adapter's ``config.extra`` (``group_allowed_chats``,
    ``allow_from``, ``group_allow_from``) on every platform.  The adapters outside OWN_POLICY need SDKs this
    venv lacks, so each is stood in for by its real ``PlatformConfig``, which is what the base adapter
    keeps as ``config``; it claims no own policy and no upstream authorization, as those adapters do.
    """

    enforces_own_access_policy = False
    authorization_is_upstream = False

    def __init__(self, config) -> None:
        self.config = config


def _runner(gr):
    runner = probe._build_runner(gr)
    runner.adapter_errors = {}
    for platform, pcfg in runner.config.platforms.items():
        if pcfg.enabled and platform.value not in (*OWN_POLICY, "relay") and platform not in runner.adapters:
            runner.adapters[platform] = ConfigOnlyAdapter(pcfg)
        if pcfg.enabled and platform.value in OWN_POLICY:
            try:
                adapter = runner._create_adapter(platform, pcfg)
                if adapter is None:
                    adapter = _adapter_class(platform.value)(pcfg)
            except Exception as exc:  # `start()` does not catch this: the gateway would not run at all
                runner.adapter_errors[platform.value] = f"{type(exc).__name__}: {exc}"
                continue
            if adapter is not None and getattr(adapter, "enforces_own_access_policy", False):
                runner.adapters[platform] = adapter
    return runner


def _source(sender: dict):
    from gateway.config import Platform
    from gateway.session import SessionSource

    return SessionSource(platform=Platform(sender["platform"]), chat_id=sender.get("chat_id") or "",
                         chat_type=sender.get("chat_type", "dm"), user_id=sender.get("user_id"),
                         user_name=sender.get("user_name"), is_bot=bool(sender.get("is_bot")))


def _intake(runner, sender: dict):
    """The live own-policy adapter's own gate for this sender (what its message handler asks before
    dispatching), or None where there is no live adapter or its gate is not a method we can call."""
    from gateway.config import Platform

    name = sender["platform"]
    adapter = runner.adapters.get(Platform(name)) if name in OWN_POLICY else None
    if adapter is None or name == "whatsapp_cloud":
        return None
    user, chat = sender.get("user_id"), sender.get("chat_id")
    dm = sender.get("chat_type", "dm") in ("dm", "thread")
    try:
        if name == "yuanbao":
            policy = adapter._access_policy
            dm_gate = getattr(policy, "is_dm_intake_allowed", None) or policy.is_dm_allowed  # 0.17: one DM gate
            return bool(dm_gate(user) if dm else policy.is_group_allowed(chat))
        if dm:
            dm_gate = getattr(adapter, "_is_dm_intake_allowed", None) or adapter._is_dm_allowed  # 0.17: one DM gate
            return bool(dm_gate(user))
        if name == "weixin" and not hasattr(adapter, "_is_group_allowed"):  # before 0.22 its group gate is inline
            return _weixin_inline_group_gate(adapter, chat)
        if name in ("wecom", "qqbot"):
            return bool(adapter._is_group_allowed(chat, user))
        return bool(adapter._is_group_allowed(chat))
    except Exception as exc:
        return f"error: {type(exc).__name__}: {exc}"


def _weixin_inline_group_gate(adapter, chat: str) -> bool:
    """The tests Weixin's message handler makes inline on a group message (weixin.py, after `_guess_chat_type`),
    on the state its constructor read: `disabled` drops, `allowlist` drops a chat its `_group_allow_from` lacks,
    and `pairing` drops where the handler tests it (0.18 on: read from this adapter's own source)."""
    import inspect

    source = inspect.getsource(sys.modules[type(adapter).__module__])
    drops = ("disabled", "pairing") if 'self._group_policy == "pairing"' in source else ("disabled",)
    policy = adapter._group_policy
    return policy not in drops and (policy != "allowlist" or chat in adapter._group_allow_from)


def answer(batch: probe.Batch, request: dict) -> dict:
    home = request["home"]
    out: dict = {"home": home, "results": [], "live": [], "error": None}
    batch._reset(home)
    try:
        probe._cli_dotenv_load()
        probe._gateway_dotenv_load()
        import gateway.run as gr

        runner = _runner(gr)
        out["live"] = sorted(p.value for p in runner.adapters if p.value in OWN_POLICY)
        folder = getattr(runner.pairing_store, "_dir", None) or sys.modules["gateway.pairing"].PAIRING_DIR
        out["pairing_dir"] = os.path.relpath(folder, home)  # the folder the runner's store opened
        out["adapter_errors"] = runner.adapter_errors
        from gateway.config import Platform

        out["behavior"] = {s["platform"]: runner._get_unauthorized_dm_behavior(Platform(s["platform"]))
                           for s in request["senders"]}
        for sender in request["senders"]:
            try:
                out["results"].append(bool(runner._is_user_authorized(_source(sender))))
            except Exception as exc:
                out["results"].append(f"error: {type(exc).__name__}: {exc}")
        out["intake"] = [_intake(runner, sender) for sender in request["senders"]]
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}"
    finally:
        os.environ.clear()
        os.environ.update(batch._baseline_env)
    return out


def main() -> int:
    probe._own_stdout()
    batch = probe.Batch()
    for line in sys.stdin:
        if line.strip():
            probe._OUT.write(json.dumps(answer(batch, json.loads(line))) + "\n")
            probe._OUT.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
