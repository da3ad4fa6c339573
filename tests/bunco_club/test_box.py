"""The Bunco box (issue 45): the club's kit as a checklist a host writes, handed from host to host
along the hosting rotation; the next party's host taps "received" and counts what is there, the
custody log keeps every hand-over, and a missing item is flagged to the party's host (its pages,
and a mail in their language) before the party."""

from __future__ import annotations

import json

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from bunco_club import actions, custody
from bunco_club.box import box_at
from bunco_club.links import member_token
from bunco_club.mail import send_due_reminders
from bunco_club.models import BoxHandOver, BoxItem, Club, Member, Party
from live.models import Event
from tests.builders import exported, imported, member_phone, refused, resealed, soon, text

pytestmark = pytest.mark.django_db

BAD_COUNTS = {"-1": "never below zero", "²": "digits 0 to 9", "٣": "digits 0 to 9", "1.5": "digits 0 to 9",
              "9" * 20: "to 999", "1000": "to 999"}


# --- The rules (bunco_club/custody.py) ---------------------------------------------------------


@pytest.mark.parametrize(("typed", "count"), [("0", 0), ("12", 12), (" 7 ", 7), ("999", 999), ("007", 7)])
def test_a_count_is_a_whole_number_in_digits(typed, count):
    assert custody.read_count(typed, item="Dice") == count


@pytest.mark.parametrize("typed", BAD_COUNTS)
def test_a_count_that_is_not_one_is_refused_saying_what_to_write(typed):
    with pytest.raises(custody.BoxError) as refusal:
        custody.read_count(typed, item="Dice")
    assert BAD_COUNTS[typed] in str(refusal.value) and "“Dice”" in str(refusal.value)


def test_a_kit_holds_at_least_one_of_each_item():
    with pytest.raises(custody.BoxError, match="from 1 to 999"):
        custody.read_count("0", item="Bell", least=1)
    with pytest.raises(custody.BoxError, match="how many “Bell” the box holds"):
        custody.read_count("", item="Bell", least=1)


def test_only_the_items_counted_fewer_than_the_kit_are_missing():
    lines = [custody.Line("Bell", 1, 1), custody.Line("Dice", 12, 10), custody.Line("Pencils", 12, 14),
             custody.Line("Envelopes", 2, 0)]
    assert [(line.name, line.short) for line in custody.missing(lines)] == [("Dice", 2), ("Envelopes", 2)]


def test_the_previous_host_brings_the_box_to_the_next_one():
    assert custody.who_brings(holder=1, hosts={2}, previous_host=1) == custody.Bringing(holder=1, brings=1,
                                                                                          ready=False)


def test_the_previous_host_brings_it_even_if_the_log_last_saw_it_elsewhere():
    # Ada hosted last but never tapped "received": the rotation says she hands it on.
    assert custody.who_brings(holder=3, hosts={2}, previous_host=1).brings == 1


def test_once_the_host_has_the_box_nobody_needs_to_bring_it():
    assert custody.who_brings(holder=2, hosts={2, 5}, previous_host=1) == custody.Bringing(holder=2, brings=None,
                                                                                             ready=True)


def test_with_no_party_before_whoever_has_the_box_brings_it():
    assert custody.who_brings(holder=4, hosts={2}, previous_host=None).brings == 4
    assert custody.who_brings(holder=None, hosts={2}, previous_host=None) == custody.Bringing(None, None, False)


@pytest.mark.parametrize(("records", "problem"), [
    ([{"name": "Dice", "kit": 12, "counted": 10}], None),
    ({"name": "Dice"}, "not a list"),
    ([{"name": "Dice", "kit": 12}], "line 1"),
    ([{"name": " ", "kit": 12, "counted": 1}], "no name"),
    ([{"name": "Dice", "kit": 12, "counted": -1}], "counted"),
    ([{"name": "Dice", "kit": True, "counted": 1}], "kit"),
])
def test_a_count_as_stored_is_a_list_of_names_and_whole_numbers(records, problem):
    said = custody.record_problem(records)
    assert said is None if problem is None else problem in (said or "")


# --- A club with parties along the rotation ------------------------------------------------------


