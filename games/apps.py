from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from games.night import (
            export,  # noqa: F401  (adds the nights to the club's export)
            renderers,  # noqa: F401  (registers the night's event renderers)
        )
        from games.table import renderers as table_renderers  # noqa: F401  (and the game tables')
