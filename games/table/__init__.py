"""Game tables: where any `games.rules.table.TableGame` is played (Fill or Bust with server dice,
Kismet score sheets, Ninety-Nine or Bust with hidden hands). Empty of games until the next issue.

What will live here (docs/DESIGN.md §2): models.py with Table (game, options, code, the seed's
commitment), TableSeat and Move (append-only: seat, move, what chance produced, idempotency key),
imported by games/models.py so Django finds them under the `games` label; actions.py (make_move:
lock the table, apply the move through the engine, append the Move, log the public event on
table:<id> and each seat's view on table:<id>:seat:<n>, publish together); bots, renderers, views
and urls. A phone claims a seat through games/phones.py, as at a night.

games.table and games.night never import each other (tests/test_layout.py).
"""
