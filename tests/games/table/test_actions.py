"""The game table's actions: the deal and its commitment, moves, keys, undo, bots, the reveal."""

from __future__ import annotations

import hashlib

import pytest

from games.table import actions
from games.table.models import Move, Table
from games.table.replay import verify
from games.table.tasks import move_due_bots, play_bot_move
from live.models import Event
from tests.builders import make_table, play_out, to_move

pytestmark = pytest.mark.django_db


def test_it_publishes_the_seeds_sha256_and_keeps_the_seed_until_the_end() -> None:
    table = make_table()
    assert table.commitment == hashlib.sha256(table.seed.encode()).hexdigest()
    assert table.revealed_seed is None
    bots = make_table(bots=["threshold"] * 3, seed=2)
    assert play_out(bots).revealed_seed == bots.seed


def test_a_move_is_made_by_the_seat_on_turn_and_recorded_with_what_chance_produced() -> None:
    table = make_table()
    seat = to_move(table)
    drawn = actions.make_move(table=table, seat=seat, move={"kind": "draw"}, key="k1")
    assert drawn.number == 1 and drawn.chance[0][0] == "card"
    table.refresh_from_db()
    assert table.moves_made == 1
    assert Event.objects.filter(channel=table.channel, kind="moved").count() == 1


def test_a_move_out_of_turn_is_refused_with_409_and_changes_nothing() -> None:
    table = make_table()
    other = (to_move(table) + 1) % 3
    with pytest.raises(actions.NotNow) as refused:
        actions.make_move(table=table, seat=other, move={"kind": "draw"})
    assert refused.value.status == 409
    assert "move" in refused.value.message
    assert Move.objects.count() == 0


def test_an_illegal_move_is_refused_with_400_and_changes_nothing() -> None:
    table = make_table()
    before = Table.objects.get(pk=table.pk).state
    with pytest.raises(actions.BadMove):
        actions.make_move(table=table, seat=to_move(table), move={"kind": "toss"})
    with pytest.raises(actions.BadMove):
        actions.make_move(table=table, seat=to_move(table), move={"kind": "roll the table over"})
    assert Table.objects.get(pk=table.pk).state == before and Move.objects.count() == 0


def test_a_toss_naming_its_own_dice_is_refused_only_the_table_tosses() -> None:
    table = make_table()
    seat = to_move(table)
    while table.loaded().view(None).public["phase"] != "toss":  # past a NO DICE, say
        actions.make_move(table=table, seat=to_move(table), move={"kind": "draw"})
        table.refresh_from_db()
        seat = to_move(table)
    with pytest.raises(actions.BadMove, match="Only the table tosses"):
        actions.make_move(table=table, seat=seat, move={"kind": "toss", "dice": [1, 1, 1, 1, 1, 1]})


def test_a_retried_move_counts_once_and_a_reused_key_with_another_move_is_refused() -> None:
    table = make_table()
    seat = to_move(table)
    first = actions.make_move(table=table, seat=seat, move={"kind": "draw"}, key="same")
    again = actions.make_move(table=table, seat=seat, move={"kind": "draw"}, key="same")
    assert again.pk == first.pk and Move.objects.count() == 1
    with pytest.raises(actions.KeyReused) as refused:
        actions.make_move(table=table, seat=seat, move={"kind": "toss"}, key="same")
    assert refused.value.status == 409 and Move.objects.count() == 1


def test_no_move_is_taken_before_the_game_starts_or_after_it_ends() -> None:
    seating = make_table(started=False)
    with pytest.raises(actions.NotNow, match="hasn't started"):
        actions.make_move(table=seating, seat=to_move(seating), move={"kind": "draw"})
    over = play_out(make_table(bots=["threshold"] * 2, players=2))
    with pytest.raises(actions.NotNow, match="over"):
        actions.make_move(table=over, seat=0, move={"kind": "draw"})


def _to_keep_phase(table: Table) -> int:
    """Play the seat on turn to a toss waiting for a keep (drawing again after a card that ends it)."""
    for _ in range(50):
        seat = to_move(table)
        view = table.loaded().view(None).public
        if view["phase"] == "keep":
            return seat
        kind = {"draw": "draw", "toss": "toss", "vengeance": "play"}.get(view["phase"], "stop")
        if view["phase"] in ("bank_or_continue", "end_or_continue"):
            kind = "continue"
        actions.make_move(table=table, seat=seat, move={"kind": kind})
    raise AssertionError("no keep in 50 moves")


