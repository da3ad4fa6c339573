"""Every app's errors are refusals: one base, one status each, a message for people."""

from __future__ import annotations

import pytest

from bunco_club import actions as club_actions
from bunco_club.actions import ClubError
from games.night import actions as night_actions
from games.night.actions import BadTally, NotYourTable
from games.table.actions import BadMove, NotYourSeat
from live.refusals import BadInput, KeyReused, NotYours, Refusal, TooMany
from tournaments import actions as tournament_actions
from tournaments.actions import BadEntry, NotYourGroup


@pytest.mark.parametrize("error", [BadTally, BadEntry, BadMove, ClubError, KeyReused, TooMany])
def test_every_apps_errors_derive_from_the_one_refusal(error: type[Exception]) -> None:
    assert issubclass(error, Refusal)


@pytest.mark.parametrize("bad_input", [BadTally, BadMove, BadEntry, ClubError])
def test_the_apps_bad_input_is_lives_one_bad_input_answered_400(bad_input: type[Refusal]) -> None:
    assert bad_input is BadInput
    assert bad_input("That tap was malformed: choose a button.").status == 400


@pytest.mark.parametrize("not_yours", [NotYourTable, NotYourSeat, NotYourGroup])
def test_the_apps_not_yours_is_lives_one_not_yours_answered_403(not_yours: type[Refusal]) -> None:
    assert not_yours is NotYours
    assert not_yours("You're not at that table this round.").status == 403


def test_too_many_is_a_429_that_says_when_to_come_back() -> None:
    refusal = TooMany("Wait a minute, then scan the code again.", retry_after=10)
    assert (refusal.status, refusal.message, refusal.retry_after) == (429, "Wait a minute, then scan the code again.", 10)
    assert TooMany("Wait a while.").retry_after is None


def test_an_answered_too_many_carries_its_retry_after_header(rf) -> None:
    from live.refusals import answers_refusals, json_refusal

    @answers_refusals(lambda request, refusal, **kwargs: json_refusal(refusal))
    def view(request):
        raise TooMany("Too many streams from this address.", retry_after=10)

    response = view(rf.get("/"))

    assert (response.status_code, response["Retry-After"]) == (429, "10")


def test_a_refusal_carries_its_status_and_its_message() -> None:
    refusal = KeyReused("That key was already used for another tap: tap again.")
    assert refusal.status == 409
    assert refusal.message == "That key was already used for another tap: tap again."


@pytest.mark.parametrize("app", [night_actions, tournament_actions, club_actions], ids=lambda app: app.__name__)
def test_every_apps_reused_key_is_the_one_key_reused_refusal_with_409(app) -> None:
    assert issubclass(app.KeyReused, KeyReused)
    assert app.KeyReused.status == 409


def test_a_refusal_raised_in_a_view_is_answered_by_the_apps_answer_with_the_views_arguments(rf) -> None:
    from django.http import HttpResponse

    from live.refusals import answers_refusals

    answered = []

    def answer(request, refusal: Refusal, **kwargs) -> HttpResponse:
        answered.append((request.path, refusal.message, kwargs))
        return HttpResponse(refusal.message, status=refusal.status)

    @answers_refusals(answer)
    def view(request, code: str) -> HttpResponse:
        raise KeyReused("Sent with another tap's key: tap again.")

    response = view(rf.post("/n/ABC/tap/"), code="ABC")

    assert response.status_code == 409
    assert answered == [("/n/ABC/tap/", "Sent with another tap's key: tap again.", {"code": "ABC"})]


def test_anything_but_a_refusal_is_not_answered_as_one(rf) -> None:
    from django.http import HttpResponse

    from live.refusals import answers_refusals

    @answers_refusals(lambda request, refusal, **kwargs: HttpResponse(status=refusal.status))
    def view(request) -> HttpResponse:
        raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        view(rf.get("/"))


def test_a_phone_reads_a_refusal_as_json_with_its_status() -> None:
    import json

    from live.refusals import json_refusal

    response = json_refusal(KeyReused("That tap was not saved: tap again."))

    assert response.status_code == 409
    assert json.loads(response.content) == {"error": "That tap was not saved: tap again."}


def test_a_form_page_shows_an_actions_refusal_beside_its_field_and_goes_on_to_the_page() -> None:
    from django import forms

    from live.refusals import shown_on

    class NameForm(forms.Form):
        name = forms.CharField()

    form = NameForm({"name": "Oak Lane"})
    assert form.is_valid()
    with shown_on(form, "name"):
        raise KeyReused("A club called Oak Lane exists already: pick another name.")

    assert form.errors == {"name": ["A club called Oak Lane exists already: pick another name."]}


def test_a_form_page_lets_anything_but_a_refusal_through() -> None:
    from django import forms

    from live.refusals import shown_on

    form = forms.Form({})
    with pytest.raises(LookupError), shown_on(form, None):
        raise LookupError
    assert not form.errors
