"""The phone at the table, as the 13-phone trial used it: nothing moves under a finger when the bell
rings, the step buttons sit right above the score buttons, a tap's answer shows by the scores,
scoring for Them is unmistakable, a bounce is not a second tap, what the phone says stays true,
and a phone that tapped the wrong name can pick again."""

from __future__ import annotations

from contextlib import suppress

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import FloatRect, Page, Route, expect

from games.links import join_path
from games.night import actions
from games.night.models import Night, Tally
from games.rules import bunco
from live.models import Event
from live.rendering import render_message
from tests.builders import add, seating_of, started_night
from tests.conftest import ServerProcess
from tests.e2e.pages import join_night, wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

EIGHT = ["Alice", "Bea", "Carmen", "Dana", "Eve", "Fran", "Gwen", "Hana"]
TWELVE = [*EIGHT, "Iris", "Jo", "Kim", "Lou"]

SCORE_BUTTONS = {
    "+1": "#tally-form [data-points='1']",
    "+2": "#tally-form [data-points='2']",
    "+5": "#tally-form [data-points='5']",
    "BUNCO": "#tally-form [data-bunco-open]",
    "Undo": "#tally-form [data-undo]",
}


@pytest.fixture
def phone_at_table_2(night_site: ServerProcess, new_phone) -> tuple[Page, Night]:
    """A phone at table 2 of an eight-player night whose round 1 has started (seat 1's player)."""
    night = started_night(names=EIGHT, seed=3)
    return join_night(new_phone(), night_site.url, night.code, seating_of(night, 1)[1][0], table=2), night


def boxes(phone: Page) -> dict[str, tuple[float, float, float, float]]:
    found = {}
    for name, selector in SCORE_BUTTONS.items():
        box = phone.locator(selector).bounding_box()
        assert box is not None, name
        found[name] = (box["x"], box["y"], box["width"], box["height"])
    return found


def assert_unmoved(before: dict, after: dict) -> None:
    moved = {name: (before[name], after[name]) for name in before
             if any(abs(a - b) > 1 for a, b in zip(before[name], after[name], strict=True))}
    assert not moved, f"buttons moved: {moved}"


def box_of(phone: Page, selector: str) -> FloatRect:
    box = phone.locator(selector).bounding_box()
    assert box is not None, selector
    return box


def until_still(phone: Page) -> None:
    """Until no button shows its press (.is-tapped, a scale static/js/tally.js takes off after a
    moment) and no animation or transition is under way (an endless one aside): a box measured in
    the middle of one (the bell's ring, a pressed button's scale) would seem moved."""
    phone.wait_for_function("""() => !document.querySelector(".is-tapped") && document.getAnimations().every(
        (animation) => animation.playState !== "running" || animation.effect.getComputedTiming().endTime === Infinity)""")


def refresh_from_the_stream(phone: Page) -> None:
    """A "changed" event as the stream brings one: the page re-fetches #phone-state and morphs the
    answer in. Returns once the answer is in (the mark put on the old panel is gone)."""
    phone.evaluate("document.getElementById('phone-state').dataset.old = 'yes'")
    phone.evaluate("htmx.trigger(document.getElementById('night-stream'), 'changed')")
    expect(phone.locator("#phone-state:not([data-old])")).to_be_attached()


def point_tallies(night: Night) -> list[int]:
    return sorted(Tally.objects.filter(night=night, kind=Tally.Kind.POINTS).values_list("points", flat=True))


# --- 1, 2. Nothing moves when the bell rings; the step buttons sit right above the score buttons ---