def test_a_keep_can_be_undone_until_the_next_toss_but_never_a_toss() -> None:
    table = make_table(seed=3)
    seat = _to_keep_phase(table)
    keep = table.loaded().legal_moves(seat)[0]
    actions.make_move(table=table, seat=seat, move=keep)
    table.refresh_from_db()
    kept = table.state
    undone = actions.make_move(table=table, seat=seat, move={"kind": "undo"}, key="u1")
    table.refresh_from_db()
    assert undone.move == {"kind": "undo"} and table.loaded().view(None).public["phase"] == "keep"
    assert table.state != kept
    with pytest.raises(actions.NotNow, match="nothing to undo"):
        actions.make_move(table=table, seat=seat, move={"kind": "undo"})
    actions.make_move(table=table, seat=seat, move=keep)
    if "toss" in table.loaded().view(None).public["legal"]:
        table.refresh_from_db()
        actions.make_move(table=table, seat=seat, move={"kind": "toss"})
        with pytest.raises(actions.NotNow, match="can't be undone"):
            actions.make_move(table=table, seat=seat, move={"kind": "undo"})


def test_a_bot_waits_for_its_pause_then_the_clock_moves_it(settings) -> None:
    settings.TABLE_BOT_PAUSE_SECONDS = 3600
    table = make_table(bots=["threshold"] * 2, players=2)
    assert move_due_bots() == 0
    Table.objects.filter(pk=table.pk).update(bot_due_at=table.started_at)
    assert move_due_bots() == 1
    assert Move.objects.get().by_bot


def test_a_simulated_table_is_never_moved_by_the_clock(settings) -> None:
    settings.TABLE_BOT_PAUSE_SECONDS = 0
    make_table(bots=["threshold"] * 2, players=2, simulated=True)
    assert move_due_bots() == 0


def test_a_quiet_seat_handed_to_a_bot_is_played_by_it_and_can_be_taken_back() -> None:
    table = make_table(players=2)
    seat = to_move(table)
    actions.hand_seat_to_bot(table=table, number=seat, level="strong")
    assert play_bot_move(table, waiting=False) is not None
    actions.take_seat_back(table=table, number=seat)
    table.refresh_from_db()
    assert table.bot_due_at is None or to_move(table) != seat
    if to_move(table) == seat:
        assert play_bot_move(table, waiting=False) is None


def test_a_phone_claims_one_seat_and_no_other_phone_can_take_it() -> None:
    table = make_table(started=False)
    actions.claim_seat(table=table, number=0, phone="phone-a")
    with pytest.raises(actions.SeatTaken):
        actions.claim_seat(table=table, number=0, phone="phone-b")
    actions.claim_seat(table=table, number=1, phone="phone-a")
    assert list(table.seats.filter(claimed_by="phone-a").values_list("number", flat=True)) == [1]
    assert actions.release_seat(table=table, number=1)
    actions.claim_seat(table=table, number=1, phone="phone-b")


def test_a_finished_game_verifies_against_its_seed_and_a_changed_toss_does_not() -> None:
    table = play_out(make_table(bots=["threshold", "strong", "easy"], seed=5))
    verdict = verify(table)
    assert verdict.verified, verdict.message
    toss = next(m for m in table.moves.order_by("number") if m.chance and m.chance[0][0] == "toss")
    toss.chance = [["toss", [7 - face for face in toss.chance[0][1]]]]
    toss.save()
    assert not verify(table).verified
    assert not verify(table, seed="0" * 64).verified


def test_opening_a_table_checks_its_seats() -> None:
    with pytest.raises(actions.BadMove, match="2 to 8"):
        make_table(players=1)
    with pytest.raises(actions.BadMove, match="different name"):
        make_table(names=["Ada", "ada"])
    with pytest.raises(actions.BadMove, match="levels"):
        make_table(players=2, bots=["genius", ""])
    with pytest.raises(actions.BadMove, match="goal"):
        make_table(options={"goal": 7})


def test_the_buzzer_lets_the_turn_under_way_finish_then_ends_the_game_and_it_replays() -> None:
    table = make_table(options={"goal": None, "timed": True}, bots=["threshold"] * 3)
    for _ in range(7):
        play_bot_move(table, waiting=False)
    actions.sound_buzzer(table=table)
    assert actions.sound_buzzer(table=table) is None  # a second tick changes nothing
    table = play_out(table)
    assert table.is_over and verify(table).verified
    with pytest.raises(actions.BadMove):
        actions.make_move(table=make_table(), seat=0, move={"kind": "time_up"})
