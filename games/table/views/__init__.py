"""The game table's views, split by visitor: opening a table (new), a phone at the table (phone),
the opener's seat controls (opener), the table screen and the replay (watch)."""
