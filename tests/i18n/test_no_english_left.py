"""No English is left unmarked (issue 44): every page of the site, as every kind of visitor sees
it, read in a pseudo-language whose every translated letter is an accented look-alike
(tests/i18n/pseudo.py). An English word left on a page was never marked for translation, unless it
is somebody's content: a name, a place, a note, a code, which every string the database holds
names (the security walk's world, tests/security/walked.py, with its typed markup in every name).

What a person reads is checked: the text of a page (not its scripts or styles), the attributes a
screen reader or a pointer shows (title, aria-label, placeholder, alt, a button's value), a refusal
in plain text, a calendar's entries, the manifest's names, a CSV's headers, and every event the
streams send. The words left alone on purpose are ALWAYS_AS_THEY_ARE: the game names and "Bunco!",
which stay in every language, and the language switch's "English" and "Español", each in its own.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import re
import zoneinfo
from collections.abc import Iterator
from html.parser import HTMLParser

import pytest
import time_machine
from django.apps import apps
from django.conf import settings
from django.core import mail
from django.db import models
from django.test import override_settings
from django.utils import translation

from bunco_club.mail import (
    send_box_missing,
    send_dish_offer,
    send_due_reminders,
    send_party_cancelled,
    send_party_changed,
    send_sub_invitation,
    send_swap_request,
)
from bunco_club.models import Club, Member, Party
from games.rules.fill_or_bust import Card
from live.models import Event
from live.rendering import encode_event
from tests.i18n.pseudo import CODE, write_pseudo_locale
from tests.security import walked
from tests.security.walked import World, world_fixture  # noqa: F401 (the fixture)
from tests.security.walked_table import who_knocks

pytestmark = pytest.mark.django_db

# Kept in every language, by the issue's decision: the games' names and the cry, the site's name,
# and each language's name in itself on the switch.
ENGLISH_WORD = re.compile(r"\b[A-Za-z]{2,}\b")
ALWAYS_AS_THEY_ARE = ("Ninety-Nine or Bust", "Fill or Bust", "Bunco Club", "Bunco!", "BUNCO!", "Bunco", "BUNCO",
                      "Kismet", "English",  # a language's name in itself, as the choices of a language say it
                      "SHA-256", *(card.label for card in Card))  # a hash's name; the cards' names as printed
ADDRESS = re.compile(r"\b(?:https?|webcal)://\S+")
# Answers read by machines, not people: a load balancer's liveness probe.
FOR_MACHINES = {"alive GET", "health GET"}
# A code that is not a word: a signed token or a random code, with capitals after small letters
# ("eyJjIjoi...", "frsHFHBb").
CODE_LIKE = re.compile(r"[a-z][A-Z]")
TIME_ZONE_WORDS = {word for zone in zoneinfo.available_timezones() for word in ENGLISH_WORD.findall(zone.replace("_", " "))}
# Attributes whose words a person reads or hears.
SAID_IN_ATTRIBUTES = ("title", "aria-label", "aria-description", "aria-roledescription", "aria-valuetext",
                      "placeholder", "alt", "label")
PROJECT_APPS = ("bunco_club", "games", "tournaments", "live")


@pytest.fixture(scope="module", autouse=True)
def pseudo_language(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    root = write_pseudo_locale(tmp_path_factory.mktemp("locale"))
    with override_settings(LOCALE_PATHS=[root, *settings.LOCALE_PATHS],
                           LANGUAGES=[*settings.LANGUAGES, (CODE, "Ƥšéùđò")]):
        yield


class _Visible(HTMLParser):
    """The words of an HTML page or fragment a person reads or hears."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.words: list[str] = []
        self._hidden: list[str] = []  # the open elements whose words are not the page's language's

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        # A script or a style is no text; an element in another language on purpose (the language
        # switch's "Español", a member's offer to read the other language) is that language's.
        if tag in ("script", "style") or values.get("lang") not in (None, CODE):
            self._hidden.append(tag)
            return
        if self._hidden:
            return
        self.words += [value for name, value in attrs if name in SAID_IN_ATTRIBUTES and value]
        if tag == "input" and values.get("type") in ("submit", "button", "reset") and values.get("value"):
            self.words.append(values["value"] or "")
        if tag == "meta" and values.get("name") == "description":
            self.words.append(values.get("content") or "")

    def handle_endtag(self, tag: str) -> None:
        if self._hidden and self._hidden[-1] == tag:
            self._hidden.pop()

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.words.append(data)


def html_words(html: str) -> str:
    parser = _Visible()
    parser.feed(html)
    parser.close()
    return " ".join(parser.words)


def calendar_words(body: str) -> str:
    said = ("SUMMARY", "DESCRIPTION", "LOCATION", "X-WR-CALNAME", "X-WR-CALDESC")
    return " ".join(line.split(":", 1)[1] for line in body.replace("\r\n ", "").splitlines()
                    if line.split(";", 1)[0].split(":", 1)[0] in said and ":" in line)


def words_read(response: walked.Answer) -> str:
    """What a person reads of an answer, by its type."""
    content_type = response.get("Content-Type", "")
    if getattr(response, "streaming", False):
        return ""  # the streams' events are read below, from the log
    body = response.content.decode(errors="replace")
    if content_type.startswith("text/html"):
        return html_words(body)
    if content_type.startswith("text/plain"):
        return body
    if content_type.startswith("text/calendar"):
        return calendar_words(body)
    if content_type.startswith("text/csv"):
        return " ".join(next(csv.reader(io.StringIO(body)), []))
    if "manifest" in content_type:
        manifest = json.loads(body)
        return " ".join(str(manifest.get(key, "")) for key in ("name", "short_name", "description"))
    return ""  # JSON a script reads, the scripts themselves