def test_the_score_buttons_stay_put_through_the_bell_and_a_roll_off(night_site: ServerProcess, new_phone) -> None:
    night = started_night(names=EIGHT, seed=3)
    second = seating_of(night, 1)[1]
    phone = join_night(new_phone(), night_site.url, night.code, second[0], table=2)
    expect(phone.locator(".hint")).to_be_visible()
    playing = boxes(phone)

    add(night, 1, "A", 21)  # the head table rings the bell (table 2 stands 0-0: a tie)

    expect(phone.locator(".bell-banner")).to_be_visible()
    step = phone.get_by_role("button", name="Our turn is over")
    expect(step).to_be_visible()
    until_still(phone)  # the banner's ring animation is over
    assert_unmoved(playing, boxes(phone))
    # The step button is right above the score buttons.
    button, grid = box_of(phone, "role=button[name='Our turn is over']"), box_of(phone, "#tally-form .tap-grid")
    assert 0 <= grid["y"] - (button["y"] + button["height"]) <= 24, (button, grid)

    step.click()  # 0-0: a roll-off, its button where "Our turn is over" was
    roll_off_done = phone.get_by_role("button", name="Every seat has rolled off")
    expect(roll_off_done).to_be_visible()
    expect(phone.locator(".roll-off")).to_contain_text("Tie! Roll-off 1.")
    assert_unmoved(playing, boxes(phone))
    assert box_of(phone, "role=button[name='Every seat has rolled off']")["y"] == pytest.approx(button["y"], abs=1)


# --- 3. The tap's answer shows by the scores, keeps its line, and outlives a refresh ------------


def test_a_taps_answer_shows_by_the_scores_without_moving_the_buttons_and_outlives_a_refresh(phone_at_table_2: tuple[Page, Night]) -> None:
    phone, night = phone_at_table_2
    before = boxes(phone)

    phone.locator(SCORE_BUTTONS["+2"]).click()

    status = phone.locator("#tap-status")
    expect(status).to_have_text("✓ +2 for us")
    until_still(phone)  # the tapped button's own press (a scale) is over
    assert_unmoved(before, boxes(phone))
    scores, grid, said = box_of(phone, "#scoreboard"), box_of(phone, "#tally-form .tap-grid"), box_of(phone, "#tap-status")
    assert scores["y"] + scores["height"] <= said["y"] < grid["y"], (scores, said, grid)
    assert grid["y"] - said["y"] < 200  # by the buttons, not at the foot of the page

    # The page's own refresh (a "changed" event) morphs #phone-state: the answer stays.
    refresh_from_the_stream(phone)
    expect(status).to_have_text("✓ +2 for us")


def test_who_rolled_the_bunco_stays_open_through_a_refresh_of_the_page(night_site: ServerProcess, new_phone) -> None:
    night = started_night(names=EIGHT, seed=3)
    roller = seating_of(night, 1)[1][0]
    phone = join_night(new_phone(), night_site.url, night.code, roller, table=2)
    phone.locator(SCORE_BUTTONS["BUNCO"]).click()
    chooser = phone.locator("#bunco-chooser")
    expect(chooser).to_be_visible()

    # News from another table makes the page fetch its state again and morph it in.
    refresh_from_the_stream(phone)

    expect(chooser).to_be_visible()
    expect(chooser.locator(".bunco-team:not([hidden]) button")).to_have_count(2)  # the roller's own team
    chooser.get_by_role("button", name=roller, exact=True).click()
    expect(phone.locator(".team-score.team-mine .team-points")).to_have_text(str(bunco.BUNCO_POINTS))
    expect(phone.locator("#tap-status")).to_contain_text(f"BUNCO! +{bunco.BUNCO_POINTS} for {roller}")


# --- 4. Scoring for Them is unmistakable ---------------------------------------------------------


