"""A member reads their page, mails and calendar in their own language (issue 44): stored on the
member, guessed from their phone the first time their link opens, changed on their page; a club's
language stands in until they choose. Every mail is written for its one recipient, in theirs."""

from __future__ import annotations

import datetime

import pytest
import time_machine
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import formats, translation
from icalendar import Calendar

from bunco_club import actions
from bunco_club.links import member_token, my_club_path
from bunco_club.mail import send_due_reminders
from bunco_club.models import Club, Member
from tests.builders import soon, text

pytestmark = pytest.mark.django_db


@pytest.fixture
def bea(club) -> Member:
    """Bea reads Spanish; Cal (English) and everyone else (no choice: the club's, English) do not."""
    member = club.members.get(name="Bea")
    actions.set_member_language(member, "es")
    actions.set_member_language(club.members.get(name="Cal"), "en")
    return member


@pytest.fixture
def upcoming(club, bea):
    """A party ten days from now at Dot's, hosted by Ada, that Bea and Cal said yes to."""
    party = actions.add_party(club, starts_at=soon(10), location="Dot's, 4 Elm Road")
    actions.edit_party(party, starts_at=party.starts_at, location=party.location, host=club.members.get(name="Ada"))
    party.refresh_from_db()
    for name in ("Bea", "Cal"):
        actions.answer_rsvp(party, club.members.get(name=name), "yes")
    return party


def to(name: str) -> list[mail.EmailMessage]:
    return [message for message in mail.outbox if message.to == [f"{name.lower()}@example.com"]]


def spanish_when(moment: datetime.datetime) -> str:
    """A party's start as a Spanish mail writes it: "jueves 17 de diciembre, 19:00"."""
    with translation.override("es"):
        return formats.date_format(moment, "l j \\d\\e F, H:i")


def page(member: Member, accept_language: str) -> str:
    """The member's page, opened on a phone that asks for `accept_language`."""
    return text(Client().get(my_club_path(member.code), HTTP_ACCEPT_LANGUAGE=accept_language))


# --- The member's page ----------------------------------------------------------------------------


def test_a_spanish_members_page_is_in_spanish_whatever_the_phone_says(upcoming, bea, club):
    shown = page(bea, "en")
    assert "Próxima fiesta" in shown and "Una nota para el anfitrión (opcional)" in shown
    assert "Next party" not in shown and "Are you coming" not in shown
    english = page(club.members.get(name="Cal"), "es")
    assert "Next party" in english and "Próxima fiesta" not in english


def test_the_first_visit_stores_the_phones_language_and_offers_the_other(club):
    dot = club.members.get(name="Dot")
    first = page(dot, "es-419,es;q=0.9,en;q=0.5")
    dot.refresh_from_db()
    assert dot.language == "es"
    assert "como pidió tu teléfono" in first and "I'd rather read English" in first
    again = page(dot, "en")  # asked once: the member's language stays
    dot.refresh_from_db()
    assert dot.language == "es" and "como pidió tu teléfono" not in again
    assert "Todavía no hay fiestas planeadas." in again


def test_a_phone_that_asks_for_no_language_of_ours_leaves_the_clubs(club):
    club.language = "es"
    club.save()
    eve = club.members.get(name="Eve")
    shown = page(eve, "fr-FR")
    eve.refresh_from_db()
    assert eve.language == "" and eve.reads == "es"
    assert "Todavía no hay fiestas planeadas." in shown


def test_the_switch_on_the_page_changes_the_members_language(upcoming, bea, django_capture_on_commit_callbacks):
    phone = Client()
    token = member_token(bea.code)
    response = phone.post(reverse("clubs:my_language", args=[token]), {"language": "en"})
    assert response.status_code == 302 and response["Location"] == reverse("clubs:my_club", args=[token])
    assert phone.cookies["django_language"].value == "en"  # the phone's other pages follow
    bea.refresh_from_db()
    assert bea.language == "en"
    shown = text(phone.get(reverse("clubs:my_club", args=[token])))
    assert "Next party" in shown and "Español" in shown
    with django_capture_on_commit_callbacks(execute=True):  # her mails follow too
        actions.edit_party(upcoming, starts_at=upcoming.starts_at + datetime.timedelta(hours=1),
                           location=upcoming.location, host=upcoming.host)
    assert "has changed" in to("Bea")[-1].body


