"""Clubs and members made before codes existed each get their own (the added field gave every
existing row the same one), so the next migration can make them unique."""

import secrets

from django.db import migrations


def give_codes(apps, schema_editor):
    for model_name, field in (("Club", "feed_code"), ("Member", "code")):
        model = apps.get_model("bunco_club", model_name)
        for pk in model.objects.values_list("pk", flat=True):
            model.objects.filter(pk=pk).update(**{field: secrets.token_urlsafe(18)})


class Migration(migrations.Migration):

    dependencies = [
        ("bunco_club", "0002_clubs_run_month_after_month"),
    ]

    operations = [
        migrations.RunPython(give_codes, migrations.RunPython.noop),
    ]
