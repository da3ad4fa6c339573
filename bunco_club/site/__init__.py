"""The site wiring: settings, urls, asgi/wsgi, Celery, the clock, the site views, load_demo.

The top layer: it may import every app. The club domain is the rest of bunco_club/."""

from bunco_club.site.celery import app as celery_app

__all__ = ("celery_app",)
