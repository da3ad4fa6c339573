"""A Fill or Bust tournament round in real browsers (issue 11, acceptance 3).

The director and three group phones run a round: the phones open their table's signed QR link, see
the countdown, enter turns (a Vengeance among them), the projector's bracket follows every turn live
without a reload; then the clock runs down (its warnings on every phone) and the round ends by itself
(the server's in-process clock).

No step races the clock: the turns are entered on a long round, and only then is the round run down
to its last 45 seconds (paused, its end moved as if the time had passed, resumed: the resume's event
re-renders every page), so a busy machine makes the test slower, never wrong.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from tests.builders import groups_of, make_tournament, make_user
from tests.conftest import ServerProcess
from tests.e2e.pages import desk, enter_turn, evaluate_between_loads, log_in, serious_violations
from tournaments import actions
from tournaments.links import group_path
from tournaments.models import Group, Tournament, TournamentRound

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PASSWORD = "fill-or-bust"


# Every text the clock's warning line takes, in order (the page morphs and the clock ticks: only an
# observer sees each one, however briefly it shows).
RECORD_WARNINGS = """() => {
  window.__warnings = [];
  const record = () => {
    const line = document.querySelector("[data-clock-warning]");
    const text = line ? line.textContent.trim() : "";
    if (text && window.__warnings[window.__warnings.length - 1] !== text) {
      window.__warnings.push(text);
      // Kept for the tab: a phone that goes on to a play-off leaves this page.
      sessionStorage.setItem("warnings", JSON.stringify(window.__warnings));
    }
  };
  new MutationObserver(record).observe(document.body, {subtree: true, childList: true, characterData: true});
  record();
}"""


# Each warning felt and heard as the bell is (chime.js): vibrations and bells counted for the tab.
FELT = """(() => {
  const bump = (name) => sessionStorage.setItem(name, String(Number(sessionStorage.getItem(name) || 0) + 1));
  navigator.vibrate = function () { bump("vibrations"); return true; };
  const start = OscillatorNode.prototype.start, bells = new Set();
  OscillatorNode.prototype.start = function (when) {
    if (!bells.has(when)) { bells.add(when); bump("bells"); }
    return start.apply(this, arguments);
  };
})();"""


def run_down_to_the_last(tournament: Tournament, round_: TournamentRound, seconds: int) -> None:
    """The round's clock runs down to its last `seconds`, as if that time had passed: paused (every
    page says so), its end and its tables' moved, resumed (every page re-renders with the new end)."""
    paused = actions.pause_round(tournament, number=round_.number)
    assert paused.paused_at is not None
    ends_at = paused.paused_at + timedelta(seconds=seconds)
    TournamentRound.objects.filter(pk=round_.pk).update(ends_at=ends_at)
    Group.objects.filter(round=round_, status=Group.Status.PLAYING).update(
        ends_at=ends_at, final_at=ends_at + timedelta(seconds=tournament.grace_seconds))
    actions.resume_round(tournament, number=round_.number)


def log_in_as_director(browser: Browser, url: str, path: str) -> Page:
    """The director logs in on a laptop and lands on `path`."""
    return log_in(desk(browser), url, username="director", password=PASSWORD, then=path)


