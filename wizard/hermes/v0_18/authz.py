"""Hermes 0.18.x's authorization: 0.19.0's, except how allow-all flags are read.

0.19.0 reads every allowlist and allow-all variable through `_auth_env`, which strips the value
(0.19.0 gateway/authz_mixin.py:31-43).  0.18.2 reads the allowlists with
`os.getenv(...).strip()` — the same — but the allow-all flags with `os.getenv(...).lower()`,
unstripped (0.18.2 gateway/authz_mixin.py:428 and :514): `" true"` opens a 0.19 gateway and
not a 0.18 one.  The pairing store, WhatsApp identity and adapters are the same code in both.
"""

from __future__ import annotations

from hermes_wizard.hermes.access.authz import TRUE, Authorizer


class Authorizer018(Authorizer):
    version = "0.18.2"

    def allow_all_on(self, environ: dict[str, str], name: str) -> bool:
        return environ.get(name, "").lower() in TRUE
