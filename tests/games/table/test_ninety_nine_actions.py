"""Ninety-Nine or Bust at a game table, through the actions: the server deals, a card played
reaches every phone as the count and only its own seat as a hand; refusals change nothing."""

from __future__ import annotations

import pytest

from games.table import actions
from games.table.models import Move, Table, TableSeat
from games.table.renderers import said_of
from games.table.replay import verify
from live.models import Event
from live.streams import WRITTEN_FOR
from tests.builders import play_out, seated_phone, to_move
from tests.games.table.ninety_nine_tables import hand_of, ninety_nine_table, state_of

pytestmark = pytest.mark.django_db

TENS_ONLY = {"markers": 1, "deck": {"10": 40}}  # 10, 20, ... 90, then nobody can play


def test_the_server_deals_three_cards_to_each_seat_from_a_deck_of_52_at_count_0() -> None:
    table = ninety_nine_table(4)
    state = state_of(table)
    assert [len(hand) for hand in state["hands"]] == [3, 3, 3, 3]
    assert len(state["draw_pile"]) == 52 - 12 and state["count"] == 0
    assert state["markers"] == [4, 4, 4, 4]
    assert to_move(table) == 1  # the player on the dealer's left starts


def test_a_card_played_is_announced_to_the_table_and_the_hand_is_refilled_on_its_seats_channel_only() -> None:
    table = ninety_nine_table(3)
    seat = to_move(table)
    card = hand_of(table, seat)[0]
    made = actions.make_move(table=table, seat=seat, move={"kind": "play", "card": card}, key="k1")
    assert len(hand_of(table, seat)) == 3
    assert made.chance and made.chance[0][0] == "draw"  # recorded for the check at the end
    moved = Event.objects.get(channel=table.channel, kind="moved")
    assert moved.data["move"]["chance"] == []  # never on the public channel
    assert moved.data["view"]["top_card"] == card and "hand" not in str(moved.data)
    for number in range(3):
        hand_event = Event.objects.get(channel=table.seat_channel(number), kind="hand")
        assert hand_event.data["private"]["hand"] == hand_of(table, number)
        assert hand_event.data["private"]["seat"] == number
    assert not Event.objects.filter(channel=table.channel, kind="hand").exists()


def test_each_hand_says_the_holding_it_was_written_for_and_only_a_phones() -> None:
    """A hand dealt to a seat a phone holds names that phone's holding (the seat's `held_since`,
    read under the table's lock), so the phone's stream sends it without reading the seat again
    (live.streams.PrivateChannel); a bot's seat and a seat nobody holds get no such mark, and a
    stream that follows them reads the seat before sending anything."""
    table = ninety_nine_table(4)
    for seat in range(3):
        seated_phone(table, seat)
    actions.hand_seat_to_bot(table=table, number=2, level="easy")
    held = dict(TableSeat.objects.filter(table=table, bot_level="").exclude(claimed_by="")
                .values_list("number", "held_since"))
    assert set(held) == {0, 1} and held[0] != held[1]
    for number in range(8):
        table.refresh_from_db()
        seat = to_move(table)
        actions.make_move(table=table, seat=seat, move=table.loaded().legal_moves(seat)[0], key=f"k{number}")
    written_for = {number: {event.data.get(WRITTEN_FOR) for event in
                            Event.objects.filter(channel=table.seat_channel(number), kind="hand")}
                   for number in range(4)}
    assert written_for == {0: {held[0]}, 1: {held[1]}, 2: {None}, 3: {None}}


def test_a_card_not_in_the_hand_a_card_past_99_and_a_move_out_of_turn_are_refused_and_change_nothing() -> None:
    table = ninety_nine_table(3, options={"markers": 1, "deck": {"10": 30, "hold": 10}})
    seat = to_move(table)
    before = Table.objects.get(pk=table.pk).state
    with pytest.raises(actions.BadMove, match="holds"):
        actions.make_move(table=table, seat=seat, move={"kind": "play", "card": 7})
    with pytest.raises(actions.NotNow) as out_of_turn:
        actions.make_move(table=table, seat=(seat + 1) % 3, move={"kind": "play", "card": 10})
    assert out_of_turn.value.status == 409
    # Push the count to 90, then a 10 would make 100.
    while state_of(table)["count"] < 90:
        now = to_move(table)
        card = 10 if 10 in hand_of(table, now) else "hold"
        actions.make_move(table=table, seat=now, move={"kind": "play", "card": card})
    now = to_move(table)
    assert 10 in hand_of(table, now) and "hold" in hand_of(table, now)  # (this seed deals so)
    made = Table.objects.get(pk=table.pk).moves_made
    with pytest.raises(actions.BadMove, match="may not pass 99"):
        actions.make_move(table=table, seat=now, move={"kind": "play", "card": 10})
    assert Table.objects.get(pk=table.pk).moves_made == made
    assert Move.objects.filter(table=table).count() == Table.objects.get(pk=table.pk).moves_made
    assert before != Table.objects.get(pk=table.pk).state  # the legal moves were taken