def test_a_timed_round_ends_by_itself_while_the_projector_follows_live(
    night_site: ServerProcess, browser: Browser, new_phone
):
    url = night_site.url
    director = make_user("director", password=PASSWORD)
    tournament = make_tournament(director, 13, grace_seconds=3)
    dashboard_path = f"/t/{tournament.code}/director/"
    desk = log_in_as_director(browser, url, dashboard_path)
    expect(desk.locator("#dashboard-state")).to_contain_text("13 players")

    projector = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    projector.goto(f"{url}/t/{tournament.code}/screen/{tournament.screen_token}/")
    expect(projector.locator("[data-live-badge]")).to_have_text("Live")
    projector.evaluate("() => { window.__sameLoad = true; }")

    round_ = actions.start_round(tournament, length=timedelta(minutes=30))
    groups = groups_of(tournament)
    assert len(groups) == 3
    phones = []
    for group in groups:
        phone = new_phone()
        phone.add_init_script(FELT)
        phone.goto(url + group_path(group.code))
        expect(phone.locator("#group-state")).to_contain_text("Table")
        expect(phone.locator("[data-live-badge]")).to_have_text("Live")
        phones.append(phone)
    # The projector shows the round without a reload (the start reached it by its stream or poll).
    expect(projector.locator("#screen-state")).to_contain_text("Round 1")

    first, second, *_ = groups[0].players()
    phone = phones[0]
    expect(phone.locator("[data-countdown]")).to_be_visible()
    expect(phone.locator("[data-countdown]")).to_contain_text(re.compile(r"^(30|2\d):\d\d$"))
    enter_turn(phone, first.name, 3000)
    expect(phone.locator(f"#tg{groups[0].pk}-e{first.pk}")).to_have_text("3000")
    enter_turn(phone, second.name, 600, vengeance=True)
    expect(phone.locator(f"#tg{groups[0].pk}-e{first.pk}")).to_have_text("500")
    expect(phone.locator(f"#tg{groups[0].pk}-e{second.pk}")).to_have_text("600")
    # The projector got both turns pushed.
    expect(projector.locator(f"#tg{groups[0].pk}-e{first.pk}")).to_have_text("500")
    other = groups[1].players()[0]
    enter_turn(phones[1], other.name, 1250)
    expect(projector.locator(f"#tg{groups[1].pk}-e{other.pk}")).to_have_text("1250")

    buster = groups[2].players()[0]
    phones[2].get_by_label(buster.name, exact=True).check()
    phones[2].get_by_role("button", name="Bust (0)").click()
    expect(phones[2].get_by_role("button", name=f"Undo the last entry ({buster.name} 0)")).to_be_visible()
    for each in phones:
        each.evaluate(RECORD_WARNINGS)
    run_down_to_the_last(tournament, round_, 45)
    # Nobody clicks: at ends_at + grace the server's clock makes every group's scores final (and a
    # phone whose players are tied at the line goes on to their play-off: issue 29, T8).
    for each in phones:
        expect(each.locator("#group-state")).to_contain_text(re.compile("final|Play-off 1"), timeout=120_000)
    # On the way every phone gave each warning once, in order (and may have shown the pause, when
    # its page came between the pause and the resume). "Time is up" shows for the grace seconds.
    said = ["One minute left.", "Ten seconds left!", "Time is up: finish the turn under way. No new turn starts."]
    for each in phones:
        recorded = evaluate_between_loads(each, "() => JSON.parse(sessionStorage.getItem('warnings') || '[]')")
        warnings = [text for text in recorded if text != "The clock is paused."]
        assert warnings[:2] == said[:2] and set(warnings[2:]) <= {said[2]}, warnings
        # ...and each warning rang once: a vibration, and a bell (every phone has been tapped: sound is on).
        felt = evaluate_between_loads(each, "() => [sessionStorage.getItem('vibrations'), sessionStorage.getItem('bells')]")
        assert felt == [str(len(warnings))] * 2, (felt, warnings)
    round_.refresh_from_db()
    # Group 3 scored nothing (one Bust): its players are tied at the line, so the round plays off.
    assert round_.status == "play_off"
    play_off = round_.groups.get(play_off=1)
    for each, group in zip(phones, groups, strict=True):
        if set(round_.tied()) & {player.name for player in group.players()}:
            expect(each).to_have_url(url + reverse("tournaments:group", args=[play_off.code]))
            expect(each.locator("#turn-form")).to_be_visible()
    expect(projector.locator("#screen-state")).to_contain_text("Tied at the line")
    assert projector.evaluate("() => window.__sameLoad") is True


def test_the_tournament_pages_pass_axe_and_fit_a_phone(night_site: ServerProcess, browser: Browser, new_phone):
    url = night_site.url
    director = make_user("director", password=PASSWORD)
    tournament = make_tournament(director, 7, grace_seconds=3)
    desk = log_in_as_director(browser, url, "/t/new/")
    assert serious_violations(desk) == []
    desk.goto(f"{url}/t/{tournament.code}/director/")
    assert serious_violations(desk) == []
    actions.start_round(tournament)
    group = groups_of(tournament)[0]
    actions.record_turn(group=group, entrant=group.players()[0], points=1000)
    desk.reload()
    assert serious_violations(desk) == []
    phone = new_phone(viewport={"width": 360, "height": 740})
    phone.goto(url + group_path(group.code))
    expect(phone.locator("#group-state")).to_be_visible()
    assert serious_violations(phone) == []
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 360
    projector = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    projector.goto(f"{url}/t/{tournament.code}/screen/{tournament.screen_token}/")
    assert serious_violations(projector) == []
