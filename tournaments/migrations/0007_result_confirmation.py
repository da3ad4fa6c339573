import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def confirm_final_groups(apps, schema_editor):
    """Groups final before confirmations existed counted as they were: they stay counted."""
    Group = apps.get_model("tournaments", "Group")
    Group.objects.filter(status="final").update(result="confirmed")


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0006_round_ended_now'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='tournament',
            name='confirm_results',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='group',
            name='result',
            field=models.CharField(blank=True, choices=[('', 'Not reported yet'), ('reported', 'Waiting for confirmation'), ('disputed', 'Disputed: the director settles it'), ('confirmed', 'Confirmed')], default='', max_length=10),
        ),
        migrations.AddField(
            model_name='entrant',
            name='phone',
            field=models.CharField(blank=True, default='', max_length=64),
        ),
        migrations.AddField(
            model_name='turn',
            name='phone',
            field=models.CharField(blank=True, default='', max_length=64),
        ),
        migrations.RunPython(confirm_final_groups, migrations.RunPython.noop),
        migrations.CreateModel(
            name='ResultEntry',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('reported', 'Reported'), ('confirmed', 'Confirmed'), ('disputed', 'Disputed'), ('settled', 'Settled by the director')], max_length=10)),
                ('phone', models.CharField(blank=True, default='', max_length=64)),
                ('scores', models.JSONField(blank=True, default=dict)),
                ('key', models.CharField(blank=True, max_length=64, null=True)),
                ('created_at', models.DateTimeField()),
                ('director', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('entrant', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tournaments.entrant')),
                ('group', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='result_entries', to='tournaments.group')),
                ('tournament', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='result_entries', to='tournaments.tournament')),
            ],
            options={
                'ordering': ['id'],
                'constraints': [models.UniqueConstraint(fields=('tournament', 'key'), name='resultentry_unique_key')],
            },
        ),
    ]
