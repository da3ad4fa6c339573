"""The club's pages and POSTs: who may see and do what (host, member, outsider, another club's
host, nobody logged in), the forms' messages, and the flows a host and a member go through."""

from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from bunco_club import actions
from bunco_club.links import member_token, my_club_path
from bunco_club.models import RSVP, Club, LedgerEntry, Member, Party, Season, SubInvitation
from tests.builders import REGULARS, element_text, make_user, member_phone, soon, text

pytestmark = pytest.mark.django_db


@pytest.fixture
def season(club) -> Season:
    return actions.create_season(club, name="This year", starts=[soon(-30), soon(10), soon(40)])


@pytest.fixture
def personas(host_client, member_client, stranger_client, other_host_client) -> dict[str, Client]:
    return {"host": host_client, "member": member_client, "outsider": stranger_client,
            "other host": other_host_client, "nobody": Client()}


def page_urls(club: Club, season: Season) -> dict[str, str]:
    party = season.parties.order_by("starts_at")[1]
    bea = club.members.get(name="Bea")
    return {
        "club": reverse("clubs:club", args=[club.slug]),
        "season": reverse("clubs:season", args=[club.slug, season.pk]),
        "standings": reverse("clubs:standings", args=[club.slug, season.pk]),
        "party": reverse("clubs:party", args=[club.slug, party.pk]),
        "club_edit": reverse("clubs:club_edit", args=[club.slug]),
        "roster": reverse("clubs:roster", args=[club.slug]),
        "member_edit": reverse("clubs:member_edit", args=[club.slug, bea.pk]),
        "season_new": reverse("clubs:season_new", args=[club.slug]),
        "party_new": reverse("clubs:party_new", args=[club.slug]),
        "party_edit": reverse("clubs:party_edit", args=[club.slug, party.pk]),
    }


MEMBERS_SEE = {"club", "season", "standings", "party"}


@pytest.mark.parametrize("persona", ["host", "member", "outsider", "other host", "nobody"])
def test_every_club_page_answers_each_persona_as_it_should(persona, personas, club, season):
    for page, url in page_urls(club, season).items():
        status = personas[persona].get(url).status_code
        if persona == "host":
            expected = 200
        elif persona == "member":
            expected = 200 if page in MEMBERS_SEE else 403
        else:
            expected = 404  # outsiders don't learn that a club exists
        assert status == expected, f"{persona} on {page}: {status}"


def host_posts(club: Club, season: Season) -> list[tuple[str, dict]]:
    party = season.parties.order_by("starts_at")[1]
    past = season.parties.order_by("starts_at")[0]
    sam, bea, cal = (club.members.get(name=name) for name in ("Sam", "Bea", "Cal"))
    return [
        (reverse("clubs:club_edit", args=[club.slug]), {"name": "Renamed", "usual_time": "19:00", "buy_in": "5",
                                                        "rsvp_nudge_days": "3", "tie_break": "roll_off"}),
        (reverse("clubs:cohost_add", args=[club.slug]), {"username": "outsider"}),
        (reverse("clubs:cohost_remove", args=[club.slug, get_user_model().objects.get(username="outsider").pk]), {}),
        (reverse("clubs:roster", args=[club.slug]), {"name": "Newbie"}),
        (reverse("clubs:member_edit", args=[club.slug, bea.pk]), {"name": "Renamed"}),
        (reverse("clubs:member_blackouts", args=[club.slug, bea.pk]), {"dates": [party.day.isoformat()]}),
        (reverse("clubs:member_down", args=[club.slug, sam.pk]), {}),
        (reverse("clubs:member_up", args=[club.slug, club.members.get(name="Tia").pk]), {}),
        (reverse("clubs:member_promote", args=[club.slug, sam.pk]), {}),
        (reverse("clubs:member_to_subs", args=[club.slug, cal.pk]), {}),
        (reverse("clubs:member_retire", args=[club.slug, cal.pk]), {}),
        (reverse("clubs:member_new_link", args=[club.slug, bea.pk]), {}),
        (reverse("clubs:member_pair", args=[club.slug, bea.pk]), {"partner": club.members.get(name="Dot").pk}),
        (reverse("clubs:season_new", args=[club.slug]), {"how": "hand", "name": "Extra", "dates": "2031-01-01",
                                                          "time": "19:00"}),
        (reverse("clubs:season_plan", args=[club.slug, season.pk]), {}),
        (reverse("clubs:party_new", args=[club.slug]), {"date": "2031-02-02", "time": "19:00"}),
        (reverse("clubs:party_edit", args=[club.slug, party.pk]), {"date": "2031-03-03", "time": "19:00"}),
        (reverse("clubs:party_invite_sub", args=[club.slug, party.pk]), {}),
        (reverse("clubs:party_counts", args=[club.slug, past.pk]), {"counts": "0"}),
    ]


