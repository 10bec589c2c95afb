"""Wording shared by the faces: the sentences the Textual screens (and any other face) show.

Plain functions from a judged report to words; no UI imports (no textual, no rich), so the
screens can share them without importing each other and `wizard/` stays importable without
the TUI installed.
"""

from __future__ import annotations


def verdict_words(report) -> tuple[str, bool]:
    """The verdict Hermes would reach at start-up, in one sentence, and whether it starts.

    The sentence begins with ✓ or ✗ so a screen may strip the mark and reuse the rest.
    """
    if report.effective.crash:
        return f"✗ The gateway will not start: {report.effective.crash}", False
    if report.violations:
        first = report.violations[0]
        return (f"✗ The gateway will refuse to start because {first.platform} has an open policy without an "
                f"allow-all opt-in (and then exits 0, so a service restarts it forever)."), False
    enabled = [row.name for row in report.rows if row.enabled]
    return f"✓ The gateway will start ({', '.join(enabled) or 'no messaging platforms yet'}).", True


def tilde(text: str) -> str:
    """`text` with the user's home directory written `~` (as a shell prompt shows it): shorter on an
    80-column screen, and the same on every machine for the same home layout."""
    import os

    home = os.path.expanduser("~").rstrip("/")
    return text.replace(home + "/", "~/") if len(home) > 1 else text  # never for a home of "/"
