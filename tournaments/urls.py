from django.urls import path

from tournaments import views

app_name = "tournaments"

urlpatterns = [
    path("t/", views.tournament_list, name="list"),
    path("t/new/", views.tournament_new, name="new"),
    path("t/<str:code>/director/", views.dashboard, name="dashboard"),
    path("t/<str:code>/director/register/", views.director_register, name="register"),
    path("t/<str:code>/director/register/member/<int:member_id>/", views.director_register_member,
         name="register_member"),
    path("t/<str:code>/director/check-in/<int:entrant_id>/", views.director_check_in, name="check_in"),
    path("t/<str:code>/director/seed/", views.director_seed, name="seed"),
    path("t/<str:code>/director/drop/<int:entrant_id>/", views.director_drop, name="drop"),
    path("t/<str:code>/director/delete/", views.director_delete, name="delete"),
    path("t/<str:code>/director/start/", views.director_start, name="start"),
    path("t/<str:code>/director/practice/", views.director_practice, name="practice"),
    path("t/<str:code>/director/pause/", views.director_pause, name="pause"),
    path("t/<str:code>/director/resume/", views.director_resume, name="resume"),
    path("t/<str:code>/director/end-now/", views.director_end_now, name="end_now"),
    path("t/<str:code>/director/start-clock/", views.director_start_clock, name="start_clock"),
    path("t/<str:code>/director/group/<int:group_id>/seat-to-bot/", views.director_seat_to_bot, name="seat_to_bot"),
    path("t/<str:code>/director/extend/<int:group_id>/", views.director_extend, name="extend"),
    path("t/<str:code>/director/decide/<int:number>/", views.director_decide, name="decide"),
    path("t/<str:code>/director/codes/", views.director_codes, name="codes"),
    path("t/<str:code>/director/results.csv", views.director_results_csv, name="results_csv"),
    path("t/<str:code>/director/group/<int:group_id>/", views.director_group, name="director_group"),
    path("t/<str:code>/director/group/<int:group_id>/correct/", views.director_correct, name="correct"),
    path("t/<str:code>/director/group/<int:group_id>/on-phones/", views.director_on_phones, name="on_phones"),
    path("t/<str:code>/director/strike/<int:turn_id>/", views.director_strike, name="strike"),
    path("t/<str:code>/screen/<str:token>/", views.screen, name="screen"),
    path("tg/<str:token>/", views.group_join, name="group_join"),
    path("t/group/<str:code>/", views.group_page, name="group"),
    path("t/group/<str:code>/turn/", views.group_turn, name="group_turn"),
    path("t/group/<str:code>/undo/", views.group_undo, name="group_undo"),
    path("events/tournament/<str:code>/", views.tournament_events, name="events"),
]
