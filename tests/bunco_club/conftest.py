"""Club personas: the host of a club with a full roster, one of its members on their phone (their
personal link), an outsider with an account, and the host of another club."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.test import Client

from bunco_club import actions
from bunco_club.models import Club, Member, Party
from tests.builders import fill_roster, logged_in, make_club, make_user, member_phone, soon


@pytest.fixture(autouse=True)
def club_mail_sent_in_the_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """The club's emails are Celery tasks: eager in the embedded default, queued on Redis when
    REDIS_URL is set. A test reading Django's test outbox needs them sent in its own process, so
    they run eagerly here in both runs, but in the tests marked `services`, which start a real
    worker to take them off Redis."""
    if request.node.get_closest_marker("services"):
        yield
        return
    from bunco_club.site.celery import app

    was = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = was


@pytest.fixture
def club(host) -> Club:
    """The host's Maple Street club with 12 regulars and 3 alternates (Sam, Tia, Uma in that order)."""
    club = Club.objects.get(hosts=host)
    fill_roster(club)
    return club


@pytest.fixture
def party(club) -> Party:
    """A party ten days from now, hosted by Ada, that every regular said yes to."""
    party = actions.add_party(club, starts_at=soon())
    party.host = club.members.get(name="Ada")
    party.save()
    for member in club.members.regulars():
        actions.answer_rsvp(party, member, "yes")
    return party


@pytest.fixture
def member(club) -> Member:
    return club.members.get(name="Bea")


@pytest.fixture
def member_client(member) -> Client:
    return member_phone(member)


@pytest.fixture
def stranger_client(outsider) -> Client:
    """Someone logged in with an account and no club."""
    return logged_in(outsider)


@pytest.fixture
def other_host_client(db) -> Client:
    """The host of another club (with a member of their own)."""
    user = make_user("other-host")
    other = make_club(name="Elm Road Bunco", hosts=[user])
    actions.add_member(other, name="Zed", email="zed@example.com")
    return logged_in(user)