@pytest.fixture
def parties(club) -> dict[str, Party]:
    """Ada hosted last month; Bea hosts the next party, Cal the one after."""
    names = {member.name: member for member in club.members.filter(name__in=["Ada", "Bea", "Cal"])}
    return {
        "last": actions.add_party(club, starts_at=soon(-20), host=names["Ada"]),
        "next": actions.add_party(club, starts_at=soon(10), host=names["Bea"]),
        "later": actions.add_party(club, starts_at=soon(40), host=names["Cal"]),
    }


KIT = [("Bell", "1"), ("Dice", "12"), ("Score cards", "12")]


def kit_of(club: Club) -> list[tuple[str, int]]:
    return list(club.box_items.values_list("name", "count"))


def counted(club: Club, *counts: str) -> list[tuple[str, str]]:
    """A "received" count: each item of the kit, in order, with the count given (the kit's, where none)."""
    items = list(club.box_items.all())
    return [(str(item.pk), counts[index] if index < len(counts) else str(item.count))
            for index, item in enumerate(items)]


def named(club: Club, name: str) -> Member:
    return club.members.get(name=name)


# --- The checklist -----------------------------------------------------------------------------------


def test_a_host_writes_the_checklist_in_order_blank_rows_left_out(club):
    actions.set_box_kit(club, [(" Bell ", "1"), ("", ""), ("Dice", "12"), ("Score   cards", " 12 ")])
    assert kit_of(club) == [("Bell", 1), ("Dice", 12), ("Score cards", 12)]


def test_the_same_checklist_sent_again_changes_nothing(club):
    actions.set_box_kit(club, KIT)
    ids, events = list(club.box_items.values_list("pk", flat=True)), Event.objects.count()
    actions.set_box_kit(club, KIT)
    assert list(club.box_items.values_list("pk", flat=True)) == ids
    assert Event.objects.count() == events


@pytest.mark.parametrize("typed", ["-1", "²", "9" * 20, "0"])
def test_a_bad_count_in_the_checklist_is_refused_and_nothing_is_saved(club, typed):
    actions.set_box_kit(club, KIT)
    with pytest.raises(actions.ClubError) as refusal:
        actions.set_box_kit(club, [("Bell", "1"), ("Dice", typed)])
    assert "“Dice”" in refusal.value.message
    assert kit_of(club) == [("Bell", 1), ("Dice", 12), ("Score cards", 12)]


@pytest.mark.parametrize(("rows", "message"), [
    ([], "at least one thing"),
    ([("", "12")], "needs the name"),
    ([("Dice", "12"), ("dice ", "2")], "on the list twice"),
    ([("Dice\x00", "12")], "control character"),
    ([("D" * 61, "12")], "too long"),
    ([(f"Item {number}", "1") for number in range(custody.KIT_MAX_ITEMS + 1)], "30 lines at most"),
])
def test_a_checklist_that_is_not_one_is_refused_by_name(club, rows, message):
    with pytest.raises(actions.ClubError, match=message):
        actions.set_box_kit(club, rows)
    assert not club.box_items.exists()


# --- Receiving the box ---------------------------------------------------------------------------------


def test_the_next_partys_host_receives_the_box_and_holds_it(club, parties):
    actions.set_box_kit(club, KIT)
    bea = named(club, "Bea")
    handover = actions.receive_box(parties["next"], counted(club), key="k1", member=bea)
    assert (handover.received_by, handover.party, handover.by_host) == (bea, parties["next"], False)
    assert handover.counts == [{"name": "Bell", "kit": 1, "counted": 1}, {"name": "Dice", "kit": 12, "counted": 12},
                               {"name": "Score cards", "kit": 12, "counted": 12}]
    at = box_at(parties["next"])
    assert (at.holder, at.ready, at.brings, at.missing) == (bea, True, None, [])


def test_the_holder_is_the_last_to_receive_it_and_the_log_only_grows(club, parties):
    actions.set_box_kit(club, KIT)
    first = actions.receive_box(parties["next"], counted(club, "1", "10"), key="k1", member=named(club, "Bea"))
    kept = BoxHandOver.objects.filter(pk=first.pk).values().get()
    second = actions.receive_box(parties["next"], counted(club), key="k2")  # recounted, by a club host
    assert list(BoxHandOver.objects.order_by("pk")) == [first, second]
    assert BoxHandOver.objects.filter(pk=first.pk).values().get() == kept  # as it was written
    assert second.by_host and second.received_by == named(club, "Bea")
    assert box_at(parties["next"]).missing == []  # the last count found everything


