from django.urls import path

from games.table.views import new, opener, phone, watch

app_name = "tables"

urlpatterns = [
    path("tables/new/", new.table_new, name="new"),
    path("t/<str:code>/", phone.table_page, name="table"),
    path("t/<str:code>/claim/", phone.claim, name="claim"),
    path("t/<str:code>/not-me/", phone.not_me, name="not_me"),
    path("t/<str:code>/move/", phone.move, name="move"),
    path("t/<str:code>/state/", phone.state, name="state"),
    path("t/<str:code>/start/", opener.start, name="start"),
    path("t/<str:code>/seat/<int:number>/bot/", opener.to_bot, name="to_bot"),
    path("t/<str:code>/seat/<int:number>/back/", opener.take_back, name="take_back"),
    path("t/<str:code>/seat/<int:number>/free/", opener.free, name="free"),
    path("t/<str:code>/screen/<str:token>/", watch.screen, name="screen"),
    path("t/<str:code>/replay/", watch.replay_page, name="replay"),
    path("t/<str:code>/replay/check/", watch.check, name="check"),
    path("events/table/<str:code>/", phone.events, name="events"),
    path("events/table/<str:code>/screen/<str:token>/", watch.screen_events, name="screen_events"),
]
