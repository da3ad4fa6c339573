"""PostgreSQL's `bunco_snapshot_after(bigint)`: the snapshot a query takes when the function is
called, which games/night/taps.py `read_tap` compares with its own statement's snapshot to prove
that the statement that locked a table's row also read everything committed before the lock.

PL/pgSQL, VOLATILE: a volatile function takes a fresh snapshot for each query it runs (PostgreSQL's
documentation, "Function Volatility Categories"), and PL/pgSQL is never inlined into the calling
statement (an SQL function could be, and would then answer with the caller's snapshot). The
argument is the locked row's id: it ties the call to that row, so the call comes after the lock.
SQLite needs nothing: its IMMEDIATE transactions take turns.
"""

from django.db import migrations
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps

CREATE = """
CREATE OR REPLACE FUNCTION bunco_snapshot_after(locked_id bigint) RETURNS pg_snapshot
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    now_seen pg_snapshot;
BEGIN
    SELECT pg_current_snapshot() INTO now_seen;
    RETURN now_seen;
END
$$
"""
DROP = "DROP FUNCTION IF EXISTS bunco_snapshot_after(bigint)"


def create(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0016_table_seat_language'),
    ]

    operations = [migrations.RunPython(create, drop)]
