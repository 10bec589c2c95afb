"""Names for data whose shape the home decides, not the wizard (for annotations only).

A home's config.yaml and gateway.json are parsed by PyYAML and json: a mapping whose keys and values
are whatever the file holds (YAML keys need not even be strings).  Code that reads them narrows each
value with isinstance where it uses it, so these are `Any` by nature: the one honest boundary where
the checker cannot know more.  Import under `if TYPE_CHECKING:` (annotations only).
"""

from __future__ import annotations

from typing import Any, TypeAlias

Parsed: TypeAlias = dict[Any, Any]  # a mapping as parsed from a home's file
