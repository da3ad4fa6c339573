"""WSGI entry point: pages and POSTs on gunicorn workers in the scaled layout (docs/OPERATIONS.md)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bunco_club.site.settings")

django_application = get_wsgi_application()

from servestatic.wsgi import ServeStatic  # noqa: E402

from bunco_club.site.static import with_static_files  # noqa: E402

application = with_static_files(ServeStatic, django_application)

from bunco_club.site.backups import hold_serving_lock  # noqa: E402

# Held for the worker's life (shared with every other serving process): `manage.py restore` refuses meanwhile.
serving = hold_serving_lock()
