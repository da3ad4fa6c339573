"""The club's URLs (namespace "clubs"), one per verb; included under /clubs/ by bunco_club/site/urls.py."""

from django.urls import path

from bunco_club import box_views, treasury_views, views

app_name = "clubs"

urlpatterns = [
    path("new/", views.club_new, name="club_new"),
    # A member's own pages: their signed personal link, no password.
    path("me/<str:token>/", views.my_club, name="my_club"),
    path("me/<str:token>/rsvp/<int:party_pk>/", views.my_rsvp, name="my_rsvp"),
    path("me/<str:token>/sub/<int:pk>/accept/", views.my_sub_accept, name="my_sub_accept"),
    path("me/<str:token>/sub/<int:pk>/decline/", views.my_sub_decline, name="my_sub_decline"),
    path("me/<str:token>/swap/", views.my_swap_request, name="my_swap_request"),
    path("me/<str:token>/swap/<int:pk>/accept/", views.my_swap_accept, name="my_swap_accept"),
    path("me/<str:token>/swap/<int:pk>/decline/", views.my_swap_decline, name="my_swap_decline"),
    path("me/<str:token>/claim/", views.my_claim, name="my_claim"),
    path("me/<str:token>/away/", views.my_blackouts, name="my_blackouts"),
    path("me/<str:token>/language/", views.my_language, name="my_language"),
    path("me/<str:token>/box/<int:party_pk>/received/", box_views.my_box_received, name="my_box_received"),
    path("me/<str:token>/calendar.ics", views.member_feed, name="member_feed"),
    path("me/<str:token>/dishes/<int:slot_pk>/sign-up/", views.my_dish_signup, name="my_dish_signup"),
    path("me/<str:token>/dish/<int:pk>/withdraw/", views.my_dish_withdraw, name="my_dish_withdraw"),
    path("me/<str:token>/dish/<int:pk>/give/", views.my_dish_give, name="my_dish_give"),
    path("me/<str:token>/dish/<int:pk>/trade/", views.my_dish_trade, name="my_dish_trade"),
    path("me/<str:token>/dish-offer/<int:pk>/accept/", views.my_dish_accept, name="my_dish_accept"),
    path("me/<str:token>/dish-offer/<int:pk>/decline/", views.my_dish_decline, name="my_dish_decline"),
    path("me/<str:token>/money/", treasury_views.my_money, name="my_money"),
    path("calendar/<str:feed_code>.ics", views.club_feed, name="club_feed"),
    # A club's pages.
    path("<slug:slug>/", views.club, name="club"),
    path("<slug:slug>/edit/", views.club_edit, name="club_edit"),
    path("<slug:slug>/export/", views.club_export, name="club_export"),
    path("<slug:slug>/box/", box_views.box, name="box"),
    path("<slug:slug>/box/kit/", box_views.box_kit, name="box_kit"),
    path("<slug:slug>/hosts/add/", views.cohost_add, name="cohost_add"),
    path("<slug:slug>/hosts/<int:user_pk>/remove/", views.cohost_remove, name="cohost_remove"),
    path("<slug:slug>/roster/", views.roster, name="roster"),
    path("<slug:slug>/members/<int:pk>/", views.member_edit, name="member_edit"),
    path("<slug:slug>/members/<int:pk>/away/", views.member_blackouts, name="member_blackouts"),
    path("<slug:slug>/members/<int:pk>/up/", views.member_up, name="member_up"),
    path("<slug:slug>/members/<int:pk>/down/", views.member_down, name="member_down"),
    path("<slug:slug>/members/<int:pk>/promote/", views.member_promote, name="member_promote"),
    path("<slug:slug>/members/<int:pk>/to-subs/", views.member_to_subs, name="member_to_subs"),
    path("<slug:slug>/members/<int:pk>/retire/", views.member_retire, name="member_retire"),
    path("<slug:slug>/members/<int:pk>/reinstate/", views.member_reinstate, name="member_reinstate"),
    path("<slug:slug>/members/<int:pk>/new-link/", views.member_new_link, name="member_new_link"),
    path("<slug:slug>/members/<int:pk>/pair/", views.member_pair, name="member_pair"),
    path("<slug:slug>/members/<int:pk>/split/", views.member_split, name="member_split"),
    path("<slug:slug>/seasons/new/", views.season_new, name="season_new"),
    path("<slug:slug>/seasons/<int:pk>/", views.season, name="season"),
    path("<slug:slug>/seasons/<int:pk>/plan/", views.season_plan, name="season_plan"),
    path("<slug:slug>/seasons/<int:pk>/standings/", views.standings, name="standings"),
    path("<slug:slug>/parties/new/", views.party_new, name="party_new"),
    path("<slug:slug>/parties/<int:pk>/", views.party, name="party"),
    path("<slug:slug>/parties/<int:pk>/edit/", views.party_edit, name="party_edit"),
    path("<slug:slug>/parties/<int:pk>/invite-sub/", views.party_invite_sub, name="party_invite_sub"),
    path("<slug:slug>/parties/<int:pk>/counts/", views.party_counts, name="party_counts"),
    path("<slug:slug>/parties/<int:pk>/cancel/", views.party_cancel, name="party_cancel"),
    path("<slug:slug>/parties/<int:pk>/box/received/", box_views.party_box_received, name="party_box_received"),
    path("<slug:slug>/parties/<int:pk>/dishes/add/", views.party_dish_add, name="party_dish_add"),
    path("<slug:slug>/parties/<int:pk>/dishes/<int:slot_pk>/wanted/", views.party_dish_wanted,
         name="party_dish_wanted"),
    path("<slug:slug>/parties/<int:pk>/dishes/<int:slot_pk>/remove/", views.party_dish_remove,
         name="party_dish_remove"),
    path("<slug:slug>/parties/<int:pk>/dishes/<int:slot_pk>/suggest/", views.party_dish_suggest,
         name="party_dish_suggest"),
    path("<slug:slug>/parties/<int:pk>/paid/<int:member_pk>/", treasury_views.party_paid, name="party_paid"),
    path("<slug:slug>/parties/<int:pk>/release-seats/", treasury_views.party_release_seats, name="party_release_seats"),
    # The treasury (issue 45): its hosts' and treasurer's; a member's own money is under me/<token>/money/.
    path("<slug:slug>/treasury/", treasury_views.treasury, name="treasury"),
    path("<slug:slug>/treasury/entries/", treasury_views.treasury_entry, name="treasury_entry"),
    path("<slug:slug>/treasury/entries/<int:pk>/reverse/", treasury_views.treasury_reverse, name="treasury_reverse"),
    path("<slug:slug>/treasury/settings/", treasury_views.treasury_settings, name="treasury_settings"),
    path("<slug:slug>/treasury/statement/", treasury_views.treasury_statement, name="treasury_statement"),
    path("<slug:slug>/treasury/statement.csv", treasury_views.treasury_csv, name="treasury_csv"),
    path("<slug:slug>/treasury/receipts/<int:pk>/", treasury_views.receipt, name="treasury_receipt"),
]

# Every club page shows its times in the club's zone, dropped again once the page is made. (Every
# answer under /clubs/ may carry personal data: the site keeps all its answers out of caches,
# bunco_club/site/caching.py.)
for _pattern in urlpatterns:
    _pattern.callback = views.in_club_zone(_pattern.callback)
