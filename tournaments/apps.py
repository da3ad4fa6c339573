from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Fill or Bust tournaments"

    def ready(self) -> None:
        from tournaments import renderers  # noqa: F401  (registers the tournament's event renderers)