def snapshot(club: Club) -> tuple:
    """Everything a host's POST could change."""
    return (
        list(Club.objects.filter(pk=club.pk).values()), list(club.hosts.values_list("pk", flat=True)),
        list(Member.objects.filter(club=club).order_by("pk").values()),
        list(Party.objects.filter(club=club).order_by("pk").values()), list(Season.objects.values()),
        list(SubInvitation.objects.values()), list(club.members.values_list("blackouts__date", flat=True)),
    )


@pytest.mark.parametrize("persona", ["member", "outsider", "other host", "nobody"])
def test_only_the_host_can_post_to_a_club_and_the_others_change_nothing(persona, personas, club, season):
    make_user("outsider-2")
    before = snapshot(club)
    for url, data in host_posts(club, season):
        status = personas[persona].post(url, data).status_code
        expected = 403 if persona == "member" else 404
        assert status == expected, f"{persona} posting to {url}: {status}"
    assert snapshot(club) == before


def test_the_host_can_post_every_one_of_them(host_client, club, season, outsider):
    for url, data in host_posts(club, season):
        response = host_client.post(url, data)
        assert response.status_code == 302, f"{url}: {response.status_code}"


# --- Creating and editing a club --------------------------------------------------------------


def test_a_club_pays_its_nights_prizes_in_whole_dollars_unless_it_asks_for_cents(outsider):
    client = Client()
    client.force_login(outsider)
    for name, choice in (("Dollar Dice", None), ("Cent Dice", "cents")):
        form = {"name": name, "usual_time": "19:30", "buy_in": "5", "rsvp_nudge_days": "3", "tie_break": "roll_off"}
        if choice:
            form["prize_amounts"] = choice
        client.post(reverse("clubs:club_new"), form)
    assert Club.objects.get(name="Dollar Dice").prize_rules()["whole_dollars"] is True
    assert Club.objects.get(name="Cent Dice").prize_rules()["whole_dollars"] is False


def test_a_logged_in_user_starts_a_club_and_lands_on_its_roster(outsider):
    client = Client()
    client.force_login(outsider)
    response = client.post(reverse("clubs:club_new"), {
        "name": "Tuesday Dice", "place": "The church hall", "usual_time": "19:30", "buy_in": "5.50",
        "rsvp_nudge_days": "3", "tie_break": "sudden_death", "wipeout": "on"})
    club = Club.objects.get(name="Tuesday Dice")
    assert response.status_code == 302 and response["Location"] == reverse("clubs:roster", args=[club.slug])
    assert club.is_hosted_by(outsider)
    assert (club.buy_in_cents, club.tie_break, club.wipeout, club.usual_time) == (
        550, "sudden_death", True, datetime.time(19, 30))


def test_starting_a_club_needs_an_account(client):
    response = client.get(reverse("clubs:club_new"))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


@pytest.mark.parametrize(("field", "value", "message"), [
    ("name", "", "This field is required."),
    ("buy_in", "five", "The buy-in is an amount in dollars"),
    ("usual_time", "7pm", "Write the time like 19:00."),
    ("rsvp_nudge_days", "99", "days before a party"),
    ("tie_break", "coin toss", "Select a valid choice"),
])
def test_a_bad_club_form_says_what_is_wrong_and_makes_nothing(outsider, field, value, message):
    client = Client()
    client.force_login(outsider)
    data = {"name": "Tuesday Dice", "usual_time": "19:30", "buy_in": "5", "rsvp_nudge_days": "3",
            "tie_break": "roll_off", field: value}
    response = client.post(reverse("clubs:club_new"), data)
    assert response.status_code == 400
    assert message in text(response)
    assert not Club.objects.filter(name="Tuesday Dice").exists()


