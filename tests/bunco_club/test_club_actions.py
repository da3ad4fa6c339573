"""The club's actions: clubs, the roster and sub list, seasons and the rotation, swaps, RSVPs and
substitutes, and a night's results."""

from __future__ import annotations

import datetime
from collections import Counter

import pytest
from django.core import mail

from bunco_club import actions
from bunco_club.headcount import headcount
from bunco_club.models import (
    RSVP,
    Blackout,
    Club,
    LedgerEntry,
    Member,
    NightRecord,
    Party,
    SubInvitation,
    SwapRequest,
)
from tests.builders import REGULARS, make_user, soon

pytestmark = pytest.mark.django_db


def names(members) -> list[str]:
    return [member.name for member in members]


# --- Clubs ------------------------------------------------------------------------------------


def test_the_creator_of_a_club_becomes_its_host():
    user = make_user("creator")
    club = actions.create_club(user=user, name="Friday  Dicers", place="12 Elm Road", buy_in_cents=1000, wipeout=True)
    assert club.name == "Friday Dicers"
    assert club.slug == "friday-dicers"
    assert club.is_hosted_by(user)
    assert club.night_rules() == {"baby_bunco_ends_turn": False, "wipeout": True, "head_losers_to_last_table": False,
                                  "tie_break": "roll_off"}
    assert club.prize_rules() == {"one_prize_each": False, "split_ties": False, "whole_dollars": True,
                                  "remainder_to": "draw"}


def test_two_clubs_with_the_same_name_get_different_addresses():
    user = make_user("creator")
    first = actions.create_club(user=user, name="Dicers")
    second = actions.create_club(user=user, name="Dicers")
    assert first.slug != second.slug


def test_a_club_never_takes_an_address_its_pages_use():
    club = actions.create_club(user=make_user("creator"), name="New")
    assert club.slug != "new"


def test_a_host_adds_a_cohost_by_username(host, club):
    cohost = make_user("dana")
    actions.add_cohost(club, "dana")
    assert club.is_hosted_by(cohost)


def test_a_cohost_without_an_account_is_refused_with_a_reason(club):
    with pytest.raises(actions.ClubError, match="no account with the username “nobody”"):
        actions.add_cohost(club, "nobody")


def test_the_last_host_cannot_leave(host, club):
    with pytest.raises(actions.ClubError, match="at least one host"):
        actions.remove_cohost(club, host)


# --- The roster -------------------------------------------------------------------------------


def test_alternates_queue_in_the_order_they_were_added(club):
    assert names(club.members.alternates()) == ["Sam", "Tia", "Uma"]


def test_a_name_already_on_the_roster_is_refused_whatever_its_case(club):
    with pytest.raises(actions.ClubError, match="already on the roster"):
        actions.add_member(club, name="ada")
    assert club.members.filter(name__iexact="ada").count() == 1


def test_moving_a_sub_up_puts_them_before_the_one_above(club):
    actions.move_sub(club.members.get(name="Uma"), up=True)
    assert names(club.members.alternates()) == ["Sam", "Uma", "Tia"]
    actions.move_sub(club.members.get(name="Sam"), up=False)
    assert names(club.members.alternates()) == ["Uma", "Sam", "Tia"]


def test_the_first_sub_cannot_move_up(club):
    with pytest.raises(actions.ClubError, match="already first"):
        actions.move_sub(club.members.get(name="Sam"), up=True)


def test_promoting_an_alternate_makes_them_a_regular_and_closes_the_gap(club):
    actions.promote(club.members.get(name="Tia"))
    assert "Tia" in names(club.members.regulars())
    assert names(club.members.alternates()) == ["Sam", "Uma"]
    assert list(club.members.alternates().values_list("sub_order", flat=True)) == [1, 2]


def test_a_retired_member_leaves_the_roster_but_keeps_their_history(club):
    ada = club.members.get(name="Ada")
    actions.retire(ada)
    assert "Ada" not in names(club.members.regulars())
    assert names(club.members.retired()) == ["Ada"]
    actions.reinstate(ada)
    assert "Ada" in names(club.members.regulars())


def test_a_regular_moved_to_the_sub_list_goes_to_its_end(club):
    actions.make_alternate(club.members.get(name="Ada"))
    assert names(club.members.alternates()) == ["Sam", "Tia", "Uma", "Ada"]