def test_points_for_them_turns_the_tap_area_their_colour_and_the_buttons_say_them(phone_at_table_2: tuple[Page, Night]) -> None:
    phone, night = phone_at_table_2
    form = phone.locator("#tally-form")
    us_colour = form.evaluate("f => getComputedStyle(f).backgroundColor")
    before = boxes(phone)
    expect(phone.locator(SCORE_BUTTONS["+2"])).to_have_text("+2\nfor us", use_inner_text=True)

    phone.locator(".team-switch label", has_text="Them").click()

    expect(phone.locator(".team-switch legend")).to_have_text("Scoring for THEM", use_inner_text=True)
    for points in ("1", "2", "5"):
        expect(phone.locator(f"#tally-form [data-points='{points}']")).to_have_text(f"+{points}\nfor them", use_inner_text=True)
    expect(phone.locator(SCORE_BUTTONS["BUNCO"])).to_contain_text("for them", use_inner_text=True)
    them_colour = form.evaluate("f => getComputedStyle(f).backgroundColor")
    # The palette's colour for the tap area while scoring for them, in the page's theme (light or dark).
    them_area = phone.evaluate("""() => {
        const probe = document.createElement("div");
        probe.style.backgroundColor = "var(--them-dark)";
        document.body.append(probe);
        const colour = getComputedStyle(probe).backgroundColor;
        probe.remove();
        return colour;
    }""")
    assert them_colour != us_colour and them_colour == them_area
    assert_unmoved(before, boxes(phone))
    phone.locator(SCORE_BUTTONS["+2"]).click()
    expect(phone.locator("#tap-status")).to_have_text("✓ +2 for them")
    expect(phone.locator(".team-theirs .team-points")).to_have_text("2")

    phone.locator(".team-switch label", has_text="Us").click()  # and back

    expect(phone.locator(".team-switch legend")).to_have_text("Points for", use_inner_text=True)
    expect(phone.locator(SCORE_BUTTONS["+2"])).to_have_text("+2\nfor us", use_inner_text=True)
    assert form.evaluate("f => getComputedStyle(f).backgroundColor") == us_colour
    until_still(phone)  # the +2's own press (a scale) is over
    assert_unmoved(before, boxes(phone))


# --- 5. A bounce is not a second tap; a real second tap always counts ---------------------------


def test_a_double_tap_on_one_button_counts_once_and_never_swallows_a_real_tap(phone_at_table_2: tuple[Page, Night]) -> None:
    phone, night = phone_at_table_2
    status = phone.locator("#tap-status")

    # Two clicks on +2 a few milliseconds apart: one +2, and the button shows its lock.
    locked = phone.evaluate("""() => {
        const two = document.querySelector("#tally-form [data-points='2']");
        two.click(); const locked = two.classList.contains('is-locked'); two.click();
        return locked;
    }""")
    assert locked
    expect(status).to_have_text("✓ +2 for us (a double touch, counted once)")
    phone.wait_for_timeout(600)
    assert point_tallies(night) == [2]

    # A double tap as the browser reports one (the second click counted as the second of two).
    phone.wait_for_timeout(400)
    phone.locator(SCORE_BUTTONS["+2"]).dblclick()
    expect(phone.locator(".team-mine .team-points")).to_have_text("4")
    phone.wait_for_timeout(600)
    assert point_tallies(night) == [2, 2]

    # +2 then +1 at once: two buttons, two taps.
    phone.evaluate("""() => {
        document.querySelector("#tally-form [data-points='2']").click();
        document.querySelector("#tally-form [data-points='1']").click();
    }""")
    expect(status).to_have_text("✓ +1 for us")
    phone.wait_for_timeout(300)
    assert point_tallies(night) == [1, 2, 2, 2]

    # +2, a moment past the lock, +2 again: both count.
    phone.locator(SCORE_BUTTONS["+2"]).click()
    phone.wait_for_timeout(450)
    phone.locator(SCORE_BUTTONS["+2"]).click()
    expect(phone.locator(".team-mine .team-points")).to_have_text("11")
    assert point_tallies(night) == [1, 2, 2, 2, 2, 2]


def test_a_quick_second_tap_counts_when_it_is_not_a_bounce_and_a_bounce_is_never_silent(phone_at_table_2: tuple[Page, Night]) -> None:
    """Issue 16, N4: only a second touch within ~100 ms on the same button for the same team is a
    bounce. A touch screen reports a quick second tap as the second of two (detail 2): after
    switching Us to Them, or a breath later on the same button, it is a real tap."""
    phone, night = phone_at_table_2
    touch = """async ([selector, clicks]) => document.querySelector(selector).dispatchEvent(
        new MouseEvent('click', {bubbles: true, cancelable: true, detail: clicks}))"""

    # +2 for us, Them, +2 for them at once: two taps.
    phone.evaluate(touch, [SCORE_BUTTONS["+2"], 1])
    phone.evaluate("document.querySelector('.team-switch .switch-them input').click()")
    phone.evaluate(touch, [SCORE_BUTTONS["+2"], 2])
    expect(phone.locator(".team-mine .team-points")).to_have_text("2")
    expect(phone.locator(".team-theirs .team-points")).to_have_text("2")

    # +2 for them again, a breath (150 ms, more than a bounce) after the last: it counts too.
    phone.evaluate("""async (selector) => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        document.querySelector(selector).dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true, detail: 2}));
    }""", SCORE_BUTTONS["+2"])
    expect(phone.locator(".team-theirs .team-points")).to_have_text("4")

    # A real bounce: two touches in the same instant. One +5, and the phone says so.
    phone.evaluate("""(selector) => {
        const five = document.querySelector(selector);
        five.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true, detail: 1}));
        five.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true, detail: 2}));
    }""", SCORE_BUTTONS["+5"])
    expect(phone.locator("#tap-status")).to_have_text("✓ +5 for them (a double touch, counted once)")
    expect(phone.locator(".team-theirs .team-points")).to_have_text("9")
    assert point_tallies(night) == [2, 2, 2, 5]


