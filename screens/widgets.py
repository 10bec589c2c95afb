"""Small widgets every screen shares: the header with a plain-ASCII icon, a footer redrawn only when its keys
change, a radio button whose chosen state shows without colour, findings whose errors stand out without colour,
and a coloured diff.

UI only: the words come from wizard/ (wording, safetext, render_diff); these decide how they look.
"""

from __future__ import annotations

from textual.command import CommandPalette, SearchIcon
from textual.containers import VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Checkbox, Footer, Header, RadioButton, RadioSet, Static

from hermes_wizard.core.safetext import as_spoken, visible_lines

# Textual's default icon (U+2B58) is missing from many terminal fonts and shows as a box; this one
# exists everywhere and still reads as a menu (clicking it opens the command palette).
HEADER_ICON = "="


def wizard_header() -> Header:
    return Header(icon=HEADER_ICON)


def verdict_line(words: str, ok: bool) -> Static:
    """The verdict as `check` words it (the App's `verdict_now`, or the screen's own report), put above a screen's
    scrolling body so it stays in view at 80x24 whatever the body holds; strongest without colour (wizard.tcss)."""
    return Static(visible_lines(words), classes="verdict-ok" if ok else "verdict-bad", id="verdict", markup=False)


class WizardFooter(Footer):
    """Textual's footer of keys, rebuilt only when the keys it shows change.  Textual rebuilds it (removes and mounts
    every key) after each bindings signal of its screen: five times before the first screen is drawn, for the same
    keys, ~45 ms CPU of the start (benchmarks/bench_tui.py), and again at every focus change."""

    _composed_for: tuple | None = None  # the keys (and their state) the footer was last built for

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        if not self.is_attached:  # removed while the call waited for the refresh
            return
        palette = self.app.COMMAND_PALETTE_BINDING
        keys = tuple((key, *active[1:]) for key, active in self.screen.active_bindings.items()
                     if active.binding.show or key == palette)  # what Footer.compose reads
        shown = (self.show_command_palette, self.app.ENABLE_COMMAND_PALETTE, keys)
        if shown != self._composed_for:
            self._composed_for = shown
            await self.recompose()


class WrappingToggle:
    """A toggle (radio button, checkbox) as tall as its words wrapped (wizard.tcss lets them wrap): Textual's is one
    line high, its words cut at the screen's edge."""

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.render().get_height(self.styles, width)  # type: ignore[attr-defined]


class WrappedCheckbox(WrappingToggle, Checkbox):
    """A checkbox whose words wrap."""


class Choice(WrappingToggle, RadioButton):
    """A radio button that marks the chosen option with a different glyph, not only a different colour,
    so NO_COLOR and colour-blind users can tell which option is selected; its words wrap."""

    BUTTON_OFF = " "
    BUTTON_ON = "●"

    @property
    def _button(self) -> Content:
        # ToggleButton draws the same BUTTON_INNER in both states, told apart by colour alone.
        self.BUTTON_INNER = self.BUTTON_ON if self.value else self.BUTTON_OFF
        return super()._button


class ChoiceSet(RadioSet):
    """A RadioSet whose cursor starts on the chosen option (not the first), and whose Up and Down stop at
    the ends: wrapping from the first option to the last put the cursor on "Disabled" by surprise."""

    def on_mount(self) -> None:
        self.call_after_refresh(self._start_on_pressed)  # after RadioSet's own mount put it on the first

    def _start_on_pressed(self) -> None:
        if self.pressed_index >= 0:
            self._selected = self.pressed_index

    def action_previous_button(self) -> None:
        if self._selected is None or self._selected > 0:
            super().action_previous_button()

    def action_next_button(self) -> None:
        if self._selected is None or self._selected < len(self._nodes) - 1:
            super().action_next_button()


class PlainPalette(CommandPalette):
    """Textual's command palette with an ASCII prompt: its magnifying-glass emoji is missing from many
    terminal fonts (the header avoids Textual's icon for the same reason)."""

    def on_mount(self) -> None:
        for icon in self.query(SearchIcon):
            icon.icon = ">"


def findings_content(lines: list[str]) -> Content:
    """Findings lines (as wizard/faces/outcome.py's finding_lines words them: mark first), errors in bold and the
    theme's error colour — bold survives NO_COLOR, where colours turn grey."""
    styled = []
    for line in lines:
        mark = line[:1]
        style = "bold $text-error" if mark == "✗" else ("$text-warning" if mark == "!" else "")
        styled.append(Content.styled(as_spoken(line), style))  # `hermes wizard doctor` inside Hermes
    return Content("\n").join(styled)


def diff_content(diff: str) -> Content:
    """A unified diff with added lines green and removed ones red (file headers bold); under NO_COLOR
    the `+`/`-` at the start of each line still says which is which."""
    styled = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "$text-success"
        elif line.startswith("-"):
            style = "$text-error"
        elif line.startswith("~"):  # a secret whose value changed (its mask alone would hide that)
            style = "$text-warning"
        elif line.startswith("@@"):
            style = "$text-accent"
        else:
            style = ""
        styled.append(Content.styled(line, style))
    return Content("\n").join(styled)


class DiffView(VerticalScroll):
    """The plan's diff, scrollable by keyboard, coloured; `text` is the plain diff (for tests and copies)."""

    def __init__(self, diff: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.text = diff

    def compose(self):
        yield Static(diff_content(self.text), id="diff-lines", markup=False)