def test_a_member_added_twice_gets_a_message_and_no_second_record(host_client, club):
    response = host_client.post(reverse("clubs:roster", args=[club.slug]), {"name": "ada"})
    assert response.status_code == 400
    assert "already on the roster" in response.content.decode()
    assert club.members.filter(name__iexact="ada").count() == 1


def test_a_bad_email_is_refused_with_a_message(host_client, club):
    response = host_client.post(reverse("clubs:roster", args=[club.slug]), {"name": "Newbie", "email": "not-an-email"})
    assert response.status_code == 400
    assert "That email address doesn't look right." in text(response)
    assert not club.members.filter(name="Newbie").exists()


def test_a_date_away_that_is_no_party_date_is_refused_with_a_message(host_client, club, member, season):
    response = host_client.post(reverse("clubs:member_blackouts", args=[club.slug, member.pk]),
                                {"dates": [season.parties.order_by("starts_at")[1].day.isoformat(), "next tuesday"]})
    assert response.status_code == 400
    assert "Tick dates of the club&#x27;s parties still to come." in response.content.decode()
    assert not member.blackouts.exists()


def test_the_host_ticks_a_members_dates_away_among_the_season_dates(host_client, club, member, season):
    coming = [party.day for party in season.parties.order_by("starts_at")[1:]]
    page = host_client.get(reverse("clubs:member_edit", args=[club.slug, member.pk])).content.decode()
    for day in coming:
        assert f'type="checkbox" name="dates" value="{day.isoformat()}"' in page
    response = host_client.post(reverse("clubs:member_blackouts", args=[club.slug, member.pk]),
                                {"dates": [coming[1].isoformat()]})
    assert response.status_code == 302
    assert list(member.blackouts.values_list("date", flat=True)) == [coming[1]]


def test_a_season_by_rule_from_the_page(host_client, club):
    response = host_client.post(reverse("clubs:season_new", args=[club.slug]), {
        "how": "rule", "name": "2031", "first_month": "2031-01-01", "months": "12", "nth": "3", "weekday": "4",
        "time": "19:00"})
    season = Season.objects.get(name="2031")
    assert response["Location"] == reverse("clubs:season", args=[club.slug, season.pk])
    assert season.parties.count() == 12


def test_a_season_from_dates_by_hand_refuses_a_date_it_cannot_read(host_client, club):
    response = host_client.post(reverse("clubs:season_new", args=[club.slug]), {
        "how": "hand", "name": "Odd", "dates": "2031-01-09\n2031-02-30", "time": "19:00"})
    assert response.status_code == 400
    assert "Line 2, “2031-02-30”, is not a date" in response.content.decode()
    assert not Season.objects.exists()


def test_a_party_edit_with_the_same_host_and_cohost_is_refused(host_client, club, season):
    party = season.parties.order_by("starts_at")[1]
    ada = club.members.get(name="Ada")
    response = host_client.post(reverse("clubs:party_edit", args=[club.slug, party.pk]),
                                {"date": "2031-03-03", "time": "19:00", "host": ada.pk, "cohost": ada.pk})
    assert response.status_code == 400
    assert "two different people" in response.content.decode()
    party.refresh_from_db()
    assert party.host is None and party.sequence == 0


def test_the_season_page_shows_the_planned_hosts(host_client, club, season):
    host_client.post(reverse("clubs:season_plan", args=[club.slug, season.pk]))
    page = host_client.get(reverse("clubs:season", args=[club.slug, season.pk])).content.decode()
    assert "Host: <strong>Ada</strong>" in page