def test_a_head_table_phone_shows_one_line_of_the_bell(phone_at_table_2: tuple[Page, Night], night_site: ServerProcess, new_phone) -> None:
    """Issue 16, N10: the head table is decided at the bell, and its phones said both "Head table:
    stop now" and "Your table is done: waiting for the other tables"."""
    _, night = phone_at_table_2
    head = join_night(new_phone(), night_site.url, night.code, seating_of(night, 1)[0][0], table=1)
    add(night, 1, "A", 21)  # the bell
    expect(head.locator(".bell-banner")).to_be_visible()
    lines = head.locator(".bell-banner .bell-line:visible")
    expect(lines).to_have_count(1)
    expect(lines).to_have_text("Head table: stop now.")


# --- 6. What the phone says stays true --------------------------------------------------------------


def test_the_bell_banner_says_what_is_true_for_each_table_now(night_site: ServerProcess, new_phone) -> None:
    night = started_night(names=TWELVE, seed=3)
    _, second, third = seating_of(night, 1)
    add(night, 2, "A", 2)  # table 2 will win by points
    add(night, 3, "A", 2)
    add(night, 3, "B", 2)  # table 3 is tied: a roll-off
    add(night, 1, "A", 21)  # the bell
    finisher = join_night(new_phone(), night_site.url, night.code, second[0], table=2)
    tied = join_night(new_phone(), night_site.url, night.code, third[0], table=3)
    finish_your_turn = "Finish the turn you're in"
    for phone in (finisher, tied):
        expect(phone.locator(".bell-banner")).to_contain_text("Bell! Round 1 is over.")
        expect(phone.locator(".bell-banner").get_by_text(finish_your_turn)).to_be_visible()

    finisher.get_by_role("button", name="Our turn is over").click()
    expect(finisher.locator(".result")).to_contain_text("You won this round!")
    expect(finisher.locator(".bell-banner").get_by_text("Your table is done: waiting for the other tables.")).to_be_visible()
    expect(finisher.locator(".bell-banner").get_by_text(finish_your_turn)).to_be_hidden()

    tied.get_by_role("button", name="Our turn is over").click()
    expect(tied.locator(".roll-off")).to_contain_text("Tie! Roll-off 1. Roll off the tie")
    expect(tied.locator(".roll-off")).to_be_visible()
    expect(tied.locator(".bell-banner").get_by_text(finish_your_turn)).to_be_hidden()


def test_the_last_taps_answer_and_them_do_not_carry_into_the_next_round(phone_at_table_2: tuple[Page, Night]) -> None:
    phone, night = phone_at_table_2
    phone.locator(SCORE_BUTTONS["+2"]).click()
    expect(phone.locator("#tap-status")).to_have_text("✓ +2 for us")
    phone.locator(".team-switch label", has_text="Them").click()

    add(night, 1, "A", 21)  # the bell; table 2 then finishes 0-2 and the round closes
    actions.finish_turn(night=night, table_number=2)
    expect(phone.locator(".go-to")).to_be_visible()
    actions.start_round(night)
    expect(phone.locator("#tally-form")).to_be_visible()
    expect(phone.locator(".round-label")).to_contain_text("Round 2")

    expect(phone.locator("#tap-status")).to_have_text("")
    expect(phone.locator(".team-switch legend")).to_have_text("Points for", use_inner_text=True)
    expect(phone.locator(".team-switch .switch-us input")).to_be_checked()


