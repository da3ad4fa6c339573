from django.urls import path

from games.night.views import host, phone, screen

app_name = "games"

urlpatterns = [
    # A Bunco night
    path("nights/", host.host_nights, name="host_nights"),
    path("nights/new/", host.night_new, name="night_new"),
    path("nights/shape/", host.night_shape, name="night_shape"),
    path("j/<str:token>/", phone.join, name="join"),
    path("n/<str:code>/claim/", phone.claim, name="claim"),
    path("n/<str:code>/play/", phone.play, name="play"),
    path("n/<str:code>/tally/", phone.tally, name="tally"),
    path("n/<str:code>/undo/", phone.undo, name="undo"),
    path("n/<str:code>/table/start/", phone.table_start, name="table_start"),
    path("n/<str:code>/table/turn-over/", phone.table_turn_over, name="table_turn_over"),
    path("n/<str:code>/table/roll-off-done/", phone.table_roll_off_done, name="table_roll_off_done"),
    path("n/<str:code>/sheet/", phone.sheet, name="sheet"),
    path("n/<str:code>/not-me/", phone.not_me, name="not_me"),
    path("n/<str:code>/host/", host.night_host, name="night_host"),
    path("n/<str:code>/host/codes/", host.night_codes, name="night_codes"),
    path("n/<str:code>/host/correct/check/", host.host_correct_check, name="host_correct_check"),
    path("n/<str:code>/host/correct/", host.host_correct, name="host_correct"),
    path("n/<str:code>/host/players/", host.host_players, name="host_players"),
    path("n/<str:code>/host/players/arrival/", host.host_arrival, name="host_arrival"),
    path("n/<str:code>/host/players/leave/", host.host_leave, name="host_leave"),
    path("n/<str:code>/host/table/<int:number>/", host.night_table, name="night_table"),
    path("n/<str:code>/host/undo/<int:tally_id>/", host.host_undo, name="host_undo"),
    path("n/<str:code>/host/release/<int:player_id>/", host.host_release, name="host_release"),
    path("n/<str:code>/host/start/", host.host_start, name="host_start"),
    path("n/<str:code>/host/resume/", host.host_resume, name="host_resume"),
    path("n/<str:code>/host/reopen/", host.host_reopen, name="host_reopen"),
    path("n/<str:code>/host/turn-over/", host.host_turn_over, name="host_turn_over"),
    path("n/<str:code>/host/roll-off-done/", host.host_roll_off_done, name="host_roll_off_done"),
    path("n/<str:code>/host/end/", host.host_end, name="host_end"),
    path("n/<str:code>/host/prizes/", host.host_prizes, name="host_prizes"),
    path("n/<str:code>/screen/<str:token>/", screen.screen, name="screen"),
    path("n/<str:code>/prizes/", screen.night_prizes, name="prizes"),
    path("events/night/<str:code>/", screen.night_events, name="night_events"),
    path("events/night/<str:code>/player/<int:player_id>/", phone.player_events, name="player_events"),
]
