from django.apps import AppConfig


class BuncoClubConfig(AppConfig):
    name = "bunco_club"
    verbose_name = "Bunco clubs"
