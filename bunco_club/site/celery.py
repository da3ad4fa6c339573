"""The Celery app. Plain jobs run eagerly in the embedded default (CELERY_TASK_ALWAYS_EAGER)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bunco_club.site.settings")

app = Celery("bunco_club")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