def test_totals_that_reach_the_phone_out_of_order_never_overwrite_newer_ones(night_site: ServerProcess, new_phone) -> None:
    """Two taps 0.3 s apart at one table: each action publishes after its own commit, so the newer
    totals can reach the stream first (CI saw a phone keep "1 · 0" after "1 · 1"). The stream here
    brings them in that order, and the phone keeps the newer ones."""
    night = started_night(names=EIGHT, seed=3)
    name = seating_of(night, 1)[1][0]
    newest = Event.objects.latest_id(night.channel)

    def tally(event_id: int, a: int, b: int) -> bytes:
        return render_message({"id": event_id, "channel": night.channel, "kind": "tally",
                               "data": {"round": 1, "table": 2, "a": a, "b": b}})

    held: list[Route] = []

    def out_of_order(route: Route) -> None:
        if held or "/events/" not in route.request.url:
            held.append(route)  # a reconnect: left waiting, so nothing else writes the numbers
            return
        held.append(route)
        route.fulfill(status=200, content_type="text/event-stream",
                      body=b"retry: 60000\n\n" + tally(newest + 2, 3, 5) + tally(newest + 1, 2, 5))

    phone = new_phone()
    seen = "window.__tallies = []; document.addEventListener('htmx:after:sse:message', " \
           "(event) => window.__tallies.push(event.detail.message.id));"
    phone.add_init_script(seen)
    phone.route("**/events/**", out_of_order)
    phone.goto(night_site.url + join_path(night.code, 2))
    phone.get_by_role("button", name=name, exact=True).click()
    phone.wait_for_function(f"() => (window.__tallies || []).includes('{newest + 1}')")

    assert phone.locator("#r1-t2-a").inner_text() == "3"
    assert phone.locator("#r1-t2-b").inner_text() == "5"
    for route in held[1:]:
        with suppress(PlaywrightError):
            route.abort()


def test_a_server_error_on_a_refresh_leaves_the_phone_as_it_was_and_it_tries_again(phone_at_table_2: tuple[Page, Night]) -> None:
    """htmx swaps every answer, a 500 too: a refresh answered so put "Server Error (500)" where the
    phone's panel was, and the phone, its panel gone, refreshed no more (CI saw a phone stuck so for
    the rest of the night). Now it keeps what it shows, says it is retrying, and asks again."""
    phone, night = phone_at_table_2
    refreshes: list[Route] = []

    def first_refresh_fails(route: Route) -> None:
        if not route.request.headers.get("hx-request"):
            route.continue_()
        elif not refreshes:
            refreshes.append(route)
            route.fulfill(status=500, content_type="text/html", body="<h1>Server Error (500)</h1>")
        else:
            refreshes.append(route)  # the retry: held until the page has been looked at

    phone.route("**/play/", first_refresh_fails)
    add(night, 1, "A", 21)  # the head table rings the bell: the stream has every phone refresh

    expect(phone.locator("[data-live-badge]")).to_have_text("Server trouble: retrying…")
    wait_until(phone, lambda: len(refreshes) == 2, "the phone did not ask again")
    expect(phone.locator(".round-label")).to_contain_text("Round 1")
    expect(phone.get_by_role("heading", name="Server Error (500)")).to_have_count(0)
    refreshes[1].continue_()
    expect(phone.get_by_role("button", name="Our turn is over")).to_be_visible()
    expect(phone.locator("[data-live-badge]")).to_have_text("Live")


# --- 7. The break, the seat, the score sheet's link, sections that open -----------------------------


def test_sections_that_open_show_a_marker_and_the_score_sheet_link_is_a_real_target(phone_at_table_2: tuple[Page, Night]) -> None:
    phone, night = phone_at_table_2
    summary = phone.locator(".not-me summary")

    def marker() -> str:
        return summary.evaluate("s => getComputedStyle(s, '::before').content")

    assert marker() == '"▸"'
    summary.click()
    assert marker() == '"▾"'
    sheet = box_of(phone, "role=link[name='My score sheet']")
    assert sheet["height"] >= 48 and sheet["width"] >= 48
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390