def test_the_checklist_changed_later_leaves_the_counts_as_they_were(club, parties):
    actions.set_box_kit(club, KIT)
    handover = actions.receive_box(parties["next"], counted(club, "1", "10"), key="k1", member=named(club, "Bea"))
    actions.set_box_kit(club, [("Bell", "1"), ("Dice", "15")])
    handover.refresh_from_db()
    assert [(line.name, line.kit, line.counted) for line in handover.missing()] == [("Dice", 12, 10)]


def test_a_retry_with_the_same_key_records_nothing_twice(club, parties, django_capture_on_commit_callbacks):
    actions.set_box_kit(club, KIT)
    bea = named(club, "Bea")
    with django_capture_on_commit_callbacks(execute=True):
        first = actions.receive_box(parties["next"], counted(club, "1", "10"), key="k1", member=bea)
    with django_capture_on_commit_callbacks(execute=True):
        again = actions.receive_box(parties["next"], counted(club, "1", "10"), key="k1", member=bea)
    assert again == first and BoxHandOver.objects.count() == 1
    assert len(mail.outbox) == 1  # the flag went once


def test_the_same_key_with_other_counts_is_refused_and_nothing_recorded(club, parties):
    actions.set_box_kit(club, KIT)
    bea = named(club, "Bea")
    actions.receive_box(parties["next"], counted(club), key="k1", member=bea)
    with pytest.raises(actions.KeyReused):
        actions.receive_box(parties["next"], counted(club, "0"), key="k1", member=bea)
    assert BoxHandOver.objects.count() == 1


@pytest.mark.parametrize("typed", list(BAD_COUNTS))
def test_a_bad_count_when_receiving_is_refused_and_nothing_recorded(club, parties, typed):
    actions.set_box_kit(club, KIT)
    with pytest.raises(actions.ClubError) as refusal:
        actions.receive_box(parties["next"], counted(club, "1", typed), key="k1", member=named(club, "Bea"))
    assert BAD_COUNTS[typed] in refusal.value.message and "“Dice”" in refusal.value.message
    assert not BoxHandOver.objects.exists() and not mail.outbox


def test_a_count_of_another_checklist_than_the_clubs_is_refused(club, parties):
    actions.set_box_kit(club, KIT)
    bea = named(club, "Bea")
    for count in (counted(club)[:2], [*counted(club), counted(club)[0]], [("999999", "1"), *counted(club)[1:]]):
        with pytest.raises(actions.ClubError, match="checklist has changed"):
            actions.receive_box(parties["next"], count, key="k1", member=bea)
    assert not BoxHandOver.objects.exists()


def test_only_the_next_partys_host_receives_it(club, parties):
    actions.set_box_kit(club, KIT)
    with pytest.raises(actions.Refusal, match="Only this party's host"):
        actions.receive_box(parties["next"], counted(club), key="k1", member=named(club, "Cal"))
    with pytest.raises(actions.NotNow, match="next party's host first"):
        actions.receive_box(parties["later"], counted(club), key="k2", member=named(club, "Cal"))
    with pytest.raises(actions.NotNow, match="over"):
        actions.receive_box(parties["last"], counted(club), key="k3", member=named(club, "Ada"))
    actions.cancel_party(parties["next"])
    with pytest.raises(actions.NotNow, match="cancelled"):
        actions.receive_box(parties["next"], counted(club), key="k4", member=named(club, "Bea"))
    assert not BoxHandOver.objects.exists()


def test_the_box_is_not_received_before_it_has_a_checklist(club, parties):
    with pytest.raises(actions.NotNow, match="no checklist yet"):
        actions.receive_box(parties["next"], [], key="k1", member=named(club, "Bea"))


def test_a_key_that_is_not_one_is_refused(club, parties):
    actions.set_box_kit(club, KIT)
    for key in ("", "x" * 65, "a\x00"):
        with pytest.raises(actions.ClubError, match="key is not valid"):
            actions.receive_box(parties["next"], counted(club), key=key, member=named(club, "Bea"))


# --- Who has it, who brings it -------------------------------------------------------------------------


def test_the_party_says_the_last_host_brings_it_to_the_next(club, parties):
    actions.set_box_kit(club, KIT)
    at = box_at(parties["next"])
    assert (at.holder, at.brings, at.to, at.ready) == (None, named(club, "Ada"), named(club, "Bea"), False)
    actions.receive_box(parties["next"], counted(club), key="k1", member=named(club, "Bea"))
    later = box_at(parties["later"])  # for the party after, Bea (its previous host) hands it to Cal
    assert (later.holder, later.brings, later.to, later.ready) == (named(club, "Bea"), named(club, "Bea"),
                                                                    named(club, "Cal"), False)


