""""Check the dice" in the player's own browser (issue 31): the check page fetches the finished game's
public record and re-derives every die and card on the phone (static/js/verify_record.js), with Web
Crypto on a secure origin and with the page's own SHA-256 on plain http at a LAN name, where
crypto.subtle does not exist. Both reproduce docs/FAIRNESS.md's test vectors; an honest record is
"Verified on this phone"; a record altered on its way names the step that differs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from games.rules import dice
from games.table.record import record_json
from tests.builders import make_table, play_out
from tests.conftest import PHONE, ServerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SEED = "56a0fbc90b238f126c6722d476c70a9d7dd67a6d8f648e5da981890a0ab2c0f8"  # docs/FAIRNESS.md's S
VECTOR_PART = "0123456789abcdef0123456789abcdef"
BLOCK_0 = "093aa3eb43a6dcdca7ab4de2e6c8881be0cfe5fcb02d5823c2eb8d55c940fd00"
FIRST_DICE = [4, 5, 2, 2, 2, 5, 5, 5, 6, 4, 6, 5]
BELOW = [1, 18, 10, 1, 328628]

DERIVE_VECTORS = """async () => {
    const step1 = new RecordCheck.Stream("SEED", "TEST", 1, "PART"), dice = [];
    for (let i = 0; i < 12; i++) dice.push(await step1.die());
    const step2 = new RecordCheck.Stream("SEED", "TEST", 2, ""), below = [];
    for (const k of [6, 54, 52, 2, 1000000]) below.push(await step2.below(k));
    return {dice, below, block0: RecordCheck.hmacOwn("SEED", "TEST/1/PART/0"),
            commitment: RecordCheck.sha256("SEED"), webCrypto: RecordCheck.usesWebCrypto};
}""".replace("SEED", SEED).replace("PART", VECTOR_PART)


def a_finished_game() -> Any:
    return play_out(make_table(2, game="ninety_nine", options={"markers": 2}, bots=["threshold", "threshold"], seed=21))


def check_page(page: Page, base: str, table: Any) -> Page:
    page.goto(f"{base}/g/{table.code}/replay/check/")
    return page


def test_on_a_secure_origin_web_crypto_checks_the_vectors_and_the_record_on_this_phone(
        table_site: ServerProcess, new_phone) -> None:
    table = a_finished_game()
    phone = check_page(new_phone(), table_site.url, table)
    expect(phone.get_by_role("status")).to_contain_text("Verified on this phone", timeout=60_000)
    expect(phone.locator("[data-phone-steps] li")).to_have_count(table.moves_made + 1)
    expect(phone.locator("[data-phone-steps] li").first).to_contain_text("The deal: shuffled 52 cards")
    vectors = phone.evaluate(DERIVE_VECTORS)
    assert vectors == {"dice": FIRST_DICE, "below": BELOW, "block0": BLOCK_0,
                       "commitment": dice.commitment_of(SEED), "webCrypto": True}


def test_a_record_altered_on_its_way_is_not_verified_and_the_step_is_named(table_site: ServerProcess, new_phone) -> None:
    table = a_finished_game()
    record = json.loads(record_json(table))
    number, item = next((n, i) for n, step in enumerate(record["steps"]) if n > 0
                        for i, entry in enumerate(step["chance"]) if "draw" in entry)
    drawn = record["steps"][number]["chance"][item]["draw"]
    drawn["card"] = "hold" if drawn["card"] != "hold" else "7"

    def altered_on_its_way(route: Route) -> None:
        route.fulfill(json=record)

    phone = new_phone()
    phone.route(f"**/g/{table.code}/record.json", altered_on_its_way)
    check_page(phone, table_site.url, table)
    expect(phone.get_by_role("status")).to_contain_text(
        f"Not verified on this phone: step {number} differs: its chance item {item + 1}: drew", timeout=60_000)


def test_on_plain_http_at_a_lan_name_the_pages_own_sha256_checks_the_vectors_and_the_record(
        party_site: str, party_browser: Browser) -> None:  # noqa: F811
    table = a_finished_game()
    options: dict[str, Any] = dict(PHONE)
    phone = party_browser.new_context(**options).new_page()
    check_page(phone, party_site, table)
    assert phone.evaluate("() => window.isSecureContext") is False
    assert phone.evaluate("() => !!(window.crypto && window.crypto.subtle)") is False
    expect(phone.get_by_role("status")).to_contain_text("Verified on this phone", timeout=60_000)
    expect(phone.get_by_role("status")).to_contain_text("this page's own SHA-256")
    vectors = phone.evaluate(DERIVE_VECTORS)
    assert vectors == {"dice": FIRST_DICE, "below": BELOW, "block0": BLOCK_0,
                       "commitment": dice.commitment_of(SEED), "webCrypto": False}


def test_a_kismet_record_whose_seat_part_was_altered_is_not_verified_though_no_die_shows_it(
        table_site: ServerProcess, new_phone) -> None:
    """Issue 42 (G4, S5): Kismet's deal draws no chance, so a seat's lobby part altered on its way
    changes no die; step 0's client still says what the deal was made from, and the phone's check
    compares the two, as scripts/verify_record.py and an independent verifier do."""
    table = play_out(make_table(2, game="kismet", options={}, bots=["threshold", "threshold"], seed=22))
    record = json.loads(record_json(table))
    assert record["steps"][0]["chance"] == []
    record["seats"][1]["contribution"] = "c" * 32

    phone = new_phone()
    phone.route(f"**/g/{table.code}/record.json", lambda route: route.fulfill(json=record))
    check_page(phone, table_site.url, table)
    expect(phone.get_by_role("status")).to_contain_text(
        "Not verified on this phone: step 0 differs: its client is not the seats' contributions", timeout=60_000)
