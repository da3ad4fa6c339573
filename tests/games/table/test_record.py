"""Dice nobody has to trust (issue 31): every phone brings its part to the chance of a game table (in
the lobby when it claims its seat, and with every move), and a finished game's record
(/g/<code>/record.json, `manage.py table_record`) lets anyone check every die and card on their
own: scripts/verify_record.py, which knows nothing of the site, agrees with the site's own check
(verify_table) on real games of every game, and both refuse a record altered in one place."""

from __future__ import annotations

import copy
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from games.management.commands.simulate_table import simulate
from games.rules.fill_or_bust_table import SHORT_GOAL
from games.table import actions
from games.table.models import Move, Table, TableSeat
from games.table.replay import verify
from games.table.views.watch import VERIFIER
from live.models import Event
from tests.builders import FAIRNESS_PART, fairness_parts, make_table, play_out, seated_phone, version_1_tables
from tests.builders import table_url as url
from tests.test_verify_record_script import the_script

pytestmark = pytest.mark.django_db

OPTIONS: dict[str, dict[str, Any]] = {"fill_or_bust": {"goal": SHORT_GOAL}, "kismet": {}, "ninety_nine": {"markers": 2}}
PART = "0123456789abcdef" * 2


def phone_game(game: str, number: int) -> Table:
    """A whole game of `game` played as `simulate_table --phones` plays it: every seat's phone
    brings its part in the lobby and with every move."""
    players = 2 + number % 3
    return simulate(game, players, 7_000 + number, options=OPTIONS[game], phones=True)


def record_of(table: Table) -> dict[str, Any]:
    answer = Client().get(url("record", table))
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json"
    return dict(answer.json())


