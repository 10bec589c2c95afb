"""envfile.key_starts: the split points of a glued `.env` line, as every modelled Hermes's sanitizer finds them.

Hermes keeps a `KEY=` needle unless another one starts no later and ends no earlier, comparing every pair
of needles on the line (0.19.0 hermes_cli/config.py `_sanitize_env_lines`); `key_starts` gets the same set from
one sort.  The property below holds it to the pairwise rule, written out as Hermes states it; the last test
shows why the pairwise rule cannot be ours: a line glued from tens of thousands of names.
"""

from __future__ import annotations

import signal

from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_wizard.hermes.loader.envfile import key_starts

# Names that overlap the ways real ones do: a suffix of another (LM_API_KEY in GLM_API_KEY), a prefix, equal ends.
KEYS = frozenset({"LM_API_KEY", "GLM_API_KEY", "API_KEY", "A", "AB", "BA", "B_A", "TELEGRAM_BOT_TOKEN", "BOT_TOKEN"})


def pairwise(line: str, keys: frozenset[str]) -> list[int]:
    """The rule as Hermes writes it: every pair of needles compared."""
    spans = []
    for key in keys:
        needle = key + "="
        at = line.find(needle)
        while at >= 0:
            spans.append((at, at + len(needle)))
            at = line.find(needle, at + len(needle))
    return sorted({s for s, e in spans if not any(s2 <= s and e2 >= e and (s2, e2) != (s, e) for s2, e2 in spans)})


pieces = st.sampled_from([k + "=" for k in KEYS] + ["x", "=", "G", "_", "1", " ", "://", "A", "B"])


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(st.lists(pieces, max_size=14).map("".join))
def test_the_sweep_finds_the_needles_the_pairwise_rule_keeps(line):
    assert key_starts(line, KEYS) == pairwise(line, KEYS)


def test_a_line_glued_from_many_names_is_split_without_comparing_every_pair():
    line = "TELEGRAM_BOT_TOKEN=x" * 60_000  # 1.2 MB; the pairwise rule makes 3.6e9 comparisons of it
    old = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("quadratic again")))
    signal.alarm(30)  # a hang guard on a loaded machine, not a speed target (benchmarks/ judge those)
    try:
        starts = key_starts(line, KEYS)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert starts == list(range(0, len(line), len("TELEGRAM_BOT_TOKEN=x")))
