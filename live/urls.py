from django.urls import path

from live import views

app_name = "live"

# A check is a room: /check/ opens a fresh one and redirects to its page, whose <room> is a signed
# token (live.actions); the room's feed, ping and stream carry the same token.
urlpatterns = [
    path("check/", views.connection_check, name="connection_check"),
    path("check/<str:room>/", views.connection_check_room, name="connection_check_room"),
    path("check/<str:room>/feed/", views.connection_check_feed, name="connection_check_feed"),
    path("check/<str:room>/ping/", views.connection_check_ping, name="connection_check_ping"),
    path("events/check/<str:room>/", views.connection_check_events, name="connection_check_events"),
]