def table_record(code: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("table_record", code, stdout=out, stderr=err)
    except SystemExit as exited:
        return int(exited.code or 0), out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("game", list(OPTIONS))
@pytest.mark.parametrize("first", fairness_parts())
def test_two_hundred_phone_games_of_each_game_verify_with_the_sites_check_and_with_anyones_script(
        game: str, first: int) -> None:
    script = the_script()
    for number in range(first, first + FAIRNESS_PART):
        table = phone_game(game, number)
        assert table.fairness == 2 and table.is_over
        assert verify(table).verified, verify(table).message
        record = record_of(table)
        assert script.verify(record) is None, f"game {number} ({table.code}): {script.verify(record)}"
        # The phones' parts went in: every seat's, and every move's.
        assert all(len(seat["contribution"]) == 32 for seat in record["seats"])
        assert all(len(step["client"]) == 32 for step in record["steps"][1:])
        assert any(item for step in record["steps"] for item in step["chance"])


def test_the_record_is_409_while_the_game_is_played_and_then_what_table_record_prints() -> None:
    table = make_table(2, bots=["threshold", "threshold"], seed=3)
    before = Client().get(url("record", table))
    assert before.status_code == 409 and "when the game is over" in before.json()["error"]
    code, out, err = table_record(table.code)
    assert code == 2 and "when the game is over" in err and out == ""
    assert table.seed not in before.content.decode()
    table = play_out(table)
    served = Client().get(url("record", table)).content.decode()
    code, out, _err = table_record(table.code)
    assert code == 0 and out.strip() == served
    record = json.loads(served)
    assert {key: record[key] for key in ("version", "game", "code", "seed", "commitment")} == {
        "version": 2, "game": "fill_or_bust", "code": table.code, "seed": table.seed, "commitment": table.commitment}
    assert [step["number"] for step in record["steps"]] == list(range(table.moves_made + 1))
    assert record["seats"] == [{"name": "Ada", "bot": True, "contribution": ""}, {"name": "Bea", "bot": True, "contribution": ""}]
    assert table_record("nosuchtable")[0] == 2


def test_a_version_1_table_has_no_record_but_still_verifies_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    version_1_tables(monkeypatch)
    table = play_out(make_table(2, bots=["threshold", "threshold"], seed=4))
    assert table.fairness == 1 and verify(table).verified
    refused = Client().get(url("record", table))
    assert refused.status_code == 409 and "version 1" in refused.json()["error"]
    assert "data-phone-check" not in Client().get(url("check", table)).content.decode()


def a_record_with_cards() -> tuple[Table, dict[str, Any]]:
    table = phone_game("ninety_nine", 1)
    return table, record_of(table)


def first_step_with(record: dict[str, Any], kind: str) -> tuple[int, int]:
    """(step, item) of the first chance item of `kind` after the setup."""
    return next((n, i) for n, step in enumerate(record["steps"]) if n > 0
                for i, item in enumerate(step["chance"]) if kind in item)


def test_a_real_record_altered_in_one_place_fails_anyones_script_which_names_the_step() -> None:
    script = the_script()
    table, record = a_record_with_cards()
    fob = record_of(phone_game("fill_or_bust", 2))
    assert script.verify(record) is None and script.verify(fob) is None

    die = copy.deepcopy(fob)
    n, i = first_step_with(die, "dice")
    die["steps"][n]["chance"][i]["dice"][0] = die["steps"][n]["chance"][i]["dice"][0] % 6 + 1
    assert (script.verify(die) or "").startswith(f"step {n} differs: its chance item {i + 1}: the dice are")

    card = copy.deepcopy(record)
    n, i = first_step_with(card, "draw")
    drawn = card["steps"][n]["chance"][i]["draw"]
    drawn["card"] = "hold" if drawn["card"] != "hold" else "7"
    assert (script.verify(card) or "").startswith(f"step {n} differs: its chance item {i + 1}: drew")

    contribution = copy.deepcopy(record)
    contribution["seats"][1]["contribution"] = "f" * 32
    assert (script.verify(contribution) or "").startswith("step 0 differs")

    move_part = copy.deepcopy(fob)
    n, _ = first_step_with(move_part, "dice")
    move_part["steps"][n]["client"] = "e" * 32
    assert (script.verify(move_part) or "").startswith(f"step {n} differs")

    seed = copy.deepcopy(record)
    seed["seed"] = seed["seed"][::-1]
    assert "committed" in (script.verify(seed) or "")


def test_the_sites_own_check_fails_too_when_a_move_or_a_seats_part_is_altered() -> None:
    table = phone_game("fill_or_bust", 3)
    assert verify(table).verified
    tossing = next(move for move in table.moves.order_by("number") if move.chance and move.chance[0][0] == "toss")
    Move.objects.filter(pk=tossing.pk).update(client="e" * 32)
    verdict = verify(table)
    assert not verdict.verified and f"move {tossing.number}" in verdict.message
    Move.objects.filter(pk=tossing.pk).update(client=tossing.client)
    assert verify(table).verified
    TableSeat.objects.filter(table=table, number=0).update(contribution="f" * 32)
    assert not verify(table).verified


def test_a_move_sent_again_with_its_key_counts_once_and_the_key_with_another_part_is_refused() -> None:
    table = make_table(2, seed=5, started=False)
    phones = [seated_phone(table, 0), seated_phone(table, 1)]
    actions.start_table(table=table)
    seat = Table.objects.get(pk=table.pk).loaded().to_move()[0]
    move = {"kind": "draw", "key": "k" * 16, "client": PART}
    first = phones[seat].post(url("move", table), move)
    again = phones[seat].post(url("move", table), move)
    assert first.status_code == again.status_code == 200
    assert Table.objects.get(pk=table.pk).moves_made == 1
    assert Move.objects.get(table=table).client == PART
    other = phones[seat].post(url("move", table), {**move, "client": "f" * 32})
    assert other.status_code == 409 and "key" in other.json()["error"]
    bad = phones[seat].post(url("move", table), {"kind": "draw", "key": "l" * 16, "client": "²" * 32})
    assert bad.status_code == 400 and bad.json()["error"]
    assert Table.objects.get(pk=table.pk).moves_made == 1


def test_a_claim_in_the_lobby_brings_the_phones_part_which_the_lobby_shows_by_its_first_characters() -> None:
    table = make_table(3, seed=6, started=False)
    phone = Client()
    assert phone.post(url("claim", table), {"seat": "1", "contribution": PART}).status_code == 302
    assert TableSeat.objects.get(table=table, number=1).contribution == PART
    lobby = Client().get(url("table", table)).content.decode()
    assert f'data-part="{PART[:8]}"' in lobby and "part 01234567" in lobby
    assert lobby.count('name="contribution"') == 2  # the free seats' claims bring one (filled by the page's script)
    # A new claim replaces it; a seat let go in the lobby loses it; a malformed one changes nothing.
    assert phone.post(url("claim", table), {"seat": "1", "contribution": "a" * 32}).status_code == 302
    assert TableSeat.objects.get(table=table, number=1).contribution == "a" * 32
    assert phone.post(url("not_me", table)).status_code == 302
    assert TableSeat.objects.get(table=table, number=1).contribution == ""
    refused = Client().post(url("claim", table), {"seat": "2", "contribution": "9" * 5000})
    assert refused.status_code == 400
    assert TableSeat.objects.get(table=table, number=2).claimed_by == ""
    # Once the game has started the deal is made: a claim brings nothing to it.
    phone.post(url("claim", table), {"seat": "0", "contribution": PART})
    actions.start_table(table=table)
    assert Client().post(url("claim", table), {"seat": "2", "contribution": "b" * 32}).status_code == 302
    assert TableSeat.objects.get(table=table, number=2).contribution == ""
    assert TableSeat.objects.get(table=table, number=0).contribution == PART


def test_the_deal_at_the_start_is_made_from_the_seed_and_the_seats_parts() -> None:
    dealt = []
    for part in ("a" * 32, "b" * 32):
        table = make_table(2, game="ninety_nine", options={"markers": 2}, seed=8, started=False)
        Client().post(url("claim", table), {"seat": "0", "contribution": part})
        actions.start_table(table=table)
        table.refresh_from_db()
        assert table.deal_inputs() == (["Ada", "Bea"], f"{part},")
        dealt.append(table.state["state"]["hands"])
    assert dealt[0] != dealt[1]


def test_the_replay_links_the_record_and_the_script_anyone_can_run() -> None:
    table = play_out(make_table(2, bots=["threshold", "threshold"], seed=9))
    page = Client().get(url("replay", table)).content.decode()
    assert "Download this game&#x27;s record" in page or "Download this game's record" in page
    assert re.search(rf'href="{re.escape(url("record", table))}" download="bunco-club-{table.code}.json"', page)
    script = Client().get("/tables/verify_record.py")
    assert script.status_code == 200 and b"".join(script) == Path(VERIFIER).read_bytes()


def test_the_commitment_shows_before_any_part_and_neither_the_seed_nor_a_full_part_shows_before_the_end() -> None:
    """Every response and event of a game played on three phones with their parts: the commitment
    is on the lobby and the screen before any phone has sent anything; the lobby shows each part by
    its first characters only; the seed and the full parts are in nothing before the end, and in
    the record after it."""
    table = make_table(3, seed=13, started=False)
    watcher = Client()
    screen = url("screen", table, table.screen_token)
    first_lobby, first_screen = watcher.get(url("table", table)), watcher.get(screen)
    assert table.commitment in first_lobby.content.decode() and table.commitment in first_screen.content.decode()
    assert not TableSeat.objects.filter(table=table).exclude(contribution="").exists()

    parts = [f"{number:x}" * 32 for number in (10, 11, 12)]
    phones = [Client() for _ in parts]
    seen: list[str] = []
    for number, (phone, part) in enumerate(zip(phones, parts, strict=True)):
        seen.append(phone.post(url("claim", table), {"seat": str(number), "contribution": part}).content.decode())
    lobby = watcher.get(url("table", table)).content.decode()
    assert all(f"part {part[:8]}" in lobby for part in parts)
    seen += [lobby, watcher.get(screen).content.decode()]
    actions.start_table(table=table)
    for number in range(500):
        table.refresh_from_db()
        if table.is_over:
            break
        seat = table.loaded().to_move()[0]
        state = phones[seat].get(url("state", table))
        seen.append(state.content.decode())
        legal = state.json()["legal_moves"]
        chosen = next((move for move in legal if move["kind"] in ("stop", "end")), legal[0])
        fields: dict[str, Any] = {"kind": chosen["kind"], "key": f"m{number}", "client": f"{number:032x}"}
        if chosen["kind"] == "keep":
            fields["dice"] = [str(die) for die in chosen["dice"]]
        made = phones[seat].post(url("move", table), fields)
        assert made.status_code == 200, made.content
        if not Table.objects.get(pk=table.pk).is_over:
            seen += [made.content.decode(), watcher.get(screen, HTTP_ACCEPT="application/json").content.decode(),
                     phones[(seat + 1) % 3].get(url("table", table)).content.decode()]
    assert table.is_over
    end = Event.objects.get(channel=table.channel, kind="table_state", data__what="over")
    channels = [table.channel, *(table.seat_channel(number) for number in range(3))]
    seen += [json.dumps(event.data) for event in Event.objects.filter(channel__in=channels, id__lt=end.id)]
    for text in seen:
        assert table.seed not in text, "the seed went out before the end"
        assert not any(part in text for part in parts), "a phone's whole part went out before the end"
    record = record_of(table)
    assert [seat["contribution"] for seat in record["seats"]] == parts and record["seed"] == table.seed
