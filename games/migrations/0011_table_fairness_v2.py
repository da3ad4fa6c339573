"""Version 2 of FAIRNESS.md: a table says which derivation its chance follows (the tables already
stored are version 1 and keep it), and the phones' contributions are kept with the seats and moves."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0010_table_seats_held")]

    operations = [
        # Every table stored so far was dealt by version 1; new tables are version 2.
        migrations.AddField(model_name="table", name="fairness",
                            field=models.PositiveSmallIntegerField(default=1), preserve_default=False),
        migrations.AlterField(model_name="table", name="fairness",
                              field=models.PositiveSmallIntegerField(default=2)),
        migrations.AddField(model_name="tableseat", name="contribution",
                            field=models.CharField(blank=True, max_length=32)),
        migrations.AddField(model_name="move", name="client",
                            field=models.CharField(blank=True, max_length=32)),
    ]
