from django.urls import path

from games.table.views import new, opener, phone, watch

app_name = "tables"

urlpatterns = [
    path("tables/new/", new.table_new, name="new"),
    path("g/<str:code>/", phone.table_page, name="table"),
    path("g/<str:code>/claim/", phone.claim, name="claim"),
    path("g/<str:code>/not-me/", phone.not_me, name="not_me"),
    path("g/<str:code>/move/", phone.move, name="move"),
    path("g/<str:code>/here/", phone.here, name="here"),
    path("g/<str:code>/back/", phone.back, name="back"),
    path("g/<str:code>/state/", phone.state, name="state"),
    path("g/<str:code>/start/", opener.start, name="start"),
    path("g/<str:code>/seat/<int:number>/bot/", opener.to_bot, name="to_bot"),
    path("g/<str:code>/seat/<int:number>/back/", opener.take_back, name="take_back"),
    path("g/<str:code>/seat/<int:number>/free/", opener.free, name="free"),
    path("g/<str:code>/screen/<str:token>/", watch.screen, name="screen"),
    path("g/<str:code>/replay/", watch.replay_page, name="replay"),
    path("g/<str:code>/replay/check/", watch.check, name="check"),
    path("g/<str:code>/record.json", watch.record, name="record"),
    path("tables/verify_record.py", watch.verifier, name="verifier"),
    path("events/table/<str:code>/", phone.events, name="events"),
    path("events/table/<str:code>/screen/<str:token>/", watch.screen_events, name="screen_events"),
]
