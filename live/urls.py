from django.urls import path

from live import views

app_name = "live"

urlpatterns = [
    path("check/", views.connection_check, name="connection_check"),
    path("check/feed/", views.connection_check_feed, name="connection_check_feed"),
    path("check/ping/", views.connection_check_ping, name="connection_check_ping"),
    path("events/check/", views.connection_check_events, name="connection_check_events"),
]
