"""A club's history, portable (issue 48): a club exported (`manage.py export_club`, or the host's
download from the club page) and imported into an empty installation (`manage.py import_club`)
shows the same figures on every one of its pages; an altered or malformed file is refused whole."""

from __future__ import annotations

import io
import json
import random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from bunco_club import actions
from bunco_club.export import VERSION
from bunco_club.links import my_club_path
from bunco_club.models import Club, Member, NightRecord, Party, SubInvitation, SwapRequest
from tests.builders import REGULARS, element_text, exported, imported, logged_in, refused, resealed, soon

pytestmark = pytest.mark.django_db


def sheets(rng: random.Random, names: list[str]) -> list[dict]:
    return [{"name": name, "wins": (wins := rng.randint(0, 24)), "losses": 24 - wins, "buncos": rng.randint(0, 3),
             "prize_cents": rng.choice([0, 500, 1000]), "prizes": ["most_buncos"] if name == names[0] else []}
            for name in names]


def two_seasons(club: Club) -> None:
    """Last year (two nights played, one not counting) and this year (a night played with a guest,
    a party to come with answers, a sub invited, a paid buy-in, a swap of dates asked), a pair of
    co-hosts and days away."""
    rng = random.Random(48)
    last = actions.create_season(club, name="Last year", starts=[soon(-400), soon(-370), soon(-340)])
    this = actions.create_season(club, name="This year", starts=[soon(-40), soon(-10), soon(20)])
    first, second, _ = last.parties.order_by("starts_at")
    actions.record_night_results(first, sheets(rng, REGULARS))
    actions.record_night_results(second, sheets(rng, REGULARS[:8]))
    actions.set_night_counts(second, counts=False)
    played, _, coming = this.parties.order_by("starts_at")
    actions.record_night_results(played, sheets(rng, [*REGULARS[:11], "Guest Gwen"]))
    actions.pair_cohosts(club.members.get(name="Ada"), club.members.get(name="Bea"))
    actions.set_blackouts(club.members.get(name="Cal"), [coming.day])
    coming.host = club.members.get(name="Dot")
    coming.save()
    for name, answer in zip(REGULARS, ["yes", "yes", "no", "maybe"] * 3, strict=True):
        actions.answer_rsvp(coming, club.members.get(name=name), answer, note=f"{name} brings {answer}")
    actions.record_buy_in(coming, club.members.get(name="Ada"), "cash")
    later = actions.add_party(club, starts_at=soon(50), season=this, host=club.members.get(name="Eve"))
    actions.request_swap(club.members.get(name="Eve"), give=later, take=coming)


def shown(client: Client, path: str, *hidden: str) -> str:
    """The words and figures of a page's main region (its links' ids are in attributes, not in the
    text), the club's unguessable codes blanked."""
    response = client.get(path)
    assert response.status_code == 200, path
    text = element_text(response.content.decode(), id="main")
    for code in hidden:
        text = text.replace(code, "…")
    return text


def every_page(club: Club, host: Client) -> dict[str, str]:
    """Every page of the club as its host and a member (by their personal link) see it, by what
    it is (a season by name, a party by its start), never by id."""
    pages = {"club": shown(host, reverse("clubs:club", args=[club.slug]), club.feed_code)}
    for season in club.seasons.all():
        pages[f"season {season.name}"] = shown(host, reverse("clubs:season", args=[club.slug, season.pk]))
        pages[f"standings {season.name}"] = shown(host, reverse("clubs:standings", args=[club.slug, season.pk]))
    for party in club.parties.all():
        pages[f"party {party.starts_at}"] = shown(host, reverse("clubs:party", args=[club.slug, party.pk]))
    coming = club.parties.latest("starts_at")
    for member in club.members.filter(name__in=["Ada", "Cal", "Dot", "Eve"]):
        phone = Client()
        pages[f"{member.name}'s page"] = shown(phone, my_club_path(member.code), club.feed_code)
        pages[f"party as {member.name}"] = shown(phone, reverse("clubs:party", args=[club.slug, coming.pk]))
    return pages


