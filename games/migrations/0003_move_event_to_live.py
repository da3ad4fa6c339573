# The Event model moved to the live app (live 0001 takes it over). The table and its rows stay:
# this migration only removes the model from the games app's state.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0002_night_player_prizeaward_round_tableround_seat_tally_and_more"),
        ("live", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="Event")],
            database_operations=[],
        ),
    ]