def test_a_retried_card_counts_once() -> None:
    table = ninety_nine_table(2)
    seat = to_move(table)
    card = hand_of(table, seat)[1]
    first = actions.make_move(table=table, seat=seat, move={"kind": "play", "card": card}, key="same")
    again = actions.make_move(table=table, seat=seat, move={"kind": "play", "card": card}, key="same")
    assert again.pk == first.pk and Move.objects.filter(table=table).count() == 1


def test_a_player_with_no_legal_card_loses_the_deal_and_a_marker_and_with_none_left_is_out() -> None:
    table = ninety_nine_table(3, options=TENS_ONLY)
    for _ in range(9):
        actions.make_move(table=table, seat=to_move(table), move={"kind": "play", "card": 10})
    state = state_of(table)
    assert state["count"] == 90
    loser = (1 + 9) % 3  # seat 1 started; the tenth player holds only 10s
    assert state["markers"] == [1, 0, 1] and state["loser"] == loser == 1
    assert state["phase"] == "round_over"  # two players still have their marker
    moved = Event.objects.filter(channel=table.channel, kind="moved").latest("id")
    said = said_of(moved.data["move"], moved.data["view"])
    assert "Bea has no card to play on 90: loses the deal and a marker. Bea has no markers left" in said
    assert [e["kind"] for e in moved.data["view"]["events"]][-2:] == ["lost_round", "out"]


def test_after_a_lost_deal_the_deal_passes_left_and_the_last_with_markers_wins() -> None:
    table = ninety_nine_table(3, options={"markers": 1, "deck": {"10": 40}})
    for _ in range(9):
        actions.make_move(table=table, seat=to_move(table), move={"kind": "play", "card": 10})
    dealer = to_move(table)
    assert dealer == 2  # the deal passes left of seat 0; seat 1 lost its only marker and is out
    with pytest.raises(actions.NotNow):
        actions.make_move(table=table, seat=0, move={"kind": "deal"})
    dealt = actions.make_move(table=table, seat=dealer, move={"kind": "deal"})
    assert dealt.chance[0][0] == "deal"
    state = state_of(table)
    assert state["dealer"] == 2 and state["count"] == 0 and state["round"] == 2
    assert [len(hand) for hand in state["hands"]] == [3, 0, 3]
    assert Event.objects.filter(channel=table.channel, kind="moved").latest("id").data["move"]["chance"] == []
    while not Table.objects.get(pk=table.pk).is_over:
        actions.make_move(table=table, seat=to_move(table), move={"kind": "play", "card": 10})
    state = state_of(table)
    assert sorted(state["markers"]) == [0, 0, 1]
    result = table.loaded().result()
    assert result is not None and result.winners == (state["markers"].index(1),)


def test_a_whole_bot_game_is_played_to_a_winner_and_verifies_from_its_seed() -> None:
    table = play_out(ninety_nine_table(4, bots=["easy", "threshold", "strong", "threshold"], seed=7))
    assert table.is_over and table.revealed_seed == table.seed
    result = table.loaded().result()
    assert result is not None and len(result.winners) == 1
    assert sum(1 for markers in state_of(table)["markers"] if markers) == 1
    assert verify(table).verified


def test_a_quiet_phone_handed_to_a_bot_plays_on() -> None:
    table = ninety_nine_table(2, options={"markers": 1})
    seat = to_move(table)
    actions.hand_seat_to_bot(table=table, number=seat, level="threshold")
    from games.table.tasks import play_bot_move

    assert play_bot_move(table, waiting=False) is not None
    assert to_move(table) != seat