def content_words() -> set[str]:
    """Every word any string of the database holds: names, places, notes, codes, addresses."""
    found: set[str] = set()
    for model in apps.get_models():
        if model._meta.app_label.split(".")[0] not in PROJECT_APPS and model._meta.label != "auth.User":
            continue
        texts = [field.name for field in model._meta.concrete_fields
                 if isinstance(field, (models.CharField, models.TextField))]
        for row in model._default_manager.values_list(*texts) if texts else []:
            for text in row:
                found.update(ENGLISH_WORD.findall(str(text or "")))
    return found


def english_left(text: str, content: set[str]) -> list[str]:
    text = ADDRESS.sub(" ", text)  # a link shown as text (a calendar's address) is no word
    for kept in ALWAYS_AS_THEY_ARE:
        text = text.replace(kept, " ")
    return sorted({word for word in ENGLISH_WORD.findall(text)
                   if word not in content and word not in TIME_ZONE_WORDS and not CODE_LIKE.search(word)})


def everyone_reads_the_pseudo_language(world: World) -> None:
    """Every visitor's phone asks for it, and every member and club has it as their language (a
    member's page, mails and feed follow the member's language; a club's feed, the club's)."""
    for client in world.visitors.values():
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = CODE
    Member.objects.update(language=CODE)
    Club.objects.update(language=CODE)


def test_every_page_every_visitor_sees_is_translated(world: World) -> None:
    content = content_words()
    everyone_reads_the_pseudo_language(world)
    left: dict[str, list[str]] = {}
    for row, (url, method, _entry) in world.rows.items():
        if method != "GET" or row.split("[")[0].split()[0] + " GET" in FOR_MACHINES:
            continue
        for visitor in who_knocks(row, walked.VISITORS):
            with walked.rolled_back():
                response = walked.knock(world.visitors[visitor], "GET", url)
            english = english_left(words_read(response), content)
            if english:
                left[f"{row} as {visitor} ({response.status_code})"] = english
    assert not left, "\n".join(f"{page}: {' '.join(words)}" for page, words in left.items())


def test_every_event_the_streams_send_is_translated(world: World) -> None:
    content = content_words()
    left: dict[str, list[str]] = {}
    with translation.override(CODE):
        for event in Event.objects.order_by("id"):
            for frame in encode_event(event.as_message()).decode().split("\n\n"):
                data = "\n".join(line[6:] for line in frame.splitlines() if line.startswith("data: "))
                named = any(line.startswith("event: ") for line in frame.splitlines())
                english = [] if named else english_left(html_words(data), content)
                if english:
                    left.setdefault(f"{event.channel.split(':')[0]} {event.kind}", english)
    assert not left, "\n".join(f"{kind}: {' '.join(words)}" for kind, words in left.items())


def test_the_pseudo_language_replaces_every_letter_it_translates() -> None:
    """The check's own premise: a translated sentence keeps no English word, only its values."""
    from tests.i18n.pseudo import pseudo

    said = pseudo("Table %(number)s rang the <strong>bell</strong> &amp; %(who)s won") % {"number": 3, "who": "Ada"}
    assert english_left(html_words(said), set()) == ["Ada"]
    assert english_left(html_words(said), {"Ada"}) == []


def test_every_mail_a_member_or_host_gets_is_translated(world: World) -> None:
    """Each kind of club mail, written for a recipient whose language is the pseudo-language: the
    reminder and the host's, the change of time or place, the sub offer, the swap request, a dish
    offered, the reminder before the cutoff where members count as coming by default, what the
    Bunco box's count found missing, the cancellation (bunco_club/mail.py: each in its recipient's
    language). The mails are written by
    their own functions, as the tasks call them, so on every layout (Celery eager or not)."""
    content = content_words()
    everyone_reads_the_pseudo_language(world)
    party, swap = world.party, world.swap
    mail.outbox = []
    with walked.rolled_back():
        send_party_changed(party.pk, was_starts_at="2026-12-01T19:00:00+00:00", was_location=world.club.place + " 2")
        send_sub_invitation(world.invitation.pk)
        send_swap_request(swap.pk)
        send_box_missing(world.handover.pk)
        with time_machine.travel(swap.give.starts_at - datetime.timedelta(days=2), tick=False):
            send_due_reminders()
        send_dish_offer(world.dish_offer.pk)
        # Where members count as coming by default, their reminder says so, with the cutoff (issue 45).
        Club.objects.filter(pk=world.club.pk).update(attending_by_default=True)
        with time_machine.travel(swap.take.starts_at - datetime.timedelta(days=3), tick=False):
            send_due_reminders()
        Party.objects.filter(pk=party.pk).update(cancelled_at=party.starts_at)
        send_party_cancelled(party.pk)
    kinds = {message.subject: english_left(f"{message.subject}\n{message.body}", content) for message in mail.outbox}
    assert len(kinds) >= 6, list(kinds)
    assert {subject: words for subject, words in kinds.items() if words} == {}