def test_the_seasons_hostings_say_this_season_and_all_seasons_apart(host_client, club, season):
    earlier = actions.create_season(club, name="Last year", starts=[soon(-400)])
    ada = club.members.get(name="Ada")
    Party.objects.filter(season=earlier).update(host=ada)
    Party.objects.filter(pk=season.parties.order_by("starts_at")[1].pk).update(host=ada)
    page = host_client.get(reverse("clubs:season", args=[club.slug, season.pk])).content.decode()
    assert "Hostings: this season (all seasons so far)" in page
    assert "Ada: 1 (2)" in page


def test_an_action_refusal_comes_back_as_a_message(host_client, club):
    response = host_client.post(reverse("clubs:member_up", args=[club.slug, club.members.get(name="Sam").pk]),
                                follow=True)
    assert "Sam is already first on the sub list." in response.content.decode()


# --- A member's phone -------------------------------------------------------------------------


def test_a_members_link_opens_their_page_without_a_password(client, member, party):
    response = client.get(my_club_path(member.code))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Hi Bea" in page and "Maple Street Bunco" in page


def test_an_altered_link_gets_a_clear_refusal(client, member):
    response = client.get(reverse("clubs:my_club", args=[member_token(member.code) + "x"]))
    assert response.status_code == 404
    assert "This link isn't valid" in text(response)


def test_an_old_link_stops_after_the_host_gives_a_new_one(client, member):
    old = my_club_path(member.code)
    actions.reset_member_link(member)
    response = client.get(old)
    assert response.status_code == 404 and "no longer in use" in response.content.decode()


def test_a_member_answers_from_their_phone(member_client, member, club):
    party = actions.add_party(club, starts_at=soon())
    token = member_token(member.code)
    response = member_client.post(reverse("clubs:my_rsvp", args=[token, party.pk]), {"answer": "maybe"}, follow=True)
    assert RSVP.objects.get(party=party, member=member).answer == "maybe"
    assert "<p>Your answer: <strong>Maybe</strong></p>" in response.content.decode()  # not the Maybe button


def test_a_member_cannot_answer_for_another_clubs_party(member_client, member, other_host_client):
    other_party = actions.add_party(Club.objects.get(name="Elm Road Bunco"), starts_at=soon())
    response = member_client.post(reverse("clubs:my_rsvp", args=[member_token(member.code), other_party.pk]),
                                  {"answer": "yes"})
    assert response.status_code == 404
    assert not RSVP.objects.exists()


def test_a_nonsense_answer_comes_back_with_a_message_and_changes_nothing(member_client, member, party):
    response = member_client.post(reverse("clubs:my_rsvp", args=[member_token(member.code), party.pk]),
                                  {"answer": "perhaps"}, follow=True)
    assert "Answer yes, no or maybe." in response.content.decode()
    assert RSVP.objects.get(party=party, member=member).answer == "yes"