def test_a_language_the_site_does_not_speak_is_refused(bea):
    phone = Client()
    response = phone.post(reverse("clubs:my_language", args=[member_token(bea.code)]), {"language": "fr"}, follow=True)
    assert "Elige inglés o español." in text(response)
    bea.refresh_from_db()
    assert bea.language == "es"


# --- Mails: each in its recipient's language ------------------------------------------------------


def test_the_reminder_goes_to_each_member_in_their_language(club, bea):
    party = actions.add_party(club, starts_at=soon(10), location="Dot's, 4 Elm Road")
    with time_machine.travel(party.starts_at - datetime.timedelta(days=2), tick=False):
        send_due_reminders()
    spanish, english = to("Bea")[0], to("Cal")[0]
    assert spanish.subject == f"Maple Street Bunco el {spanish_when(party.local_start)}: ¿vienes?"
    assert "Hola, Bea:" in spanish.body and "Responde sí, no o quizás aquí" in spanish.body
    assert "Answer yes" not in spanish.body
    assert english.subject.endswith(": are you coming?") and "Answer yes, no or maybe here" in english.body


def test_a_change_of_time_or_place_is_told_in_each_language(upcoming, django_capture_on_commit_callbacks):
    was = upcoming.local_start
    with django_capture_on_commit_callbacks(execute=True):
        moved = actions.edit_party(upcoming, starts_at=upcoming.starts_at + datetime.timedelta(hours=1),
                                   location="9 Oak Lane", host=upcoming.host)
    spanish, english = to("Bea")[-1], to("Cal")[-1]
    assert f"Cuándo: {spanish_when(moved.local_start)} (antes: {spanish_when(was)})" in spanish.body
    assert "Dónde: 9 Oak Lane (antes: Dot's, 4 Elm Road)" in spanish.body and "Dijiste que sí" in spanish.body
    assert spanish.subject == f"Maple Street Bunco: ahora el {spanish_when(moved.local_start)}"
    assert "has changed" in english.body and "Where: 9 Oak Lane (was Dot's, 4 Elm Road)" in english.body
    assert "cambió" not in english.body


def test_a_club_wide_notice_sends_each_recipient_their_own_language(upcoming, club,
                                                                    django_capture_on_commit_callbacks):
    club.language = "es"
    club.save()  # the members who never chose read the club's
    with django_capture_on_commit_callbacks(execute=True):
        actions.cancel_party(upcoming)
    assert "está cancelada" in to("Bea")[0].subject and "está cancelada" in to("Eve")[0].subject
    assert to("Cal")[0].subject.endswith("is cancelled") and "Hi Cal," in to("Cal")[0].body


def test_the_sub_offer_is_in_the_alternates_language(upcoming, club, django_capture_on_commit_callbacks):
    actions.set_member_language(club.members.get(name="Sam"), "es")
    with django_capture_on_commit_callbacks(execute=True):
        actions.answer_rsvp(upcoming, club.members.get(name="Cal"), "no")  # gives up her seat to the sub list
    offer = to("Sam")[-1]
    assert offer.subject == f"Maple Street Bunco: ¿un asiento para ti el {spanish_when(upcoming.local_start)}?"
    assert "Se liberó un asiento" in offer.body and "Dot's, 4 Elm Road" in offer.body
    assert "A seat has opened" not in offer.body


def test_the_host_reminder_is_in_the_hosts_language(upcoming, club):
    actions.set_member_language(club.members.get(name="Ada"), "es")
    with time_machine.travel(upcoming.starts_at - datetime.timedelta(days=2), tick=False):
        send_due_reminders()
    reminder = next(message for message in to("Ada") if message.subject.startswith("Recibes a"))
    assert "Qué preparar:" in reminder.body and "What to get ready" not in reminder.body


# --- The calendar ---------------------------------------------------------------------------------


