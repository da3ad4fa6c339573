# The Event model moved here from the games app. Its table (games_event) and every row stay where
# they are: this migration only tells Django's state that the model now belongs to live.

from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        # The table was created by games 0001 (on an existing database it is already there).
        ("games", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Event",
                    fields=[
                        ("id", models.BigAutoField(primary_key=True, serialize=False)),
                        ("channel", models.CharField(max_length=64)),
                        ("kind", models.CharField(max_length=32)),
                        ("data", models.JSONField(default=dict)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        "db_table": "games_event",
                        "indexes": [models.Index(fields=["channel", "id"], name="event_channel_id")],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
