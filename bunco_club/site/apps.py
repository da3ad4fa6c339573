from django.apps import AppConfig


class SiteConfig(AppConfig):
    """The site's wiring, an app only so that its management commands (load_demo) are found."""

    name = "bunco_club.site"
    label = "bunco_site"
    verbose_name = "The site's wiring"
