"""Dice nobody has to trust, in the browser (issue 31): three phones open a Ninety-Nine or Bust
table's link, each claims its seat in the lobby with a part of its own from crypto.getRandomValues
and sees that part's first characters beside its name; every move a phone sends brings a fresh part;
once the game is over, the record the replay offers verifies with the script anyone can run, and
"Check the dice" verifies it on a phone without asking the server anything after the record; a
record edited in the page (the check's own hook) names the step that differs."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from playwright.sync_api import expect

from games.table.models import Table, TableSeat
from tests.builders import make_table
from tests.conftest import ServerProcess
from tests.e2e.pages import shoot
from tests.e2e.test_table_parts_games import recorded_past, started_with_parts
from tests.test_verify_record_script import SCRIPT, the_script

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

HEX32 = re.compile(r"[0-9a-f]{32}")


def test_each_phone_brings_its_part_to_the_deal_and_to_every_move_and_the_record_verifies(
        table_site: ServerProcess, new_phone) -> None:
    table = make_table(3, game="ninety_nine", options={"markers": 1}, seed=11, started=False)
    url = table_site.url
    table, phones = started_with_parts(new_phone, url, table)  # each lobby showed its part, ticked
    parts = list(TableSeat.objects.filter(table=table).order_by("number").values_list("contribution", flat=True))
    for _ in range(400):  # each phone plays the first card its page offers (or deals), until the game ends
        table.refresh_from_db()
        if table.is_over:
            break
        seat = table.loaded().to_move()[0]
        phone = phones[seat]
        expect(phone.locator("#turn-line")).to_have_text(re.compile("^Your (turn|deal)"))
        made = table.moves_made
        if phone.locator("#turn-line").text_content() == "Your deal":
            phone.get_by_role("button", name="Deal the next round").click()
        else:
            phone.locator("#hand button:not([disabled])").first.click()
        recorded_past(phone, table, made)
    table = Table.objects.get(pk=table.pk)
    assert table.is_over
    clients = list(table.moves.filter(by_bot=False).values_list("client", flat=True))
    assert clients and all(HEX32.fullmatch(client) for client in clients) and len(set(clients)) == len(clients)

    watcher = new_phone()  # (the players' pages redraw themselves for the result)
    watcher.goto(f"{url}/g/{table.code}/replay/")
    link = watcher.get_by_role("link", name="Download this game's record")
    with watcher.expect_download() as download:
        link.click()
    with open(download.value.path(), encoding="utf-8") as saved:
        record = json.load(saved)
    assert [seat["contribution"] for seat in record["seats"]] == parts
    assert the_script().verify(record) is None
    # As anyone would run it on the file they downloaded: python3, the script, nothing of the site.
    checked = subprocess.run(["python3", str(SCRIPT), download.value.path()], capture_output=True, text=True,
                             check=False, cwd="/")
    assert checked.returncode == 0 and checked.stdout.startswith("Verified: ninety_nine"), checked.stdout + checked.stderr

    checker = new_phone()
    asked: list[str] = []
    checker.on("request", lambda request: asked.append(request.url))
    checker.goto(f"{url}/g/{table.code}/replay/check/")
    expect(checker.get_by_role("status")).to_contain_text("Verified on this phone", timeout=60_000)
    expect(checker.locator("[data-phone-steps] li")).to_have_count(table.moves_made + 1)
    shoot(checker, "table-check-on-the-phone.png", full_page=True)
    after_the_record = [address for address in asked[asked.index(next(a for a in asked if a.endswith("/record.json"))) + 1:]
                        if "/static/" not in address]  # (the browser's own: its icon)
    assert after_the_record == [], f"the check asked the server after the record: {after_the_record}"
    # The check's hook, on a record edited in the page: one card of the first draw after the deal.
    number, item = next((n, i) for n, step in enumerate(record["steps"]) if n > 0
                        for i, entry in enumerate(step["chance"]) if "draw" in entry)
    drawn = record["steps"][number]["chance"][item]["draw"]
    drawn["card"] = "hold" if drawn["card"] != "hold" else "7"
    requests_before = len(asked)
    problem = checker.evaluate("async (record) => await RecordCheck.verify(record)", record)
    assert problem.startswith(f"step {number} differs: its chance item {item + 1}: drew"), problem
    assert len(asked) == requests_before  # checked on the phone: nothing asked of the server