def test_a_new_personal_link_replaces_the_old_code(member):
    old = member.code
    actions.reset_member_link(member)
    member.refresh_from_db()
    assert member.code != old and len(member.code) >= 20


def test_cohosts_point_at_each_other_and_split_apart(club):
    ada, bea = club.members.get(name="Ada"), club.members.get(name="Bea")
    actions.pair_cohosts(ada, bea)
    ada.refresh_from_db()
    bea.refresh_from_db()
    assert ada.cohost == bea and bea.cohost == ada
    actions.split_cohosts(bea)
    ada.refresh_from_db()
    bea.refresh_from_db()
    assert ada.cohost is None and bea.cohost is None


def test_an_alternate_cannot_cohost(club):
    with pytest.raises(actions.ClubError, match="only regulars host"):
        actions.pair_cohosts(club.members.get(name="Ada"), club.members.get(name="Sam"))


# --- Seasons and the rotation -----------------------------------------------------------------


def test_a_season_by_rule_has_a_party_on_the_third_friday_of_every_month(club):
    season = actions.season_by_rule(club, name="2031", first_month=datetime.date(2031, 1, 1), months=12, nth=3,
                                    weekday=4, time=datetime.time(19, 0))
    parties = list(season.parties.order_by("starts_at"))
    assert len(parties) == 12
    assert all(party.starts_at.weekday() == 4 and 15 <= party.starts_at.day <= 21 for party in parties)
    assert parties[0].starts_at.hour == 19


def test_a_season_given_the_same_date_twice_is_refused_and_makes_nothing(club):
    start = soon(30)
    with pytest.raises(actions.ClubError, match="twice"):
        actions.create_season(club, name="By hand", starts=[start, start])
    assert not club.seasons.exists() and not club.parties.exists()


def year_of(club: Club) -> tuple:
    season = actions.season_by_rule(club, name="2031", first_month=datetime.date(2031, 1, 1), months=12, nth=3,
                                    weekday=4)
    return season, list(season.parties.order_by("starts_at"))


def test_the_rotation_gives_a_year_of_dates_to_twelve_regulars_once_each(club):
    season, parties = year_of(club)
    actions.assign_hosts(season)
    hosts = list(Party.objects.filter(season=season).values_list("host__name", flat=True))
    assert sorted(hosts) == sorted(REGULARS)


def test_the_rotation_keeps_members_off_their_dates_away(club):
    season, parties = year_of(club)
    ada = club.members.get(name="Ada")
    Blackout.objects.bulk_create([Blackout(member=ada, date=party.starts_at.date()) for party in parties[:6]])
    actions.assign_hosts(season)
    for party in parties[:6]:
        assert Party.objects.get(pk=party.pk).host != ada


def test_cohosts_take_one_date_together(club):
    season, parties = year_of(club)
    ada, bea = club.members.get(name="Ada"), club.members.get(name="Bea")
    actions.pair_cohosts(ada, bea)
    actions.assign_hosts(season)
    planned = Party.objects.filter(season=season)
    assert planned.filter(host=ada, cohost=bea).exists()
    assert not planned.filter(host=bea).exists() and not planned.filter(host=ada, cohost__isnull=True).exists()
    # 11 hosting slots for 12 dates: one slot hosts twice.
    assert sorted(Counter(planned.values_list("host__name", flat=True)).values()) == [1] * 10 + [2]


def test_members_who_hosted_last_season_host_later_this_one(club):
    last, last_parties = year_of(club)
    for party, name in zip(last_parties[:3], ["Ada", "Bea", "Cal"], strict=True):
        Party.objects.filter(pk=party.pk).update(host=club.members.get(name=name))
    Party.objects.filter(season=last).exclude(pk__in=[p.pk for p in last_parties[:3]]).delete()
    season = actions.season_by_rule(club, name="2032", first_month=datetime.date(2032, 1, 1), months=9, nth=3,
                                    weekday=4)
    actions.assign_hosts(season)
    assert not season.parties.filter(host__name__in=["Ada", "Bea", "Cal"]).exists()


