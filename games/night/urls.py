from django.urls import path

from games.night import views

app_name = "games"

urlpatterns = [
    # A Bunco night
    path("nights/", views.host_nights, name="host_nights"),
    path("nights/new/", views.night_new, name="night_new"),
    path("nights/shape/", views.night_shape, name="night_shape"),
    path("j/<str:token>/", views.join, name="join"),
    path("n/<str:code>/claim/", views.claim, name="claim"),
    path("n/<str:code>/play/", views.play, name="play"),
    path("n/<str:code>/tally/", views.tally, name="tally"),
    path("n/<str:code>/undo/", views.undo, name="undo"),
    path("n/<str:code>/table/start/", views.table_start, name="table_start"),
    path("n/<str:code>/table/turn-over/", views.table_turn_over, name="table_turn_over"),
    path("n/<str:code>/table/roll-off-done/", views.table_roll_off_done, name="table_roll_off_done"),
    path("n/<str:code>/sheet/", views.sheet, name="sheet"),
    path("n/<str:code>/not-me/", views.not_me, name="not_me"),
    path("n/<str:code>/host/", views.night_host, name="night_host"),
    path("n/<str:code>/host/codes/", views.night_codes, name="night_codes"),
    path("n/<str:code>/host/correct/check/", views.host_correct_check, name="host_correct_check"),
    path("n/<str:code>/host/correct/", views.host_correct, name="host_correct"),
    path("n/<str:code>/host/players/", views.host_players, name="host_players"),
    path("n/<str:code>/host/players/arrival/", views.host_arrival, name="host_arrival"),
    path("n/<str:code>/host/players/leave/", views.host_leave, name="host_leave"),
    path("n/<str:code>/host/table/<int:number>/", views.night_table, name="night_table"),
    path("n/<str:code>/host/undo/<int:tally_id>/", views.host_undo, name="host_undo"),
    path("n/<str:code>/host/release/<int:player_id>/", views.host_release, name="host_release"),
    path("n/<str:code>/host/start/", views.host_start, name="host_start"),
    path("n/<str:code>/host/resume/", views.host_resume, name="host_resume"),
    path("n/<str:code>/host/reopen/", views.host_reopen, name="host_reopen"),
    path("n/<str:code>/host/turn-over/", views.host_turn_over, name="host_turn_over"),
    path("n/<str:code>/host/roll-off-done/", views.host_roll_off_done, name="host_roll_off_done"),
    path("n/<str:code>/host/end/", views.host_end, name="host_end"),
    path("n/<str:code>/host/prizes/", views.host_prizes, name="host_prizes"),
    path("n/<str:code>/screen/<str:token>/", views.screen, name="screen"),
    path("n/<str:code>/prizes/", views.night_prizes, name="prizes"),
    path("events/night/<str:code>/", views.night_events, name="night_events"),
    path("events/night/<str:code>/player/<int:player_id>/", views.player_events, name="player_events"),
]