def test_a_club_exported_and_imported_elsewhere_shows_the_same_figures_on_every_page(host, club, tmp_path):
    two_seasons(club)
    before, old_codes = every_page(club, logged_in(host)), set(club.members.values_list("code", flat=True))
    text = exported(club)
    Club.objects.filter(pk=club.pk).delete()  # the installation it goes to has never seen it
    made = imported(tmp_path, text)
    copy = Club.objects.get(pk=made["club"])
    assert made == {"club": copy.pk, "slug": "maple-street-bunco", "members": 15, "nights": 3}
    copy.hosts.add(host)  # accounts belong to an installation: its admin names the hosts
    after = every_page(copy, logged_in(host))
    assert after.keys() == before.keys()
    for page, words in before.items():
        assert after[page] == words, page
    assert old_codes.isdisjoint(copy.members.values_list("code", flat=True))  # new personal links


def test_the_figures_the_standings_are_made_of_come_back_the_same(host, club, tmp_path):
    two_seasons(club)
    figures = ("name", "wins", "losses", "buncos", "prize_cents", "prizes", "party__starts_at", "party__counts")
    sheets_before = sorted(NightRecord.objects.filter(party__club=club).values_list(*figures))
    text = exported(club)
    Club.objects.filter(pk=club.pk).delete()
    copy = Club.objects.get(pk=imported(tmp_path, text)["club"])
    assert sorted(NightRecord.objects.filter(party__club=copy).values_list(*figures)) == sheets_before
    guest = NightRecord.objects.get(party__club=copy, name="Guest Gwen")
    assert guest.member is None
    assert NightRecord.objects.get(party__club=copy, name="Ada", party__counts=True,
                                   party__season__name="This year").member == copy.members.get(name="Ada")
    assert copy.members.get(name="Ada").cohost == copy.members.get(name="Bea")


def test_the_swap_asked_and_the_subs_invited_come_with_their_parties(host, club, tmp_path):
    two_seasons(club)
    text = exported(club)
    Club.objects.filter(pk=club.pk).delete()
    copy = Club.objects.get(pk=imported(tmp_path, text)["club"])
    [swap] = SwapRequest.objects.filter(asked__club=copy)
    assert (swap.requested_by.name, swap.asked.name, swap.give.host, swap.take.host, swap.status) == (
        "Eve", "Dot", swap.requested_by, swap.asked, "pending")
    invited = SubInvitation.objects.filter(party__club=copy).order_by("pk")
    assert [(invitation.member.name, invitation.status) for invitation in invited] == [
        ("Sam", "invited"), ("Tia", "invited"), ("Uma", "invited")]


def test_an_unknown_club_is_not_exported(db):
    with pytest.raises(CommandError, match="No club has the id or slug 'nowhere'") as refusal:
        call_command("export_club", "nowhere", stdout=io.StringIO())
    assert refusal.value.returncode == 2


def test_a_club_whose_slug_is_taken_comes_in_under_a_new_one(club, tmp_path):
    made = imported(tmp_path, exported(club))
    assert made["slug"] == "maple-street-bunco-2"
    assert Club.objects.get(pk=made["club"]).members.count() == club.members.count()


def tampered(text: str, change) -> str:
    """The file with its payload changed by `change` and its checksum kept."""
    document = json.loads(text)
    change(document["payload"])
    return json.dumps(document)


def one_more_win(payload: dict) -> None:
    payload["night_records"][0]["wins"] += 1


def nothing_stored() -> tuple[int, int, int]:
    return Club.objects.count(), Member.objects.count(), Party.objects.count()


