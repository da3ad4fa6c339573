"""The minimal site as a minimal Django site is served: Django's own ASGI handler. With
MINIMAL_SITE_HANDLER=project, the project's (bunco_club/site/handler.py: one hop a request to a
request thread), to see what the project's tally costs beyond the minimal write on the same serving."""

import os

from django.core.asgi import get_asgi_application
from django.core.handlers.asgi import ASGIHandler

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.minimal_site.settings")

application: ASGIHandler
if os.environ.get("MINIMAL_SITE_HANDLER") == "project":
    import django

    from bunco_club.site.handler import StreamAwareASGIHandler

    django.setup(set_prefix=False)
    application = StreamAwareASGIHandler()
else:
    application = get_asgi_application()