def test_planning_again_changes_sequence_only_where_the_host_changed(club):
    season, parties = year_of(club)
    actions.assign_hosts(season)
    before = dict(season.parties.values_list("pk", "sequence"))
    actions.assign_hosts(season)
    assert dict(season.parties.values_list("pk", "sequence")) == before


def test_past_dates_keep_their_hosts(club):
    season = actions.create_season(club, name="Now", starts=[soon(-40), soon(20)])
    past, coming = season.parties.order_by("starts_at")
    past.host = club.members.get(name="Lou")
    past.save()
    actions.assign_hosts(season)
    assert list(season.parties.order_by("starts_at").values_list("host__name", flat=True)) == ["Lou", "Ada"]


def test_editing_a_partys_time_bumps_its_sequence(party):
    before = party.sequence
    actions.edit_party(party, starts_at=party.starts_at + datetime.timedelta(hours=1), location="Bea's",
                       host=party.host)
    party.refresh_from_db()
    assert party.sequence == before + 1


# --- Swaps ------------------------------------------------------------------------------------


def swap_pair(club):
    ada, bea = club.members.get(name="Ada"), club.members.get(name="Bea")
    give = actions.add_party(club, starts_at=soon(20))
    take = actions.add_party(club, starts_at=soon(50))
    Party.objects.filter(pk=give.pk).update(host=ada)
    Party.objects.filter(pk=take.pk).update(host=bea)
    give.refresh_from_db()
    take.refresh_from_db()
    return ada, bea, give, take


def test_an_accepted_swap_exchanges_the_hosts(club, django_capture_on_commit_callbacks):
    ada, bea, give, take = swap_pair(club)
    with django_capture_on_commit_callbacks(execute=True):
        swap = actions.request_swap(ada, give=give, take=take)
    assert mail.outbox[-1].to == ["bea@example.com"]
    assert "Ada asks to swap" in mail.outbox[-1].subject
    actions.answer_swap(swap, member=bea, accept=True)
    give.refresh_from_db()
    take.refresh_from_db()
    assert (give.host, take.host) == (bea, ada)
    assert give.sequence == 1 and take.sequence == 1


def test_a_declined_swap_changes_no_host(club):
    ada, bea, give, take = swap_pair(club)
    swap = actions.request_swap(ada, give=give, take=take)
    actions.answer_swap(swap, member=bea, accept=False)
    assert SwapRequest.objects.get().status == "declined"
    give.refresh_from_db()
    assert give.host == ada


def test_only_the_member_asked_answers_a_swap(club):
    ada, bea, give, take = swap_pair(club)
    swap = actions.request_swap(ada, give=give, take=take)
    with pytest.raises(actions.ClubError, match="Only the member asked"):
        actions.answer_swap(swap, member=club.members.get(name="Cal"), accept=True)


def test_a_member_can_only_offer_a_date_they_host(club):
    ada, bea, give, take = swap_pair(club)
    with pytest.raises(actions.ClubError, match="only offer a date you host"):
        actions.request_swap(bea, give=give, take=take)


# --- RSVPs and substitutes --------------------------------------------------------------------


def test_every_regular_coming_makes_three_tables_and_no_ghosts(party):
    count = headcount(party)
    assert len(count.coming) == 12 and count.tables == 3 and count.ghosts == 0
    assert count.summary() == "12 coming, 0 ghosts"


