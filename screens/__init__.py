"""Textual screens (one per module), built on the `wizard` engine."""
