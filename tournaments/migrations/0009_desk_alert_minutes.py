from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0008_check_in_window'),
    ]

    operations = [
        migrations.AddField(
            model_name='tournament',
            name='alert_minutes',
            field=models.PositiveSmallIntegerField(default=5),
        ),
    ]