# --- The flag: a missing item, to the party's host, before the party -----------------------------


def test_a_missing_item_is_mailed_to_the_partys_host_in_english(club, parties, django_capture_on_commit_callbacks):
    actions.set_box_kit(club, KIT)
    with django_capture_on_commit_callbacks(execute=True):
        actions.receive_box(parties["next"], counted(club, "0", "10"), key="k1", member=named(club, "Bea"))
    [message] = mail.outbox
    assert message.to == ["bea@example.com"]
    assert "the Bunco box is missing something" in message.subject
    assert "- Bell: 0 of 1\n- Dice: 10 of 12" in message.body and "Score cards" not in message.body
    assert member_token(named(club, "Bea").code) in message.body


def test_a_missing_item_is_mailed_in_spanish_to_a_host_who_reads_spanish(club, parties,
                                                                       django_capture_on_commit_callbacks):
    actions.set_member_language(named(club, "Bea"), "es")
    actions.set_box_kit(club, KIT)
    with django_capture_on_commit_callbacks(execute=True):
        actions.receive_box(parties["next"], counted(club, "1", "10"), key="k1")  # recorded by a club host
    [message] = mail.outbox
    assert "a la caja de Bunco le falta algo" in message.subject
    assert "- Dice: 10 de 12" in message.body and "Hola, Bea:" in message.body


def test_a_box_with_everything_in_it_sends_no_mail(club, parties, django_capture_on_commit_callbacks):
    actions.set_box_kit(club, KIT)
    with django_capture_on_commit_callbacks(execute=True):
        actions.receive_box(parties["next"], counted(club), key="k1", member=named(club, "Bea"))
    assert mail.outbox == []


def test_the_reminders_send_a_flag_whose_mail_was_lost_once(club, parties):
    actions.set_box_kit(club, KIT)
    actions.receive_box(parties["next"], counted(club, "1", "10"), key="k1", member=named(club, "Bea"))
    assert mail.outbox == []  # its enqueue never ran (the test's transaction never commits)
    assert send_due_reminders() == 1
    assert send_due_reminders() == 0
    [message] = mail.outbox
    assert message.to == ["bea@example.com"] and "- Dice: 10 of 12" in message.body


def test_the_reminders_flag_nothing_once_a_recount_found_everything(club, parties):
    actions.set_box_kit(club, KIT)
    actions.receive_box(parties["next"], counted(club, "1", "10"), key="k1", member=named(club, "Bea"))
    actions.receive_box(parties["next"], counted(club), key="k2", member=named(club, "Bea"))
    assert send_due_reminders() == 0 and mail.outbox == []


# --- The pages -------------------------------------------------------------------------------------------


def box_url(club: Club) -> str:
    return reverse("clubs:box", args=[club.slug])


def received_url(member: Member, party: Party) -> str:
    return reverse("clubs:my_box_received", args=[member_token(member.code), party.pk])


def received_body(club: Club, *counts: str, key: str = "0123456789abcdef") -> dict[str, object]:
    pairs = counted(club, *counts)
    return {"item": [item for item, _ in pairs], "count": [count for _, count in pairs], "key": key}


def test_a_club_opening_its_box_page_is_offered_the_usual_kit(host_client, club):
    page = text(host_client.get(box_url(club)))
    assert "The usual Bunco box" in page
    for name, count in custody.DEFAULT_KIT:
        assert f'value="{name}"' in page and f'value="{count}"' in page
    assert not BoxItem.objects.exists()  # offered, not saved


def test_a_spanish_club_is_offered_the_usual_kit_in_spanish(host_client, club):
    club.language = "es"
    club.save()
    page = text(host_client.get(box_url(club)))
    assert 'value="Campana"' in page and 'value="Dados"' in page


def test_the_host_saves_the_checklist_from_the_box_page(host_client, club):
    response = host_client.post(reverse("clubs:box_kit", args=[club.slug]),
                                {"name": ["Bell", "Dice", ""], "count": ["1", "12", ""]}, follow=True)
    assert "The box's checklist is saved: Bell × 1, Dice × 12." in text(response)
    assert kit_of(club) == [("Bell", 1), ("Dice", 12)]
    assert "The usual Bunco box" not in text(host_client.get(box_url(club)))


