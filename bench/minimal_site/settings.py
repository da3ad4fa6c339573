"""The project's settings (database, sessions, caches, middleware) with only what the one view needs
installed: whatever the project's tally POST costs beyond this site's is the project's own."""

from bunco_club.site.settings import *  # noqa: F403

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django_htmx",
    "bench.minimal_site",
]
ROOT_URLCONF = "bench.minimal_site.urls"