# --- 8. That's not me ------------------------------------------------------------------------------


def test_a_phone_that_tapped_the_wrong_name_picks_again(night_site: ServerProcess, new_phone) -> None:
    night = started_night(names=EIGHT, seed=3)
    second = seating_of(night, 1)[1]
    wrong, right = second[0], second[1]
    phone = join_night(new_phone(), night_site.url, night.code, wrong, table=2)
    expect(phone.locator(".phone-topline")).to_contain_text(wrong)

    phone.get_by_text("That's not me").click()
    phone.get_by_role("button", name=f"I'm not {wrong}: pick my name again").click()

    expect(phone.locator("form.name-list")).to_be_visible()
    expect(phone.locator(".message")).to_contain_text(f"This phone no longer plays as {wrong}")
    expect(phone.get_by_role("button", name=wrong, exact=True)).to_be_enabled()
    phone.get_by_role("button", name=right, exact=True).click()
    expect(phone.locator(".phone-topline")).to_contain_text(right)
    expect(phone.locator("#tally-form")).to_be_visible()


def round_one_won_at_table_2_by(night: Night, name: str) -> None:
    """Round 1 of an eight-player night, played so that `name`'s team wins at table 2: she moves
    up to table 1 for round 2."""
    second = seating_of(night, 1)[1]
    team = "A" if second.index(name) in (0, 2) else "B"
    add(night, 2, team, 5)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2)
    assert name in seating_of(night, 2)[0]


def test_thats_not_me_lands_on_the_names_of_the_table_the_player_sits_at_now(night_site: ServerProcess, new_phone) -> None:
    """Issue 16, N3: the phone scanned table 2's code in round 1; in round 2 its player sits at
    table 1. "That's not me" lands on table 1's names, even when the page's own refresh (told on
    the phone's channel that the seat is free) wins the race against the form's answer."""
    night = started_night(names=EIGHT, seed=3)
    name = seating_of(night, 1)[1][0]
    phone = join_night(new_phone(), night_site.url, night.code, name, table=2)
    round_one_won_at_table_2_by(night, name)
    expect(phone.locator(".go-to-line")).to_contain_text("Table 1")

    held: list[Route] = []

    def refresh_wins(route: Route) -> None:
        """The POST is done (the seat let go, the phone's channel told) but its answer is held back
        until the page's own reload has landed: the reload wins the race every time, not only
        when the machine is quiet enough for the event to beat the answer."""
        route.fetch()
        held.append(route)

    phone.route("**/not-me/", refresh_wins)
    phone.get_by_text("That's not me").click()
    phone.get_by_role("button", name=f"I'm not {name}: pick my name again").click()

    expect(phone.locator("form.name-list")).to_be_visible()
    expect(phone.get_by_text("Table 1: tap your name.")).to_be_visible()
    expect(phone.get_by_role("button", name=name, exact=True)).to_be_enabled()
    assert len(held) == 1  # the answer never reached the page: its own reload brought it here
    with suppress(PlaywrightError):  # the reload has already cancelled the request
        held[0].abort()


def test_the_phone_of_a_player_who_leaves_says_she_has_left_and_shows_her_score_sheet(night_site: ServerProcess, new_phone) -> None:
    """Issue 16, N7: the leaver's phone was told the host "handed her seat over" and to scan again."""
    night = started_night(names=EIGHT, seed=3)
    name = seating_of(night, 1)[1][0]
    phone = join_night(new_phone(), night_site.url, night.code, name, table=2)
    round_one_won_at_table_2_by(night, name)
    expect(phone.locator(".go-to-line")).to_contain_text("Table 1")

    actions.let_player_leave(night, player=night.players.get(name=name), round_number=2)

    expect(phone.get_by_role("heading", name="You have left the game")).to_be_visible()
    expect(phone.locator("body")).not_to_contain_text("handed the seat over")
    phone.get_by_role("link", name="My score sheet").click()
    expect(phone.get_by_role("heading", name=f"{name}’s score sheet")).to_be_visible()
    expect(phone.locator(".sheet tbody tr").first.locator(".mark")).to_have_text("W")
