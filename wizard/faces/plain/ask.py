"""How the plain face asks and says: questionary prompts, and paragraphs wrapped to the terminal.

Every question uses questionary's `unsafe_ask`, so Ctrl-C raises KeyboardInterrupt (its `ask` would print
"Cancelled by user" and return None, which a flow could mistake for an answer); a closed stdin raises
EOFError.  The flows turn both into "Cancelled. No changes were made."

Without colour (NO_COLOR, TERM=dumb: prompt_toolkit then draws in one bit) the highlighted choice is
reversed and answers are bold, so the selection is visible without colour.  What is said is escaped
(a home's text never reaches the terminal raw) and scrubbed of every secret the asker was told about.

Contract: questionary and prompt_toolkit are imported here, lazily, and nowhere else in `wizard/`.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from hermes_wizard.core.safetext import as_spoken, scrub, visible_lines

if TYPE_CHECKING:
    import questionary

MAX_WIDTH = 100  # wider paragraphs are hard to read, whatever the terminal


def no_colour() -> bool:
    return bool(os.environ.get("NO_COLOR")) or os.environ.get("TERM", "") in ("", "dumb")


class Asks(Protocol):
    """What a flow needs of its asker: `Asker` on a terminal; a test may hand in its own."""

    def say(self, text: str = "", indent: str = "", hang: int = 2) -> None: ...

    def show(self, text: str) -> None: ...

    def choose(self, message: str, choices: list[tuple[str, str]], default: str | None = None) -> str: ...

    def secret(self, message: str, check: Callable[[str], str | None]) -> str: ...

    def text(self, message: str, check: Callable[[str], str | None] | None = None, default: str = "") -> str: ...

    def confirm(self, message: str, default: bool = False) -> bool: ...


class Asker:
    def __init__(self, width: int | None = None) -> None:
        columns = width or shutil.get_terminal_size((80, 24)).columns
        self.width = max(40, min(columns, MAX_WIDTH))
        self.secrets: set[str] = set()  # values that are masked wherever they would be said

    # -- saying ----------------------------------------------------------------------------------------------

    def say(self, text: str = "", indent: str = "", hang: int = 2) -> None:
        """Each line of `text` a paragraph wrapped to the terminal, its continuation lines under the
        indent plus `hang` spaces (a diff is said with `show`, unwrapped)."""
        lines = []
        for paragraph in text.splitlines() or [""]:
            lines += textwrap.wrap(paragraph, self.width - 1, initial_indent=indent,
                                   subsequent_indent=" " * (len(indent) + hang), break_on_hyphens=False) or [""]
        self._write("\n".join(lines))

    def show(self, text: str) -> None:
        """Preformatted lines (a diff), as they are."""
        self._write(text.rstrip("\n"))

    def _write(self, text: str) -> None:
        sys.stdout.write(visible_lines(as_spoken(scrub(text, self.secrets))) + "\n")
        sys.stdout.flush()

    # -- asking ----------------------------------------------------------------------------------------------

    def choose(self, message: str, choices: list[tuple[str, str]], default: str | None = None) -> str:
        """One of `choices` (title, value); typing filters the list, arrows move, Enter picks."""
        import questionary

        options = [questionary.Choice(visible_lines(title), value=value) for title, value in choices]
        start = next((option for option in options if option.value == default), None)
        picked: str = questionary.select(message, options, default=start, style=self._style(), use_jk_keys=False,
                                         use_search_filter=True, instruction="(arrows, or type to filter; Enter)"
                                         ).unsafe_ask()
        return picked

    def secret(self, message: str, check: Callable[[str], str | None]) -> str:
        """A masked answer; `check` says why a non-empty value cannot be right (empty: keep what is set)."""
        import questionary

        value: str = questionary.password(message, validate=self._validator(check), style=self._style()).unsafe_ask()
        if value:
            self.secrets.add(value)
        return value

    def text(self, message: str, check: Callable[[str], str | None] | None = None, default: str = "") -> str:
        import questionary

        value: str = questionary.text(message, default=default, validate=self._validator(check),
                                      style=self._style()).unsafe_ask()
        return value

    def confirm(self, message: str, default: bool = False) -> bool:
        import questionary

        # auto_enter=False: y or n then Enter, like every other answer; on a key alone the Enter that follows
        # "n" was passed on to the next question (and opened Telegram)
        return bool(questionary.confirm(message, default=default, style=self._style(), auto_enter=False)
                    .unsafe_ask())

    # -- helpers ---------------------------------------------------------------------------------------------

    @staticmethod
    def _validator(check: Callable[[str], str | None] | None) -> Callable[[str], bool | str] | None:
        if check is None:
            return None
        return lambda value: True if not value else (check(value) or True)

    @staticmethod
    def _style() -> questionary.Style | None:
        if not no_colour():
            return None
        import questionary

        return questionary.Style([("qmark", "bold"), ("question", "bold"), ("answer", "bold"),
                                  ("pointer", "bold"), ("highlighted", "reverse"), ("selected", "bold"),
                                  ("instruction", ""), ("text", ""), ("disabled", "")])
