"""A club's nights, tap by tap, in its export (issue 48; games/night/export.py registers them with
bunco_club/export.py): a club whose party night was played through the actions, exported and
imported into an installation that has never seen it, has that night back under new ids, every
tally (an undone one too), round, table, seat and prize, and so the same figures; its secrets are
new. A nights section whose rows contradict each other is refused whole."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.utils import timezone

from bunco_club.models import Club, Member, Party
from games.night import actions
from games.night.models import Night, Player, PrizeAward, Round, Seat, TableRound, Tally
from tests.builders import (
    NAMES,
    PLAYERS_ALL_NIGHT,
    exported,
    figures,
    fresh,
    imported,
    make_club,
    make_member,
    make_night,
    played_night,
    refused,
    resealed,
)

pytestmark = pytest.mark.django_db


def club_with_a_night() -> tuple[Club, Night]:
    """A club whose party night was played all 24 rounds by its members, a Bunco undone by the
    host, and its prizes handed out; and a second night of the club, seated, not started."""
    club = make_club()
    members = {name: make_member(club, name=name) for name in NAMES[:PLAYERS_ALL_NIGHT]}
    party = Party.objects.create(club=club, starts_at=timezone.now())
    night = played_night(PLAYERS_ALL_NIGHT, seed=7, club=club, party=party, members=members)
    bunco = night.tallies.filter(kind=Tally.Kind.BUNCO).order_by("pk").first()
    assert bunco is not None
    actions.undo_tally(night=night, table_number=bunco.table_round.number, tally_id=bunco.pk, by_host=True)
    actions.award_prizes(night)
    make_night(4, seed=3, club=club, names=["Yan", "Zoe", "Xia", "Wes"])
    return club, fresh(night)


def gone(club: Club) -> None:
    """The installation the file goes to has never seen the club nor its nights."""
    Night.objects.filter(club=club).delete()
    Club.objects.filter(pk=club.pk).delete()


def the_night_as_played(night: Night) -> dict[str, Any]:
    """Everything of the night by what it is (rounds by number, tables by number, players by
    name), never by id: its rows, its figures and its scoreboard."""
    tallies = night.tallies.order_by("pk")
    traveler = night.traveler()
    return {
        "night": (night.title, night.status, night.current_round, night.buy_in_cents, night.rules, night.prize_rules,
                  night.created_at, night.finished_at, night.party.starts_at if night.party else None),
        "players": sorted((player.name, player.is_ghost, player.member.name if player.member else None)
                          for player in night.players.select_related("member")),
        "rounds": list(night.rounds.order_by("number").values_list("number", "status", "started_at", "closed_at")),
        "tables": [(table.round.number, table.number, table.status, table.roll_off, table.winner, table.points_a,
                    table.points_b)
                   for table in TableRound.objects.filter(round__night=night).with_totals().select_related("round")
                   .order_by("round__number", "number")],
        "seats": list(Seat.objects.filter(round__night=night).order_by("round__number", "table_round__number",
                                                                        "position")
                      .values_list("round__number", "table_round__number", "position", "team", "player__name")),
        "tallies": [(t.table_round.round.number, t.table_round.number, t.kind, t.team, t.points, t.buncos, t.roll_off,
                     t.by_host, t.created_at, t.bunco_player.name if t.bunco_player else None,
                     t.entered_by.name if t.entered_by else None,
                     list(tallies).index(t.undoes) if t.undoes else None)
                    for t in tallies.select_related("table_round__round", "bunco_player", "entered_by", "undoes")],
        "awards": list(night.awards.values_list("prize", "player__name", "amount_cents", "roll_off", "order")),
        "figures": {name: (p.wins, p.losses, p.bunco_count) for name, p in figures(night).items()},
        "standings": [player.name for player in night.standings()],
        "traveler": traveler.name if traveler else None,
    }


def test_a_clubs_night_comes_back_tap_by_tap_under_new_ids(tmp_path):
    club, night = club_with_a_night()
    before = the_night_as_played(night)
    assert [t for t in before["tallies"] if t[2] == Tally.Kind.UNDO and t[11] is not None]  # the undone Bunco
    assert before["awards"] and any(buncos for _, _, buncos in before["figures"].values())
    old = {model: set(model.objects.values_list("pk", flat=True))
           for model in (Night, Player, Round, TableRound, Seat, Tally, PrizeAward)}
    secrets = (night.code, night.host_key, night.screen_token)
    text = exported(club)
    gone(club)

    copy = Club.objects.get(pk=imported(tmp_path, text)["club"])

    [again] = copy.nights.filter(party__isnull=False)
    assert the_night_as_played(again) == before
    assert copy.nights.count() == 2
    for model, pks in old.items():  # every row came in under a new id
        assert pks and model.objects.exists() and pks.isdisjoint(model.objects.values_list("pk", flat=True))
    assert again.party is not None and again.party.club == copy
    ada = again.players.get(name=NAMES[0])
    assert ada.member == copy.members.get(name=NAMES[0]) and isinstance(ada.member, Member)
    assert not {again.code, again.host_key, again.screen_token} & set(secrets)  # new links, new keys
    assert not again.players.exclude(claimed_by="").exists() and not again.tallies.exclude(key=None).exists()


def test_what_the_file_says_of_a_night_leaves_its_secrets_behind():
    club, night = club_with_a_night()
    night.players.filter(name=NAMES[0]).update(claimed_by="phone-token-of-ada")
    text = exported(club)
    for secret in (night.code, night.host_key, night.screen_token, "phone-token-of-ada"):
        assert secret not in text
    payload = json.loads(text)["payload"]
    assert len(payload["tallies"]) == Tally.objects.filter(night__club=club).count()
    assert "key" not in payload["tallies"][0] and "claimed_by" not in payload["players"][0]


def of_the_other_night(payload: dict, table: str) -> int:
    """The id of a row of `table` that belongs to the club's second night (seated, not played)."""
    other = payload["nights"][-1]["id"]
    rounds = {row["id"] for row in payload["rounds"] if row["night"] == other}
    if table == "table_rounds":
        return next(row["id"] for row in payload["table_rounds"] if row["round"] in rounds)
    if table == "rounds":
        return min(rounds)
    return next(row["id"] for row in payload[table] if row["night"] == other)


