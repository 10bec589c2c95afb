"""Why Apply is off, in the words every face shows when it is asked for anyway (wizard/faces/outcome.py)."""

from __future__ import annotations

from hermes_wizard.faces.outcome import apply_off_words, writes_anyway


def test_the_words_typed_are_matched_loosely_and_nothing_else():
    assert writes_anyway("  Write Anyway ") and not writes_anyway("write anyhow") and not writes_anyway("")


def test_a_mistyped_confirmation_is_quoted_back_escaped():
    """What was typed is shown again: a terminal escape in it is shown, not obeyed."""
    said = apply_off_words(anything=True, refused=True, typed="write\x1b[2Jany")
    assert "\x1b" not in said and "is not 'write anyway'" in said


def test_nothing_to_apply_comes_first():
    assert apply_off_words(anything=False, refused=True, typed="x").startswith("Nothing to apply")
    assert apply_off_words(anything=True, refused=True, typed="").startswith("Apply is off:")