def summaries(body: bytes) -> list[str]:
    return [str(event["SUMMARY"]) for event in Calendar.from_ical(body).walk("VEVENT")]


def test_each_members_feed_is_in_their_language_with_one_plain_summary_an_event(upcoming, club, bea, client):
    hosting = actions.add_party(club, starts_at=soon(40))
    actions.edit_party(hosting, starts_at=hosting.starts_at, location="", host=bea)
    body = client.get(reverse("clubs:member_feed", args=[member_token(bea.code)])).content
    assert sorted(summaries(body)) == ["Maple Street Bunco en casa de Ada", "Maple Street Bunco: recibes tú el Bunco"]
    assert str(Calendar.from_ical(body)["X-WR-CALNAME"]) == "Maple Street Bunco: el Bunco de Bea"
    assert body.count(b"\r\nSUMMARY") == body.count(b"BEGIN:VEVENT") == 2
    assert b"LANGUAGE=" not in body
    cal = client.get(reverse("clubs:member_feed", args=[member_token(club.members.get(name="Cal").code)])).content
    assert summaries(cal) == ["Maple Street Bunco at Ada's"]


def test_the_clubs_feed_is_in_the_clubs_language(upcoming, club, client):
    club.language = "es"
    club.save()
    actions.cancel_party(upcoming)
    body = client.get(reverse("clubs:club_feed", args=[club.feed_code])).content
    assert summaries(body) == ["Cancelada: Maple Street Bunco en casa de Ada"]


# --- The club's language, set by its host ---------------------------------------------------------


def test_the_host_sets_the_clubs_language_on_its_form(host_client, club):
    form = text(host_client.get(reverse("clubs:club_edit", args=[club.slug]), HTTP_ACCEPT_LANGUAGE="es"))
    assert "Idioma del club" in form and "Reglas de la casa para las noches del club" in form
    assert "House rules" not in form
    response = host_client.post(reverse("clubs:club_edit", args=[club.slug]), {
        "name": club.name, "usual_time": "19:00", "buy_in": "5", "rsvp_nudge_days": "3", "tie_break": "roll_off",
        "language": "es"})
    assert response.status_code == 302
    assert Club.objects.get(pk=club.pk).language == "es"


def test_a_club_keeps_its_language_when_a_form_sends_none_and_refuses_one_it_does_not_speak(club):
    club = actions.update_club(club, language="es")
    actions.update_club(club, name="Maple Street Bunco")
    assert Club.objects.get(pk=club.pk).language == "es"
    with pytest.raises(actions.ClubError):
        actions.update_club(club, language="fr")


def test_a_new_club_starts_in_its_hosts_language(host_client):
    form = text(host_client.get(reverse("clubs:club_new"), HTTP_ACCEPT_LANGUAGE="es"))
    assert '<option value="es" selected>' in form and "Crear un club" in form


# --- The host's pages and the refused link, in Spanish --------------------------------------------


def test_a_members_page_for_the_host_and_a_refused_link_read_in_spanish(host_client, club, bea):
    shown = text(host_client.get(reverse("clubs:member_edit", args=[club.slug, bea.pk]), HTTP_ACCEPT_LANGUAGE="es"))
    assert "Enlace personal" in shown and "están en español" in shown and "Personal link" not in shown
    refused = Client().get(reverse("clubs:my_club", args=["not-a-link"]), HTTP_ACCEPT_LANGUAGE="es")
    assert refused.status_code == 404
    assert "Este enlace no funciona" in text(refused) and "Este enlace no es válido" in text(refused)


def test_a_spanish_mail_writes_the_weekday_in_small_letters_as_spanish_does(club, bea):
    """The club's form says its weekdays capitalised, as a list's first word; a date in a sentence
    says them in small letters ("el jueves 17 de diciembre"), as Django's own Spanish does."""
    party = actions.add_party(club, starts_at=soon(10), location="Dot's, 4 Elm Road")
    with time_machine.travel(party.starts_at - datetime.timedelta(days=2), tick=False):
        send_due_reminders()
    weekdays = ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo")
    said = to("Bea")[0].subject
    assert any(f" el {day} " in said for day in weekdays), said