def undo_of(payload: dict) -> dict:
    return next(row for row in payload["tallies"] if row["undoes"] is not None)


def set_to(table: str, column: str, pick, of: str | None = None):
    """A change of the file: the first row of `table` (or the one `pick` finds) gets `column` of
    `of`'s row of the other night."""
    def change(payload: dict) -> None:
        row = pick(payload) if callable(pick) else payload[table][pick]
        row[column] = of_the_other_night(payload, of) if of else 999999
    return change


@pytest.mark.parametrize(("change", "message"), [
    (set_to("tallies", "table_round", 0, of="table_rounds"), "Tallies #1: its table_round.round.night and its night"),
    (set_to("seats", "player", 0), "Seats #1 refers to players 999999, which is not in the file"),
    (set_to("seats", "player", 0, of="players"), "Seats #1: its player.night and its round.night"),
    (set_to("seats", "round", 0, of="rounds"), "Seats #1: its table_round.round and its round"),
    (set_to("tallies", "bunco_player", lambda p: next(r for r in p["tallies"] if r["bunco_player"]), of="players"),
     "its bunco_player.night and its night"),
    (set_to("prize_awards", "player", 0, of="players"), "Prize awards #1: its player.night and its night"),
    (set_to("tallies", "undoes", undo_of), "refers to tallies 999999, which is not in the file"),
    (lambda p: undo_of(p).update(undoes=next(r["id"] for r in p["tallies"]
                                              if r["table_round"] != undo_of(p)["table_round"])),
     "its undoes.table_round and its table_round"),
    (lambda p: p["tallies"].append({**undo_of(p), "id": 999999}), "contradict"),  # one entry undone twice
    (lambda p: p["players"][0].update(member=999999), "Players #1 refers to members 999999"),
    (lambda p: p["tallies"][0].update(points=2.5), "points"),
    (lambda p: p["nights"][0].update(rules="official"), "rules"),
    (lambda p: p["nights"][0]["rules"].update(wipeout="yes"), "Nights #1: its house rules wipeout are not"),
    (lambda p: p["nights"][0]["rules"].update(tie_break="coin"), "tie_break must be"),
    (lambda p: p["nights"][0]["prize_rules"].update(split=True), "its house rules split are not"),
    (lambda p: p.pop("tallies"), "tallies are not a list"),
], ids=["a tally at a table of another night", "a seat with an unknown player", "a player of another night seated",
        "a seat at a table of another round", "a Bunco of a player of another night", "a prize to another night's player",
        "an undo of an entry not in the file", "an undo at another table", "an entry undone twice",
        "a player who is no member", "points not whole", "house rules that are not an object", "a yes-or-no rule in words",
        "an unknown tie-break", "an unknown prize rule", "no tallies"])
def test_a_nights_section_that_contradicts_itself_is_refused_and_nothing_is_stored(tmp_path, change, message):
    club, _night = club_with_a_night()
    text = resealed(exported(club), change)
    models = (Club, Member, Party, Night, Player, Round, TableRound, Seat, Tally, PrizeAward)
    before = [model.objects.count() for model in models]
    said = refused(tmp_path, text)
    assert said.startswith("Nothing was imported.") and message in said, said
    assert [model.objects.count() for model in models] == before


def test_a_file_of_version_1_has_no_nights_and_is_read_still(tmp_path):
    club, _night = club_with_a_night()
    night_lists = ("nights", "players", "rounds", "table_rounds", "seats", "tallies", "prize_awards")
    document = json.loads(resealed(exported(club), lambda p: [p.pop(name) for name in night_lists]))
    document["version"] = 1
    gone(club)
    made = imported(tmp_path, json.dumps(document))
    copy = Club.objects.get(pk=made["club"])
    assert made["members"] == PLAYERS_ALL_NIGHT and made["nights"] == 1  # the party's sheets came
    assert not copy.nights.exists() and not Night.objects.exists()
