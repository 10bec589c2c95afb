"""Wording shared by the faces: the sentences the Textual screens (and any other face) show.

Plain functions from a judged report to words; no UI imports (no textual, no rich), so the
screens can share them without importing each other and `wizard/` stays importable without
the TUI installed.
"""

from __future__ import annotations


def verdict_words(report) -> tuple[str, bool]:
    """The verdict Hermes would reach at start-up, as a sentence beginning with ✓ or ✗ (a screen may
    strip the mark), and whether it starts: `check`'s own clause (wizard/judge/report.py)."""
    from wizard.judge.report import verdict_clause

    clause = verdict_clause(report)
    return f"{'✓' if report.would_start else '✗'} {clause[0].upper()}{clause[1:]}.", report.would_start


def tilde(text: str) -> str:
    """`text` with the user's home directory written `~` (as a shell prompt shows it): shorter on an
    80-column screen, and the same on every machine for the same home layout."""
    import os

    home = os.path.expanduser("~").rstrip("/")
    return text.replace(home + "/", "~/") if len(home) > 1 else text  # never for a home of "/"