@pytest.mark.parametrize(("file", "message"), [
    (lambda text: tampered(text, one_more_win), "altered since it was exported"),
    (lambda text: text[:-40], "not JSON"),
    (lambda text: text.replace(f'"version": {VERSION}', f'"version": {VERSION + 1}'), f"version {VERSION + 1}"),
    (lambda text: json.dumps({"format": "something else"}), "not a club export"),
    (lambda text: resealed(text, lambda p: p["rsvps"][0].update(member=999999)), "not in the file"),
    (lambda text: resealed(text, lambda p: p["night_records"][0].update(wins=-3)), "wins"),
    (lambda text: resealed(text, lambda p: p["rsvps"][0].update(answer="perhaps")), "answer"),
    (lambda text: resealed(text, lambda p: p["night_records"][0].update(buncos=2.5)), "buncos"),
    (lambda text: resealed(text, lambda p: p["parties"][0].update(starts_at="soon")), "starts_at"),
    (lambda text: resealed(text, lambda p: p["members"][1].update(name=p["members"][0]["name"])), "contradict"),
    (lambda text: resealed(text, lambda p: p["members"][0].update(id=[1])), "not a whole number"),
    (lambda text: resealed(text, lambda p: p["parties"][0].update(season={"id": 1})), "not an id of the file"),
], ids=["one tally changed", "cut short", "another version", "not an export", "dangling reference",
        "a negative figure", "an unknown answer", "a figure not whole", "a date that is not one", "two members of one name",
        "an id that is a list", "a season that is an object"])
def test_an_altered_or_malformed_file_is_refused_and_nothing_is_stored(club, tmp_path, file, message):
    two_seasons(club)
    text = exported(club)
    before = nothing_stored()
    said = refused(tmp_path, file(text))
    assert said.startswith("Nothing was imported.") and message in said
    assert nothing_stored() == before


def test_a_club_bigger_than_a_club_may_be_here_is_refused(club, tmp_path, settings):
    text = exported(club)
    settings.CLUB_MAX_MEMBERS = 14
    before = nothing_stored()
    assert "The file has 15 members; a club keeps 14 at most." in refused(tmp_path, text)
    assert nothing_stored() == before


def test_the_host_downloads_the_same_file_the_command_prints(host_client, club):
    two_seasons(club)
    page = host_client.get(reverse("clubs:club", args=[club.slug])).content.decode()
    link = reverse("clubs:club_export", args=[club.slug])
    assert link in page and "Download the club's history" in page
    response = host_client.get(link)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response["Content-Disposition"].startswith(f'attachment; filename="club-{club.slug}-')
    assert response.content.decode() == exported(club) == exported(club, by=str(club.pk))


def test_only_the_clubs_hosts_may_download_it(club, member_client, stranger_client, other_host_client):
    link = reverse("clubs:club_export", args=[club.slug])
    assert member_client.get(link).status_code == 403
    assert stranger_client.get(link).status_code == 404
    assert other_host_client.get(link).status_code == 404
    assert Client().get(link).status_code == 404
    assert link not in member_client.get(reverse("clubs:club", args=[club.slug])).content.decode()


def test_the_club_and_each_member_keep_their_language(club, tmp_path):
    club.language = "es"
    club.save()
    actions.set_member_language(club.members.get(name="Bea"), "en")
    text = exported(club)
    club.slug = "moved-away"
    club.save()
    copy = Club.objects.get(pk=imported(tmp_path, text)["club"])
    assert copy.language == "es"
    assert dict(copy.members.values_list("name", "language"))["Bea"] == "en"
    assert dict(copy.members.values_list("name", "language"))["Ada"] == ""  # not chosen yet: the club's


def test_a_file_of_version_1_comes_in_reading_english_with_its_members_yet_to_choose(club, tmp_path):
    def as_version_1(payload: dict) -> None:
        del payload["club"]["language"]
        for member in payload["members"]:
            del member["language"]

    document = json.loads(resealed(exported(club), as_version_1))
    document["version"] = 1
    club.slug = "moved-away"
    club.save()
    copy = Club.objects.get(pk=imported(tmp_path, json.dumps(document))["club"])
    assert copy.language == "en" and set(copy.members.values_list("language", flat=True)) == {""}
