"""Conformance on `.env` encodings (found by a differential run): for each Hermes version in ``oracle.VERSIONS``, seeded
random `.env` files in UTF-32 / UTF-16 (LE and BE, with and without a byte-order mark), UTF-8 (with and without one) and
latin-1, some with a stray NUL, invalid byte or lone surrogate, are judged by our `check` and by the oracle, which must
agree (tests/support/oracle/compare.py).  0.19.0 crashes at start when NUL bytes reach python-dotenv (its sanitizer
leaves UTF-32 and broken files alone); on the code before that run all 115 such homes of 400 were predicted to start.
"""

from __future__ import annotations

import codecs
import random
from pathlib import Path

import pytest
from oracle import VERSIONS
from oracle.cases import Case
from oracle.compare import assert_conforms

HOMES = {"full": 300, "quick": 75}  # per version; the fast loop's stand-in judges the first quarter
SIZES = [pytest.param("full", marks=pytest.mark.slow), pytest.param("quick", marks=pytest.mark.stand_in)]
SEED = 4
LINES = ("WEIXIN_ACCOUNT_ID=test-bot@im.bot", "WEIXIN_TOKEN=dummy-ilink-token-123456", "WEIXIN_DM_POLICY=open",
         "# comment", "", "JUSTKEY", "WEIXIN_ALLOW_ALL_USERS=true", "X=${WEIXIN_DM_POLICY}")
BOMS = {"utf-32-le": codecs.BOM_UTF32_LE, "utf-32-be": codecs.BOM_UTF32_BE, "utf-16-le": codecs.BOM_UTF16_LE,
        "utf-16-be": codecs.BOM_UTF16_BE, "utf-8": codecs.BOM_UTF8, "latin-1": b""}
STRAYS = (b"\x00", b"\xff", b"\xfe\xff", b"\x00\xd8", b"\x80")


def _env(r: random.Random) -> bytes:
    lines = [r.choice(LINES) for _ in range(r.randint(0, 5))]
    text = r.choice(("\n", "\r\n")).join(lines) + r.choice(("\n", ""))
    encoding = r.choice(sorted(BOMS))
    data = (BOMS[encoding] if r.random() < 0.8 else b"") + text.encode(encoding)
    if r.random() < 0.3:
        at = r.randrange(len(data) + 1)
        data = data[:at] + r.choice(STRAYS) + data[at:]
    if r.random() < 0.15:
        data = b"\xff\x01" + data  # a first line that decodes to U+FFFD: 0.19's sanitizer leaves the file
    return data


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("size", SIZES)
def test_env_encodings_are_judged_as_hermes_judges_them(size, version, hermes_oracle_at, tmp_path):
    hermes = hermes_oracle_at(version)
    r = random.Random(SEED)
    for i in range(HOMES[size]):
        data = _env(r)
        home = Case(f"env{i}", {".env": data}).write(Path(tmp_path) / f"env{i:04d}")
        assert_conforms(home, hermes.evaluate(home), label=f".env bytes {data[:160]!r}", host_env=hermes.host_env(),
                        version=version)
