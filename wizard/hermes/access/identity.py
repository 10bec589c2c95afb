"""Sender identity as Hermes 0.18.2/0.19.0 compare it (`gateway/whatsapp_identity.py`, `gateway/pairing.py`).

A WhatsApp identifier is cut down to its number (`+`, `:device`, `@domain` dropped) and then
expanded through the bridge's alias files (`lid-mapping-<id>.json`, `..._reverse.json`), which
map a phone number to its LID and back.  Other platforms compare the stripped string as is.

Contract: pure functions of their arguments; the alias files come in as data (`AccessFiles`).
"""

from __future__ import annotations

import re
from typing import Any

from hermes_wizard.hermes.access.access_files import AccessFiles

# whatsapp_identity.py:42, used with re.match (so a trailing newline would pass `$`, as in Hermes)
_SAFE_IDENTIFIER_RE = re.compile(r"^[A-Za-z0-9@.+\-]+$")


def normalize_whatsapp(value: Any) -> str:
    """`normalize_whatsapp_identifier`."""
    return str(value or "").strip().replace("+", "", 1).split(":", 1)[0].split("@", 1)[0]


def expand_whatsapp(identifier: Any, files: AccessFiles) -> set[str]:
    """`expand_whatsapp_aliases`: every alias reachable through the mapping files."""
    normalized = normalize_whatsapp(identifier)
    if not normalized:
        return set()
    resolved: set[str] = set()
    queue = [normalized]
    while queue:
        current = queue.pop(0)
        if not current or current in resolved or not _SAFE_IDENTIFIER_RE.match(current):
            continue
        resolved.add(current)
        for suffix in ("", "_reverse"):
            parsed = files.alias(f"lid-mapping-{current}{suffix}")
            if parsed is None:
                continue
            if parsed.crash:  # not caught by Hermes (it catches OSError and JSONDecodeError only)
                raise ValueError(parsed.crash)
            mapped = normalize_whatsapp(parsed.data)
            if mapped and mapped not in resolved:
                queue.append(mapped)
    return resolved


WHATSAPP_IDENTITY = ("whatsapp",)  # platforms whose IDs go through the alias files (0.20: WhatsApp Cloud too)


def pairing_aliases(platform: str, user_id: Any, files: AccessFiles,
                    whatsapp_like: tuple[str, ...] = WHATSAPP_IDENTITY) -> set[str]:
    """`PairingStore._user_id_aliases` (`whatsapp_like`: the platforms with WhatsApp identity rules)."""
    raw = str(user_id or "").strip()
    if not raw:
        return set()
    aliases = {raw}
    if platform in whatsapp_like:
        aliases.add(normalize_whatsapp(raw) or raw)
        aliases |= expand_whatsapp(raw, files)
    aliases.discard("")
    return aliases


def stored_ids(data: Any, objects_only: bool = False) -> list[Any]:
    """What `for approved_user_id in approved` iterates; TypeError where Hermes's loop raises.  `objects_only`: the
    store reads a file that is not a JSON object as empty (the main line's `_load_approved`)."""
    if objects_only:
        return list(data) if isinstance(data, dict) else []
    if isinstance(data, (dict, list, str)):
        return list(data)
    raise TypeError(f"'{type(data).__name__}' object is not iterable")


def approved_match(platform: str, user_id: str, files: AccessFiles,
                   whatsapp_like: tuple[str, ...] = WHATSAPP_IDENTITY, objects_only: bool = False) -> str | None:
    """`PairingStore.is_approved`: the stored ID that matches `user_id`, or None."""
    mine = pairing_aliases(platform, user_id, files, whatsapp_like)
    for stored in stored_ids(files.approved_for(platform).data, objects_only):
        theirs = pairing_aliases(platform, stored, files, whatsapp_like)
        if mine and theirs and mine & theirs:
            return str(stored)
    return None
