import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0007_result_confirmation'),
    ]

    operations = [
        migrations.AddField(
            model_name='tournament',
            name='starts_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='tournament',
            name='check_in_minutes',
            field=models.PositiveSmallIntegerField(default=60),
        ),
        migrations.CreateModel(
            name='CheckIn',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('how', models.CharField(choices=[('code', "Scanned the projector's code"), ('link', 'Personal link'), ('director', 'The director')], max_length=10)),
                ('phone', models.CharField(blank=True, default='', max_length=64)),
                ('key', models.CharField(blank=True, max_length=64, null=True)),
                ('created_at', models.DateTimeField()),
                ('entrant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='check_ins', to='tournaments.entrant')),
                ('tournament', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='check_ins', to='tournaments.tournament')),
            ],
            options={
                'ordering': ['id'],
                'constraints': [models.UniqueConstraint(fields=('tournament', 'key'), name='checkin_unique_key')],
            },
        ),
    ]
