from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = "Live events"

    def ready(self) -> None:
        from live import renderers  # noqa: F401  (registers the connection check's renderer)
