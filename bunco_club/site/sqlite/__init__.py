"""The embedded default's database backend: Django's SQLite, with its writers queued (base.py)."""
