from django.apps import AppConfig


class MinimalSiteConfig(AppConfig):
    name = "bench.minimal_site"
    label = "minimal_site"
    default_auto_field = "django.db.models.BigAutoField"