@pytest.mark.parametrize("typed", ["-1", "²", "9" * 20])
def test_a_bad_count_posted_is_refused_with_a_message_and_nothing_saved(host_client, club, typed):
    actions.set_box_kit(club, KIT)
    response = host_client.post(reverse("clubs:box_kit", args=[club.slug]),
                                {"name": ["Bell", "Dice"], "count": ["1", typed]}, follow=True)
    assert BAD_COUNTS[typed] in text(response)
    assert kit_of(club) == [("Bell", 1), ("Dice", 12), ("Score cards", 12)]


def test_members_read_the_box_page_and_outsiders_find_no_club(club, member_client, stranger_client,
                                                               other_host_client):
    actions.set_box_kit(club, KIT)
    page = text(member_client.get(box_url(club)))
    assert "Dice × 12" in page and 'name="count"' not in page
    assert member_client.post(reverse("clubs:box_kit", args=[club.slug]),
                              {"name": ["Bell"], "count": ["2"]}).status_code == 403
    for outsider in (stranger_client, other_host_client, Client()):
        assert outsider.get(box_url(club)).status_code == 404
    assert kit_of(club) == [("Bell", 1), ("Dice", 12), ("Score cards", 12)]


def test_the_host_taps_received_on_their_link_and_the_pages_flag_what_is_missing(club, parties, host_client):
    actions.set_box_kit(club, KIT)
    bea = named(club, "Bea")
    phone = member_phone(bea)
    my_page = text(phone.get(bea.my_club_path))
    assert "You host the next party" in my_page and "Ada brings it to Bea for this party." in my_page
    response = phone.post(received_url(bea, parties["next"]), received_body(club, "1", "10"), follow=True)
    assert "Received: the box is yours. Missing: Dice (10 of 12)." in text(response)
    assert response.redirect_chain[-1][0] == bea.my_club_path
    party_page = text(host_client.get(reverse("clubs:party", args=[club.slug, parties["next"].pk])))
    assert "Bea has it now" in party_page and "It is with this party's host: ready." in party_page
    assert "Missing at its last count:" in party_page and "Dice (10 of 12)" in party_page
    assert "Dice (10 of 12)" in text(phone.get(bea.my_club_path))
    assert "Dice (10 of 12)" in text(host_client.get(reverse("clubs:club", args=[club.slug])))
    log = text(host_client.get(box_url(club)))
    assert "Bea" in log and "Dice (10 of 12)" in log


def test_the_party_page_says_who_brings_the_box_to_whom(club, parties):
    actions.set_box_kit(club, KIT)
    page = text(member_phone(named(club, "Cal")).get(reverse("clubs:party", args=[club.slug, parties["next"].pk])))
    assert "Nobody has said they received it yet." in page and "Ada brings it to Bea for this party." in page
    assert 'name="count"' not in page  # Bea's party page has the form, not another member's


def test_a_club_host_records_it_from_the_party_page(club, parties, host_client):
    actions.set_box_kit(club, KIT)
    url = reverse("clubs:party_box_received", args=[club.slug, parties["next"].pk])
    response = host_client.post(url, received_body(club), follow=True)
    assert "everything is there" in text(response)
    handover = BoxHandOver.objects.get()
    assert (handover.received_by, handover.by_host) == (named(club, "Bea"), True)


def test_a_phone_resending_received_records_it_once_and_other_counts_under_its_key_are_refused(club, parties):
    actions.set_box_kit(club, KIT)
    bea = named(club, "Bea")
    phone = member_phone(bea)
    assert phone.post(received_url(bea, parties["next"]), received_body(club, "1", "10")).status_code == 302
    assert phone.post(received_url(bea, parties["next"]), received_body(club, "1", "10")).status_code == 302
    reused = phone.post(received_url(bea, parties["next"]), received_body(club, "1", "9"))
    assert reused.status_code == 409 and "was not taken" in text(reused)
    assert list(BoxHandOver.objects.values_list("counts", flat=True)) == [
        [{"name": "Bell", "kit": 1, "counted": 1}, {"name": "Dice", "kit": 12, "counted": 10},
         {"name": "Score cards", "kit": 12, "counted": 12}]]