def test_a_no_after_a_yes_invites_the_first_alternate(party, member, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        actions.answer_rsvp(party, member, "no")
    invitation = SubInvitation.objects.get()
    assert invitation.member.name == "Sam"
    assert [message.to for message in mail.outbox] == [["sam@example.com"]]
    assert "A seat has opened" in mail.outbox[0].body
    count = headcount(party)
    assert names(count.subs_invited) == ["Sam"] and count.ghosts == 1
    assert count.summary() == "11 coming, 1 sub invited, 1 ghost"


def test_a_maybe_after_a_yes_also_gives_the_seat_up(party, member):
    actions.answer_rsvp(party, member, "maybe")
    assert SubInvitation.objects.get().member.name == "Sam"


def test_a_no_from_a_regular_who_never_said_yes_invites_the_first_alternate(club):
    party = actions.add_party(club, starts_at=soon())
    actions.answer_rsvp(party, club.members.get(name="Ada"), "no")
    assert [invitation.member.name for invitation in SubInvitation.objects.all()] == ["Sam"]
    party.refresh_from_db()
    assert party.open_seats == 1


def test_every_no_from_a_regular_invites_the_next_alternate_once(club):
    party = actions.add_party(club, starts_at=soon())
    actions.answer_rsvp(party, club.members.get(name="Ada"), "no")
    actions.answer_rsvp(party, club.members.get(name="Ada"), "no")  # the same "no" again opens nothing more
    actions.answer_rsvp(party, club.members.get(name="Bea"), "maybe")  # a maybe from the start holds the seat
    actions.answer_rsvp(party, club.members.get(name="Cal"), "no")
    assert [invitation.member.name for invitation in SubInvitation.objects.order_by("pk")] == ["Sam", "Tia"]


def test_a_regular_who_said_no_and_then_yes_takes_the_seat_back_while_it_is_free(club):
    party = actions.add_party(club, starts_at=soon())
    ada = club.members.get(name="Ada")
    actions.answer_rsvp(party, ada, "no")
    actions.answer_rsvp(party, ada, "yes")
    party.refresh_from_db()
    assert party.open_seats == 0


def test_an_rsvp_keeps_the_members_note_for_the_host(party, member):
    actions.answer_rsvp(party, member, "yes", note="  Bringing   dessert ")
    assert RSVP.objects.get(party=party, member=member).note == "Bringing dessert"
    actions.answer_rsvp(party, member, "yes")  # no note sent: the note stays
    assert RSVP.objects.get(party=party, member=member).note == "Bringing dessert"


def test_an_rsvp_sent_again_with_its_key_is_a_retry_and_changes_nothing(party, member):
    actions.answer_rsvp(party, member, "no", key="k1")
    actions.answer_rsvp(party, member, "no", key="k1")
    assert SubInvitation.objects.count() == 1
    assert RSVP.objects.get(party=party, member=member).answer == "no"


def test_an_rsvp_key_reused_with_another_answer_is_refused_and_changes_nothing(party, member):
    actions.answer_rsvp(party, member, "maybe", key="k1")
    with pytest.raises(actions.KeyReused, match="other content") as refused:
        actions.answer_rsvp(party, member, "yes", key="k1")
    assert refused.value.status == 409
    with pytest.raises(actions.KeyReused):
        actions.answer_rsvp(party, member, "maybe", note="late", key="k1")
    assert RSVP.objects.get(party=party, member=member).answer == "maybe"


def test_the_host_marks_who_has_paid_the_buy_in(party, member):
    actions.record_buy_in(party, member, "cash")
    assert LedgerEntry.objects.filter(party=party, member=member).buy_in_state().is_paid
    other = party.club.members.get(name="Cal")
    actions.answer_rsvp(party, other, "no")
    with pytest.raises(actions.NotNow, match="only those coming pay"):
        actions.record_buy_in(party, other, "cash")


def test_the_first_alternate_to_accept_takes_the_seat_and_a_later_one_is_told_it_is_taken(party, member):
    actions.answer_rsvp(party, member, "no")
    sam_invite = SubInvitation.objects.get(member__name="Sam")
    tia_invite = actions.invite_another_sub(party)
    assert tia_invite.member.name == "Tia"
    actions.answer_sub_invitation(tia_invite, accept=True)
    late = actions.answer_sub_invitation(sam_invite, accept=True)
    assert late.status == SubInvitation.Status.TOO_LATE
    assert RSVP.objects.get(party=party, member__name="Tia").answer == "yes"
    assert not RSVP.objects.filter(party=party, member__name="Sam").exists()
    count = headcount(party)
    assert len(count.coming) == 12 and count.ghosts == 0 and not count.subs_invited


def test_a_declined_invitation_goes_to_the_next_alternate(party, member, django_capture_on_commit_callbacks):
    actions.answer_rsvp(party, member, "no")
    with django_capture_on_commit_callbacks(execute=True):
        actions.answer_sub_invitation(SubInvitation.objects.get(member__name="Sam"), accept=False)
    assert SubInvitation.objects.get(member__name="Tia").status == "invited"
    assert mail.outbox[-1].to == ["tia@example.com"]


def test_alternates_are_invited_in_the_sub_list_order(party, member, club):
    actions.move_sub(club.members.get(name="Uma"), up=True)
    actions.move_sub(club.members.get(name="Uma"), up=True)
    actions.answer_rsvp(party, member, "no")
    assert SubInvitation.objects.get().member.name == "Uma"


def test_an_alternate_away_that_day_is_skipped(party, member, club):
    Blackout.objects.create(member=club.members.get(name="Sam"), date=party.starts_at.date())
    actions.answer_rsvp(party, member, "no")
    assert SubInvitation.objects.get().member.name == "Tia"


def test_two_cancellations_invite_two_alternates(party, club):
    actions.answer_rsvp(party, club.members.get(name="Bea"), "no")
    actions.answer_rsvp(party, club.members.get(name="Cal"), "no")
    assert names(m.member for m in SubInvitation.objects.order_by("pk")) == ["Sam", "Tia"]


def test_a_regular_who_comes_back_before_a_sub_accepts_takes_the_seat_back(party, member):
    actions.answer_rsvp(party, member, "no")
    actions.answer_rsvp(party, member, "yes")
    late = actions.answer_sub_invitation(SubInvitation.objects.get(), accept=True)
    assert late.status == SubInvitation.Status.TOO_LATE


def test_an_alternate_who_took_a_seat_and_cancels_opens_it_for_the_next(party, member):
    actions.answer_rsvp(party, member, "no")
    sam = actions.answer_sub_invitation(SubInvitation.objects.get(), accept=True).member
    actions.answer_rsvp(party, sam, "no")
    assert SubInvitation.objects.filter(status="invited").get().member.name == "Tia"


def test_an_alternate_cannot_say_yes_without_an_invitation(party, club):
    with pytest.raises(actions.ClubError, match="sub list"):
        actions.answer_rsvp(party, club.members.get(name="Sam"), "yes")


def test_answers_for_a_party_that_is_over_are_refused(club):
    party = actions.add_party(club, starts_at=soon(-3))
    with pytest.raises(actions.NotNow, match="over"):
        actions.answer_rsvp(party, club.members.get(name="Ada"), "yes")
    assert not RSVP.objects.exists()


def test_a_nonsense_answer_is_refused(party, member):
    with pytest.raises(actions.ClubError, match="yes, no or maybe"):
        actions.answer_rsvp(party, member, "perhaps")


def test_a_member_of_another_club_cannot_answer(party, db):
    other = Club.objects.create(name="Elsewhere", slug="elsewhere")
    stranger = Member.objects.create(club=other, name="Zed")
    with pytest.raises(actions.ClubError, match="Only the club's members"):
        actions.answer_rsvp(party, stranger, "yes")


# --- A night's results ------------------------------------------------------------------------


def test_a_nights_results_are_stored_as_the_clubs_own_records(party, club):
    ada = club.members.get(name="Ada")
    records = actions.record_night_results(party, [
        {"name": "Ada", "wins": 14, "losses": 10, "buncos": 2, "prize_cents": 2000, "prizes": ["most_buncos"]},
        actions.NightSheet(name="Bea", wins=10, losses=14, buncos=0),
        {"name": "A guest", "wins": 12, "losses": 12, "buncos": 1, "prize_cents": 800},
    ])
    assert len(records) == 3
    stored = {record.name: record for record in NightRecord.objects.filter(party=party)}
    assert stored["Ada"].member == ada and stored["Ada"].prizes == "most_buncos"
    assert stored["Bea"].member == club.members.get(name="Bea")
    assert stored["A guest"].member is None


def test_recording_a_night_again_replaces_its_records(party):
    actions.record_night_results(party, [{"name": "Ada", "wins": 1, "losses": 23, "buncos": 0}])
    actions.record_night_results(party, [{"name": "Ada", "wins": 13, "losses": 11, "buncos": 1}])
    assert list(NightRecord.objects.values_list("name", "wins")) == [("Ada", 13)]


def test_a_sheet_with_a_negative_figure_is_refused_and_stores_nothing(party):
    with pytest.raises(actions.ClubError, match="whole number of 0 or more"):
        actions.record_night_results(party, [{"name": "Ada", "wins": 3, "losses": -1, "buncos": 0},
                                             {"name": "Bea", "wins": 3, "losses": 1, "buncos": 0}])
    assert not NightRecord.objects.exists()


def test_the_same_player_twice_is_refused(party):
    with pytest.raises(actions.ClubError, match="twice"):
        actions.record_night_results(party, [{"name": "Ada", "wins": 1}, {"name": "ada", "wins": 2}])


def test_a_member_given_by_id_is_kept_even_under_another_name(party, club):
    ada = club.members.get(name="Ada")
    actions.record_night_results(party, [{"name": "Ada B.", "member": ada, "wins": 5}])
    assert NightRecord.objects.get().member == ada


# --- Away dates and swaps (issue 16, C3) --------------------------------------------------------


def test_a_swap_that_would_make_a_member_host_on_a_date_they_are_away_is_refused(club):
    ada, bea, give, take = swap_pair(club)
    Blackout.objects.create(member=bea, date=give.day)  # Bea would host Ada's date, and she is away
    with pytest.raises(actions.NotNow, match="Bea is away on"):
        actions.request_swap(ada, give=give, take=take)
    assert not SwapRequest.objects.exists()


def test_a_swap_asked_before_a_date_away_was_marked_is_refused_when_accepted(club):
    ada, bea, give, take = swap_pair(club)
    swap = actions.request_swap(ada, give=give, take=take)
    Blackout.objects.create(member=ada, date=take.day)
    with pytest.raises(actions.NotNow, match="Ada is away on"):
        actions.answer_swap(swap, member=bea, accept=True)
    give.refresh_from_db()
    assert give.host == ada


# --- Cancelling and moving a party (C7), a party's season and host (C6) -------------------------


def test_a_cancelled_party_takes_no_answers_and_every_member_is_told(party, club, member,
                                                                     django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        actions.cancel_party(party)
    party.refresh_from_db()
    assert party.is_cancelled and party.sequence == 1
    told = sorted(address for message in mail.outbox for address in message.to)
    assert told == sorted(f"{name.lower()}@example.com" for name in REGULARS)
    assert "is cancelled" in mail.outbox[0].body
    with pytest.raises(actions.NotNow, match="cancelled"):
        actions.answer_rsvp(party, member, "no")


def test_a_new_time_or_place_is_mailed_to_those_coming(party, club, django_capture_on_commit_callbacks):
    actions.answer_rsvp(party, club.members.get(name="Cal"), "no")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        party = actions.edit_party(party, starts_at=party.starts_at + datetime.timedelta(hours=1),
                                   location="9 Oak Lane", host=party.host)
    told = sorted(address for message in mail.outbox for address in message.to)
    assert "cal@example.com" not in told and len(told) == len(REGULARS) - 1
    assert "9 Oak Lane" in mail.outbox[0].body and "20:00" in mail.outbox[0].body
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):  # only the notes change: nobody is mailed
        actions.edit_party(party, starts_at=party.starts_at, location=party.location, notes="Bring a dish",
                           host=party.host)
    assert mail.outbox == []


def test_a_party_made_with_no_season_joins_one_later(club):
    party = actions.add_party(club, starts_at=soon())
    season = actions.create_season(club, name="2030", starts=[soon(40)])
    actions.edit_party(party, starts_at=party.starts_at, location=party.location, season=season)
    party.refresh_from_db()
    assert party.season == season


def test_a_new_party_can_have_its_host_from_the_start(club):
    ada = club.members.get(name="Ada")
    party = actions.add_party(club, starts_at=soon(), host=ada)
    assert party.host == ada


# --- Time zones (C2) ------------------------------------------------------------------------------


def test_a_season_in_chicago_starts_at_seven_in_the_evening_there(club):
    club.time_zone = "America/Chicago"
    club.save()
    season = actions.season_by_rule(club, name="2031", first_month=datetime.date(2031, 1, 1), months=1, nth=3,
                                    weekday=4, time=datetime.time(19, 0))
    party = season.parties.get()
    assert party.starts_at == datetime.datetime(2031, 1, 18, 1, 0, tzinfo=datetime.UTC)  # 19:00 CST
    assert party.day == datetime.date(2031, 1, 17) and party.local_start.hour == 19
