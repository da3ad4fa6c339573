"""First to Ten: a fourth game, one folder (docs/DESIGN.md §2), that no file outside this folder names.

Its rules and its `GameRules` record (`rules.py`), its templates (`templates/games/table/first_to_ten/`)
and its script (`static/js/games/first_to_ten/table.js`) are all here. The tests register it
(`installed`), and a browser test's server runs with `settings.py`, which registers it there.
"""

from __future__ import annotations

from pathlib import Path

FOLDER = Path(__file__).resolve().parent
TEMPLATES = FOLDER / "templates"
STATIC = FOLDER / "static"