@pytest.mark.parametrize("typed", list(BAD_COUNTS))
def test_a_bad_count_tapped_is_refused_with_a_message_and_nothing_recorded(club, parties, typed):
    actions.set_box_kit(club, KIT)
    bea = named(club, "Bea")
    response = member_phone(bea).post(received_url(bea, parties["next"]), received_body(club, "1", typed), follow=True)
    assert BAD_COUNTS[typed] in text(response)
    assert not BoxHandOver.objects.exists() and not mail.outbox


def test_a_forged_or_stale_personal_link_changes_nothing(club, parties):
    actions.set_box_kit(club, KIT)
    bea = named(club, "Bea")
    token = member_token(bea.code)
    forged = reverse("clubs:my_box_received", args=[token[:-3] + "abc", parties["next"].pk])
    assert Client().post(forged, received_body(club)).status_code == 404
    stale = received_url(bea, parties["next"])
    actions.reset_member_link(bea)
    assert Client().post(stale, received_body(club)).status_code == 404
    assert not BoxHandOver.objects.exists()


def test_another_member_link_cannot_receive_the_hosts_box(club, parties):
    actions.set_box_kit(club, KIT)
    cal = named(club, "Cal")
    response = member_phone(cal).post(received_url(cal, parties["next"]), received_body(club), follow=True)
    assert "Only this party's host receives the box for it." in text(response)
    assert not BoxHandOver.objects.exists()


def test_a_member_of_another_club_cannot_receive_for_this_one(club, parties, other_host_client):
    actions.set_box_kit(club, KIT)
    zed = Member.objects.get(name="Zed")
    response = member_phone(zed).post(received_url(zed, parties["next"]), received_body(club))
    assert response.status_code == 404
    assert not BoxHandOver.objects.exists()


def test_only_the_clubs_hosts_record_it_from_the_party_page(club, parties, member_client, stranger_client):
    actions.set_box_kit(club, KIT)
    url = reverse("clubs:party_box_received", args=[club.slug, parties["next"].pk])
    assert member_client.post(url, received_body(club)).status_code == 403
    assert stranger_client.post(url, received_body(club)).status_code == 404
    assert not BoxHandOver.objects.exists()


# --- The club's export ----------------------------------------------------------------------------------


def test_the_box_and_its_log_leave_with_the_club_and_come_back(club, parties, host, tmp_path):
    actions.set_box_kit(club, KIT)
    first = actions.receive_box(parties["next"], counted(club, "1", "10"), key="k1", member=named(club, "Bea"))
    actions.receive_box(parties["next"], counted(club), key="k2")
    text_ = exported(club)
    assert json.loads(text_)["version"] == 3
    Club.objects.filter(pk=club.pk).delete()
    copy = Club.objects.get(pk=imported(tmp_path, text_)["club"])
    assert kit_of(copy) == [("Bell", 1), ("Dice", 12), ("Score cards", 12)]
    log = list(copy.box_handovers.order_by("pk").values_list("received_by__name", "party__starts_at", "counts",
                                                              "by_host", "received_at", "key"))
    assert log[0] == ("Bea", parties["next"].starts_at, first.counts, False, first.received_at, "")
    assert [row[3] for row in log] == [False, True]
    assert box_at(copy.parties.get(starts_at=parties["next"].starts_at)).holder == copy.members.get(name="Bea")


def test_a_file_of_version_2_comes_in_with_no_box(club, tmp_path):
    actions.set_box_kit(club, KIT)
    document = json.loads(resealed(exported(club), lambda p: [p.pop("box_items"), p.pop("box_handovers")]))
    document["version"] = 2
    club.slug = "moved-away"
    club.save()
    copy = Club.objects.get(pk=imported(tmp_path, json.dumps(document))["club"])
    assert not copy.box_items.exists() and not copy.box_handovers.exists()


def test_a_file_whose_count_is_not_one_is_refused(club, parties, tmp_path):
    actions.set_box_kit(club, KIT)
    actions.receive_box(parties["next"], counted(club), key="k1", member=named(club, "Bea"))
    file = resealed(exported(club), lambda p: p["box_handovers"][0].update(counts=[{"name": "Dice", "kit": -2}]))
    assert "Box hand-overs #1" in refused(tmp_path, file)
    file = resealed(exported(club), lambda p: p["box_items"][0].update(count=0))
    assert "Box items #1" in refused(tmp_path, file)

