"""A tournament in Spanish, in the browser (issue 44, acceptance point 4): a director whose laptop
speaks Spanish logs in, reads the dashboard in Spanish and starts round 1 from it; a group's phone
whose browser speaks Spanish opens its table's link, enters a turn through the Spanish form, and
the director's dashboard, still in Spanish, gets the points."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, expect

from tests.builders import PASSWORD, groups_of, make_tournament, make_user
from tests.conftest import PATIENT_MS, ServerProcess
from tests.e2e.pages import DESKTOP
from tournaments import actions
from tournaments.links import group_path

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_spanish_director_and_a_spanish_group_phone_run_a_round(
    night_site: ServerProcess, browser: Browser, new_phone
) -> None:
    url = night_site.url
    tournament = make_tournament(make_user("director", password=PASSWORD), 8)
    context = browser.new_context(viewport=DESKTOP, locale="es-ES")
    context.set_default_timeout(PATIENT_MS)
    desk = context.new_page()
    dashboard = f"/t/{tournament.code}/director/"
    desk.goto(f"{url}/accounts/login/?next={dashboard}")
    desk.fill("#id_username", "director")
    desk.fill("#id_password", PASSWORD)
    desk.get_by_role("button", name="Entrar").click()
    expect(desk).to_have_url(url + dashboard)
    expect(desk.locator("html")).to_have_attribute("lang", "es")
    expect(desk.locator("[data-live-badge]")).to_have_text("En vivo")
    expect(desk.locator("#dashboard-state")).to_contain_text("8 jugadores")
    expect(desk.get_by_role("link", name="Proyector")).to_be_visible()
    desk.get_by_role("button", name="Empezar la ronda 1").click()
    expect(desk.locator("#dashboard-state")).to_contain_text("Ronda 1")

    group = groups_of(tournament)[0]
    first = group.players()[0]
    phone = new_phone(locale="es-ES")
    phone.goto(url + group_path(group.code))
    expect(phone.locator("html")).to_have_attribute("lang", "es")
    expect(phone.locator("[data-live-badge]")).to_have_text("En vivo")
    expect(phone.locator("#group-state")).to_contain_text("Ronda 1 · Mesa 1")
    expect(phone.locator("#group-state")).to_contain_text("le toca")
    expect(phone.locator("main")).to_contain_text("De quién es el turno")
    expect(phone.get_by_label("Puntos al plantarse")).to_be_visible()
    phone.get_by_label(first.name, exact=True).check()
    phone.fill("#t-points", "1250")
    phone.get_by_role("button", name="Plantarse").click()
    expect(phone.locator(f"#tg{group.pk}-e{first.pk}")).to_have_text("1250")
    expect(phone.get_by_role("button", name="Quemado (0)")).to_be_visible()
    expect(desk.locator(f"#tg{group.pk}-e{first.pk}")).to_have_text("1250")
    expect(desk.locator("#dashboard-state")).to_contain_text("Ronda 1")


def test_spanish_phones_check_in_by_the_spanish_projectors_code_and_confirm_and_dispute_a_result_in_spanish(
    night_site: ServerProcess, browser: Browser, new_phone
) -> None:
    """Issue 46 in Spanish: the projector's check-in code and count, the check-in page a phone opens
    from it, and a table's result confirmed and disputed with Spanish buttons."""
    url = night_site.url
    tournament = make_tournament(make_user("director", password=PASSWORD), 0, confirm_results=True)
    for number in range(1, 9):
        actions.register(tournament, f"Kit {number}")
    actions.set_check_in_window(tournament, starts_at=timezone.now() + timedelta(minutes=30), minutes=60)
    projector = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="es-ES").new_page()
    projector.goto(f"{url}/t/{tournament.code}/screen/{tournament.screen_token}/")
    expect(projector.locator("#check-in-code")).to_contain_text("Registra tu llegada: escanea este código con tu teléfono")
    expect(projector.locator("#check-in-count")).to_have_text("0 de 8 con llegada registrada")

    phones = {}
    for number in range(1, 9):
        phone = phones[f"Kit {number}"] = new_phone(locale="es-ES")
        phone.goto(str(projector.locator("[data-check-in-url]").get_attribute("data-check-in-url")))  # the code's address
        expect(phone.locator("main")).to_contain_text("Toca tu nombre para registrar tu llegada.")
        phone.get_by_role("button", name=f"Kit {number}", exact=True).click()
        expect(phone.locator("#checked-in")).to_be_visible()
        expect(phone.locator("html")).to_have_attribute("lang", "es")
    expect(projector.locator("#check-in-count")).to_have_text("8 de 8 con llegada registrada")

    round_ = actions.start_round(tournament)
    first, second = groups_of(tournament)
    for group in (first, second):
        for player in group.players():
            actions.record_turn(group=group, entrant=player, points=500)
    actions.end_round_now(tournament, number=round_.number)
    # Each player answers on the phone that checked them in, from their table's link.
    confirmer = phones[first.players()[1].name]
    confirmer.goto(url + group_path(first.code))
    expect(confirmer.locator("#result-answer")).to_contain_text("Pendiente de confirmación")
    confirmer.get_by_role("button", name=f"Soy {first.players()[1].name}: confirmar").click()
    expect(confirmer.locator("#result-answer")).to_have_count(0)
    disputer = phones[second.players()[1].name]
    disputer.goto(url + group_path(second.code))
    disputer.get_by_role("button", name=f"Soy {second.players()[1].name}: impugnar").click()
    expect(disputer.locator("#result-answer")).to_contain_text("el director")
    expect(disputer.locator("#result-answer")).not_to_contain_text("director settles")