def test_a_cancellation_brings_in_an_alternate_who_accepts_on_their_phone(
        member_client, member, party, club, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        member_client.post(reverse("clubs:my_rsvp", args=[member_token(member.code), party.pk]), {"answer": "no"})
    [invitation_mail] = mail.outbox
    assert invitation_mail.to == ["sam@example.com"]
    sam = club.members.get(name="Sam")
    assert my_club_path(sam.code) in invitation_mail.body
    sam_phone = Client()
    page = sam_phone.get(my_club_path(sam.code)).content.decode()
    assert "A seat for you?" in page
    invitation = SubInvitation.objects.get(member=sam)
    response = sam_phone.post(reverse("clubs:my_sub_accept", args=[member_token(sam.code), invitation.pk]),
                              follow=True)
    assert "The seat is yours" in response.content.decode()
    assert RSVP.objects.get(party=party, member=sam).answer == "yes"
    # The host's party page: 12 coming (Sam a sub), nobody invited, no ghost.
    host = Client()
    host.force_login(club.hosts.get())
    party_page = host.get(reverse("clubs:party", args=[club.slug, party.pk])).content.decode()
    assert "12 coming, 0 ghosts" in party_page and "Sam (sub)" in party_page


def test_a_later_alternate_is_told_the_seat_is_taken(party, member, club):
    actions.answer_rsvp(party, member, "no")
    actions.invite_another_sub(party)
    tia = club.members.get(name="Tia")
    sam = club.members.get(name="Sam")
    tia_phone, sam_phone = member_phone(tia), member_phone(sam)
    tia_phone.post(reverse("clubs:my_sub_accept", args=[member_token(tia.code),
                                                        SubInvitation.objects.get(member=tia).pk]))
    response = sam_phone.post(reverse("clubs:my_sub_accept", args=[member_token(sam.code),
                                                                  SubInvitation.objects.get(member=sam).pk]),
                              follow=True)
    assert "Someone else took the seat first" in response.content.decode()


def test_one_alternate_cannot_answer_anothers_invitation(party, member, club):
    actions.answer_rsvp(party, member, "no")
    tia = club.members.get(name="Tia")
    invitation = SubInvitation.objects.get()
    response = member_phone(tia).post(reverse("clubs:my_sub_accept", args=[member_token(tia.code), invitation.pk]))
    assert response.status_code == 404
    assert SubInvitation.objects.get().status == "invited"


def test_a_member_asks_to_swap_and_the_other_accepts_from_their_phone(club, django_capture_on_commit_callbacks):
    ada, bea = club.members.get(name="Ada"), club.members.get(name="Bea")
    give = actions.add_party(club, starts_at=soon(20))
    take = actions.add_party(club, starts_at=soon(50))
    Party.objects.filter(pk=give.pk).update(host=ada)
    Party.objects.filter(pk=take.pk).update(host=bea)
    with django_capture_on_commit_callbacks(execute=True):
        response = member_phone(ada).post(reverse("clubs:my_swap_request", args=[member_token(ada.code)]),
                                      {"give": give.pk, "take": take.pk}, follow=True)
    assert "Asked Bea" in response.content.decode()
    assert mail.outbox[-1].to == ["bea@example.com"]
    bea_phone = member_phone(bea)
    swap = bea.swaps_received.get()
    bea_phone.post(reverse("clubs:my_swap_accept", args=[member_token(bea.code), swap.pk]))
    give.refresh_from_db()
    assert give.host == bea


def test_a_member_cannot_offer_a_date_they_dont_host(club):
    ada, bea = club.members.get(name="Ada"), club.members.get(name="Bea")
    give = actions.add_party(club, starts_at=soon(20))
    take = actions.add_party(club, starts_at=soon(50))
    Party.objects.filter(pk=give.pk).update(host=ada)
    Party.objects.filter(pk=take.pk).update(host=bea)
    cal = club.members.get(name="Cal")
    response = member_phone(cal).post(reverse("clubs:my_swap_request", args=[member_token(cal.code)]),
                                  {"give": give.pk, "take": take.pk}, follow=True)
    assert "Pick one of the dates you host." in response.content.decode()
    assert not cal.swaps_asked.exists()


def test_a_members_account_opens_the_club_too(club, member):
    user = make_user("bea")
    Member.objects.filter(pk=member.pk).update(user=user)
    client = Client()
    client.force_login(user)
    assert client.get(reverse("clubs:club", args=[club.slug])).status_code == 200
    assert client.get(reverse("clubs:roster", args=[club.slug])).status_code == 403


def test_a_retired_members_phone_no_longer_opens_the_club(club, member_client, member):
    actions.retire(member)
    assert member_client.get(reverse("clubs:club", args=[club.slug])).status_code == 404


def test_the_party_page_offers_the_host_to_start_the_night_with_the_party(host_client, club, party):
    page = host_client.get(reverse("clubs:party", args=[club.slug, party.pk])).content.decode()
    assert f"{reverse('games:night_new')}?party={party.pk}" in page
    start = host_client.get(f"{reverse('games:night_new')}?party={party.pk}")
    assert start.status_code == 200
    # The night's names are the party's: every regular said yes (Ada hosts).
    assert element_text(start.content.decode(), id="id_names").split() == REGULARS


def test_the_home_page_shows_the_hosts_next_party_line(host_client, club, party, member):
    actions.answer_rsvp(party, member, "no")
    page = host_client.get(reverse("home")).content.decode()
    assert "11 coming, 1 sub invited, 1 ghost" in page


def test_a_member_links_their_account_from_their_personal_link(club, member):
    user = make_user("bea")
    client = Client()
    client.force_login(user)
    token = member_token(member.code)
    assert "This is me: link my account" in text(client.get(my_club_path(member.code)))
    client.post(reverse("clubs:my_claim", args=[token]))
    member.refresh_from_db()
    assert member.user == user
    fresh = Client()  # another browser, logged in, that never opened the link
    fresh.force_login(user)
    assert fresh.get(reverse("clubs:club", args=[club.slug])).status_code == 200


def test_a_member_record_linked_to_another_account_stays_with_it(club, member):
    owner, other = make_user("bea"), make_user("not-bea")
    actions.claim_member(member, owner)
    client = Client()
    client.force_login(other)
    response = client.post(reverse("clubs:my_claim", args=[member_token(member.code)]), follow=True)
    assert "linked to another account already" in text(response)
    member.refresh_from_db()
    assert member.user == owner


def test_claiming_needs_a_log_in(member_client, member):
    response = member_client.post(reverse("clubs:my_claim", args=[member_token(member.code)]), follow=True)
    assert "Log in first" in text(response)
    member.refresh_from_db()
    assert member.user is None


def test_a_host_adds_and_removes_a_cohost_from_the_club_page(host_client, club, outsider):
    host_client.post(reverse("clubs:cohost_add", args=[club.slug]), {"username": "outsider"})
    assert club.is_hosted_by(outsider)
    page = text(host_client.get(reverse("clubs:club", args=[club.slug])))
    assert "Remove outsider" in page
    host_client.post(reverse("clubs:cohost_remove", args=[club.slug, outsider.pk]))
    assert not club.is_hosted_by(outsider)


def test_an_unknown_cohost_username_gets_a_message(host_client, club):
    response = host_client.post(reverse("clubs:cohost_add", args=[club.slug]), {"username": "nobody"}, follow=True)
    assert "There is no account with the username “nobody”" in text(response)


def test_a_member_ticks_their_own_dates_away_and_keeps_the_past_ones(member_client, member, season):
    past = datetime.date(2020, 5, 1)
    member.blackouts.create(date=past)
    coming = [party.day for party in season.parties.order_by("starts_at")[1:]]
    token = member_token(member.code)
    response = member_client.post(reverse("clubs:my_blackouts", args=[token]),
                                  {"dates": [day.isoformat() for day in coming]}, follow=True)
    assert "Your dates away are saved." in text(response)
    assert list(member.blackouts.values_list("date", flat=True)) == [past, *coming]


def test_a_members_bad_date_away_gets_a_message_and_changes_nothing(member_client, member, season):
    day = season.parties.order_by("starts_at")[1].day
    member.blackouts.create(date=day)
    response = member_client.post(reverse("clubs:my_blackouts", args=[member_token(member.code)]),
                                  {"dates": "someday"}, follow=True)
    assert "Tick dates of the club's parties still to come." in text(response)
    assert list(member.blackouts.values_list("date", flat=True)) == [day]


@pytest.mark.parametrize("view", ["my_rsvp", "my_sub_accept", "my_sub_decline", "my_swap_accept", "my_swap_decline"])
def test_a_forged_personal_link_can_post_nothing(view, party, member):
    forged = member_token(member.code)[:-3] + "abc"
    before = (list(RSVP.objects.values()), list(SubInvitation.objects.values()))
    response = Client().post(reverse(f"clubs:{view}", args=[forged, party.pk]), {"answer": "no"})
    assert response.status_code == 404
    assert (list(RSVP.objects.values()), list(SubInvitation.objects.values())) == before


@pytest.mark.parametrize("view", ["my_swap_request", "my_claim", "my_blackouts"])
def test_a_forged_personal_link_changes_nothing_of_a_member(view, member):
    forged = member_token(member.code)[:-3] + "abc"
    response = Client().post(reverse(f"clubs:{view}", args=[forged]), {"dates": "2031-01-01"})
    assert response.status_code == 404
    assert not member.blackouts.exists() and not member.swaps_asked.exists()


def test_the_party_pages_headcount_refreshes_alone(host_client, club, party, member):
    url = reverse("clubs:party", args=[club.slug, party.pk])
    actions.answer_rsvp(party, member, "no")
    response = host_client.get(url, headers={"HX-Request": "true"})
    fragment = text(response)
    assert fragment.lstrip().startswith('<section class="card" id="headcount"')
    assert "11 coming, 1 sub invited, 1 ghost" in fragment and "<html" not in fragment


# --- Issue 16: keyed RSVPs, notes, buy-ins, cancelling, the club's zone ---------------------------


def test_an_rsvp_key_reused_with_another_answer_is_refused_with_409_and_a_message(member_client, member, party):
    url = reverse("clubs:my_rsvp", args=[member_token(member.code), party.pk])
    assert member_client.post(url, {"answer": "maybe", "key": "abc123"}).status_code == 302
    assert member_client.post(url, {"answer": "maybe", "key": "abc123"}).status_code == 302  # a retry
    refused = member_client.post(url, {"answer": "no", "key": "abc123"})
    assert refused.status_code == 409
    assert "carries the key of an earlier answer with other content" in text(refused)
    assert RSVP.objects.get(party=party, member=member).answer == "maybe"


def test_the_host_sees_the_members_note_and_marks_the_buy_in_paid(host_client, member_client, member, party, club):
    member_client.post(reverse("clubs:my_rsvp", args=[member_token(member.code), party.pk]),
                       {"answer": "yes", "note": "Bringing dessert", "key": "k-note"})
    page = text(host_client.get(reverse("clubs:party", args=[club.slug, party.pk])))
    assert "Bringing dessert" in page
    response = host_client.post(reverse("clubs:party_paid", args=[club.slug, party.pk, member.pk]), {"how": "cash"},
                                follow=True)
    assert "Bea: paid in cash." in text(response)
    assert LedgerEntry.objects.filter(party=party, member=member).buy_in_state().is_paid
    assert member_client.post(reverse("clubs:party_paid", args=[club.slug, party.pk, member.pk]),
                              {"how": "cash"}).status_code == 403


def test_the_host_cancels_a_party_from_its_page(host_client, club, party):
    response = host_client.post(reverse("clubs:party_cancel", args=[club.slug, party.pk]), follow=True)
    assert "The party is cancelled" in text(response)
    assert "Cancelled." in text(response)
    party.refresh_from_db()
    assert party.is_cancelled


def test_a_members_page_shows_the_next_party_and_its_answer_first_and_the_rest_folded(club, member):
    """Issue 29, C8: the next party and its answer first; the rest of the season folded away."""
    for days in range(10, 370, 30):
        actions.add_party(club, starts_at=soon(days))
    page = member_phone(member).get(my_club_path(member.code)).content.decode()
    shown, later = page.split("<details", 1)
    assert shown.count('class="rsvp-form"') == 1 and 'id="next-party"' in shown
    assert later.count('class="rsvp-form"') == 11 and "Later this season (11 more)" in later


def test_a_club_shows_and_takes_its_times_in_its_own_zone(host_client, club):
    club.time_zone = "America/Chicago"
    club.save()
    day = soon(20).date()
    response = host_client.post(reverse("clubs:party_new", args=[club.slug]),
                                {"date": day.isoformat(), "time": "19:00", "location": "Here"})
    party = Party.objects.get(club=club)
    assert response["Location"] == reverse("clubs:party", args=[club.slug, party.pk])
    assert party.local_start.hour == 19 and party.starts_at.utcoffset() is not None
    # 19:00 in Chicago (summer or winter time, whichever that day has) is past midnight in UTC.
    assert party.starts_at == datetime.datetime.combine(day, datetime.time(19), tzinfo=ZoneInfo("America/Chicago"))
    page = text(host_client.get(reverse("clubs:party", args=[club.slug, party.pk])))
    assert "<p>19:00 · Here · no host yet" in page  # the party's own line, not the club's usual time


def test_a_new_club_asks_its_time_zone(host_client):
    page = host_client.get(reverse("clubs:club_new")).content.decode()
    assert '<select name="time_zone"' in page and 'value="America/Chicago"' in page and "data-browser-zone" in page
    host_client.post(reverse("clubs:club_new"), {"name": "Oak Lane Bunco", "usual_time": "19:00", "buy_in": "5",
                                                 "rsvp_nudge_days": "3", "tie_break": "roll_off",
                                                 "time_zone": "America/Chicago"})
    assert Club.objects.get(name="Oak Lane Bunco").time_zone == "America/Chicago"


def test_a_new_party_takes_a_host_and_an_edit_can_give_it_a_season(host_client, club, season):
    ada = club.members.get(name="Ada")
    host_client.post(reverse("clubs:party_new", args=[club.slug]),
                     {"date": soon(200).date().isoformat(), "time": "19:00", "host": ada.pk})
    party = Party.objects.get(club=club, season__isnull=True)
    assert party.host == ada
    host_client.post(reverse("clubs:party_edit", args=[club.slug, party.pk]),
                     {"date": party.day.isoformat(), "time": "19:00", "host": ada.pk, "season": season.pk})
    party.refresh_from_db()
    assert party.season == season


def test_a_party_nobody_has_said_yes_to_says_nobody_is_coming_yet_instead_of_zeros(host_client, club):
    """Issue 29, C11: an empty party read "0 coming, 0 ghosts" and "0 tables of four"."""
    party = actions.add_party(club, starts_at=soon())
    actions.answer_rsvp(party, club.members.get(name="Eve"), "maybe")

    page = text(host_client.get(reverse("clubs:party", args=[club.slug, party.pk])))
    club_page = text(host_client.get(reverse("clubs:club", args=[club.slug])))

    assert "Nobody coming yet" in page and "No tables to set up until someone says yes." in page
    assert "0 coming" not in page and "0 ghosts" not in page and "0 tables" not in page
    assert "Nobody coming yet" in club_page and "0 coming" not in club_page


def test_a_night_played_before_its_partys_date_is_a_played_party_on_every_list(host_client, club, member_client,
                                                                                 member):
    """Issue 29, C10: the club page still listed it under "Coming up" and said "No nights played
    yet", though it counted in the standings."""
    played_early = actions.add_party(club, starts_at=soon(10))
    later = actions.add_party(club, starts_at=soon(40))
    actions.record_night_results(played_early, [{"name": "Bea", "wins": 14, "losses": 10, "buncos": 2,
                                                 "prize_cents": 3000, "prizes": ["Most Wins"]}])

    response = host_client.get(reverse("clubs:club", args=[club.slug]))
    page = text(response)

    assert [party.pk for party in response.context["upcoming"]] == [later.pk]
    assert [party.pk for party in response.context["past"]] == [played_early.pk]
    assert response.context["next_party"] == later
    assert "No nights played yet" not in page and "Bea: Most Wins" in page
    home = host_client.get(reverse("home"))
    assert [party.pk for party in home.context["upcoming"]] == [later.pk]
    assert [line["party"] for line in home.context["dashboard"]] == [later]
    my_page = member_client.get(my_club_path(member.code))
    assert my_page.context["next_row"]["party"] == later and my_page.context["later_rows"] == []
    assert list(Party.objects.played()) == [played_early]
    assert played_early.is_past and not played_early.takes_answers
    with pytest.raises(actions.NotNow, match="over"):
        actions.answer_rsvp(played_early, member, "yes")


def test_a_signed_in_hosts_home_page_is_kept_by_no_cache(host_client, party):
    """Issue 29, S6: the home page lists the host's nights, clubs and parties, and was sent without
    no-store, unlike the club pages. (Since issue 42 no answer of the site is kept by a cache:
    tests/security/test_kept_by_no_cache.py.)"""
    hosts = host_client.get(reverse("home"))

    assert "no-store" in hosts["Cache-Control"] and "private" in hosts["Cache-Control"]
    assert "Maple Street" in text(hosts)
