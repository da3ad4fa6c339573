from django.urls import path

from tournaments.views import director, group, group_sheet, new, printouts, screen

app_name = "tournaments"

urlpatterns = [
    path("t/", new.tournament_list, name="list"),
    path("t/new/", new.tournament_new, name="new"),
    path("t/<str:code>/director/", director.dashboard, name="dashboard"),
    path("t/<str:code>/director/register/", director.director_register, name="register"),
    path("t/<str:code>/director/register/member/<int:member_id>/", director.director_register_member,
         name="register_member"),
    path("t/<str:code>/director/check-in/<int:entrant_id>/", director.director_check_in, name="check_in"),
    path("t/<str:code>/director/seed/", director.director_seed, name="seed"),
    path("t/<str:code>/director/drop/<int:entrant_id>/", director.director_drop, name="drop"),
    path("t/<str:code>/director/delete/", director.director_delete, name="delete"),
    path("t/<str:code>/director/start/", director.director_start, name="start"),
    path("t/<str:code>/director/practice/", director.director_practice, name="practice"),
    path("t/<str:code>/director/pause/", director.director_pause, name="pause"),
    path("t/<str:code>/director/resume/", director.director_resume, name="resume"),
    path("t/<str:code>/director/end-now/", director.director_end_now, name="end_now"),
    path("t/<str:code>/director/start-clock/", director.director_start_clock, name="start_clock"),
    path("t/<str:code>/director/group/<int:group_id>/seat-to-bot/", director.director_seat_to_bot, name="seat_to_bot"),
    path("t/<str:code>/director/extend/<int:group_id>/", director.director_extend, name="extend"),
    path("t/<str:code>/director/decide/<int:number>/", director.director_decide, name="decide"),
    path("t/<str:code>/director/codes/", printouts.director_codes, name="codes"),
    path("t/<str:code>/director/results.csv", printouts.director_results_csv, name="results_csv"),
    path("t/<str:code>/director/group/<int:group_id>/", group_sheet.director_group, name="director_group"),
    path("t/<str:code>/director/group/<int:group_id>/correct/", group_sheet.director_correct, name="correct"),
    path("t/<str:code>/director/group/<int:group_id>/on-phones/", group_sheet.director_on_phones, name="on_phones"),
    path("t/<str:code>/director/strike/<int:turn_id>/", group_sheet.director_strike, name="strike"),
    path("t/<str:code>/screen/<str:token>/", screen.screen, name="screen"),
    path("tg/<str:token>/", group.group_join, name="group_join"),
    path("t/group/<str:code>/", group.group_page, name="group"),
    path("t/group/<str:code>/turn/", group.group_turn, name="group_turn"),
    path("t/group/<str:code>/undo/", group.group_undo, name="group_undo"),
    path("events/tournament/<str:code>/", screen.tournament_events, name="events"),
]
