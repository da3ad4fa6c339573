"""The treasury's ledger (issue 45): append-only entries, reversals as corrections, the balance as
the sum of its entries, buy-ins with one source of truth, the night's payouts as its prize
computation made them, and "paid tonight keeps your seat next month"."""

from __future__ import annotations

import datetime
import random
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone, translation
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from bunco_club import actions, money
from bunco_club.actions.treasury import payment_cutoff, unpaid_members
from bunco_club.models import RSVP, Club, LedgerEntry, LedgerRefused, Party, SubInvitation
from games.night.actions.ending import payouts
from games.night.models import Player, PrizeAward
from games.rules import prizes
from tests.builders import make_club, soon

pytestmark = pytest.mark.django_db


def written(club: Club, kind: str, amount: int, **fields) -> LedgerEntry:
    """An entry written by hand (a supply, dues, an adjustment): the action's answer, never a retry here."""
    entry = actions.record_entry(club, kind, amount, **fields)
    assert entry is not None
    return entry


def reversed_(entry: LedgerEntry) -> LedgerEntry:
    reversal = actions.reverse_entry(entry)
    assert reversal is not None
    return reversal


def club_with(name: str) -> Club:
    club = make_club(name=name)
    actions.add_member(club, name="Ada")
    return club


# --- The ledger's rules -------------------------------------------------------------------------

WRITES = st.tuples(st.sampled_from(["supply", "dues", "adjustment in", "adjustment out"]),
                   st.integers(min_value=1, max_value=money.MAX_UNITS * 100))
STEPS = st.lists(st.one_of(st.tuples(st.just("write"), WRITES), st.tuples(st.just("reverse"), st.integers(0, 50))),
                 max_size=14)
CLUBS = iter(range(1_000_000))


@hypothesis_settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
                     database=None)
@given(steps=STEPS)
def test_the_balance_is_always_the_sum_of_the_entries_over_any_writes_and_reversals(steps):
    club = club_with(f"Club {next(CLUBS)}")
    ada = club.members.get()
    standing: dict[int, int] = {}  # what the float holds, entry by entry, as this test keeps it
    for step, detail in steps:
        if step == "write":
            kind, amount = detail
            entry = actions.record_entry(club, kind.split()[0], amount, what="pencils", member=ada,
                                         money_in=not kind.endswith("out"))
            assert entry is not None
            standing[entry.pk] = entry.amount_cents
        else:
            entries = list(club.ledger.order_by("pk"))
            if not entries:
                continue
            entry = entries[detail % len(entries)]
            if entry.is_reversal or LedgerEntry.objects.filter(reverses=entry).exists():
                with pytest.raises(actions.NotNow):
                    actions.reverse_entry(entry)
            else:
                actions.reverse_entry(entry)
                del standing[entry.pk]
        assert club.ledger.balance() == sum(club.ledger.values_list("amount_cents", flat=True)) == sum(standing.values())
    assert club.ledger.live().count() == len(standing)


def test_a_correction_is_a_reversing_entry_that_names_what_it_reverses(club):
    supply = written(club, "supply", 1250, what="dice")
    reversal = reversed_(supply)
    assert (reversal.reverses, reversal.kind, reversal.amount_cents) == (supply, "supply", 1250)
    assert club.ledger.balance() == 0
    assert list(club.ledger.live()) == []


def test_a_reversal_of_a_reversal_is_refused_and_an_entry_is_reversed_once(club):
    reversal = reversed_(written(club, "supply", 500, what="pencils"))
    with pytest.raises(actions.NotNow, match="itself a correction"):
        actions.reverse_entry(reversal)
    assert reversal.reverses is not None
    with pytest.raises(actions.NotNow, match="reversed already"):
        actions.reverse_entry(reversal.reverses)
    assert club.ledger.count() == 2


def test_nothing_is_ever_updated_or_deleted_in_place(club):
    entry = written(club, "dues", 2000, member=club.members.get(name="Ada"))
    entry.amount_cents = 1
    with pytest.raises(LedgerRefused):
        entry.save()
    with pytest.raises(LedgerRefused):
        entry.delete()
    with pytest.raises(LedgerRefused):
        club.ledger.update(amount_cents=1)
    with pytest.raises(LedgerRefused):
        club.ledger.all().delete()
    assert LedgerEntry.objects.get(pk=entry.pk).amount_cents == 2000


def test_a_club_deleted_whole_takes_its_ledger_with_it(club):
    reversed_(written(club, "supply", 500, what="pencils"))
    Club.objects.filter(pk=club.pk).delete()
    assert not LedgerEntry.objects.exists()


def test_the_float_is_carried_from_party_to_party(club):
    first, second, third = (actions.add_party(club, starts_at=soon(days)) for days in (-60, -30, -1))
    ada, bea = club.members.get(name="Ada"), club.members.get(name="Bea")
    for party in (first, second):
        for member in (ada, bea):
            RSVP.objects.create(party=party, member=member, answer="yes")
    actions.record_buy_in(first, ada, "cash")
    actions.record_buy_in(first, bea, "owes")
    actions.record_night_payouts(first, [actions.Payout(name="Ada", prize="most_wins", amount_cents=300)])
    written(club, "supply", 150, what="pencils", party=second)
    actions.record_buy_in(second, ada, "cash")
    actions.record_buy_in(first, bea, "cash")  # last month's, paid late: last month's float
    ledger = club.ledger.all()
    assert [ledger.brought_to(party) for party in (first, second, third)] == [0, 700, 1050]
    assert ledger.balance() == 1050


# --- Amounts as people type them ----------------------------------------------------------------


@pytest.mark.parametrize(("typed", "cents"), [("5", 500), ("5.50", 550), (" 12.05 ", 1205), ("10000", 1_000_000)])
def test_an_amount_is_read_in_whole_cents(typed, cents):
    with translation.override("en"):
        assert actions.read_amount(typed) == cents


@pytest.mark.parametrize("typed", ["1e9", "-5", "5,00", "9" * 20, "²", "٣", "1.5", "5.", "1,000", "10000.01", "", "0",
                                   "0.00", "NaN", "5 .00", "$5"])
def test_a_bad_amount_is_refused_with_what_to_write(typed):
    with translation.override("en"), pytest.raises(actions.ClubError) as refused:
        actions.read_amount(typed)
    assert refused.value.status == 400
    assert refused.value.message.startswith(("Write", "An entry is"))


def test_spanish_readers_write_their_cents_after_a_comma():
    with translation.override("es"):
        assert actions.read_amount("5,00") == 500
        assert actions.read_amount("12,50") == 1250
        with pytest.raises(actions.ClubError, match="5,50"):
            actions.read_amount("5.00")


# --- Buy-ins: the ledger is their one source of truth ------------------------------------------


def state(party: Party, member) -> money.BuyInState:
    return LedgerEntry.objects.filter(party=party, member=member).buy_in_state()


def test_a_buy_in_paid_in_cash_puts_the_club_buy_in_into_the_float(club, party, member):
    assert actions.record_buy_in(party, member, "cash").is_paid
    assert club.ledger.balance() == club.buy_in_cents
    assert actions.record_buy_in(party, member, "cash") == state(party, member)  # the same again: nothing new
    assert club.ledger.count() == 1


def test_a_buy_in_owed_and_paid_later_keeps_both_entries_and_reads_paid_late(club, party, member):
    actions.record_buy_in(party, member, "owes")
    assert club.ledger.balance() == 0
    assert club.ledger.statement().people["Bea"].owes == 1
    settled = actions.record_buy_in(party, member, "other")
    assert settled.is_paid and settled.settled_late
    assert list(club.ledger.live().values_list("kind", flat=True)) == ["buy_in_owed", "buy_in_other"]
    assert club.ledger.balance() == club.buy_in_cents
    assert club.ledger.statement().people["Bea"].owes == 0


def test_changing_a_buy_in_reverses_what_stood(club, party, member):
    actions.record_buy_in(party, member, "cash")
    waived = actions.record_buy_in(party, member, "waived")
    assert waived.kind == "buy_in_waived" and waived.keeps_seat and not waived.is_paid
    assert club.ledger.balance() == 0
    assert club.ledger.filter(reverses__isnull=False).count() == 1
    assert actions.record_buy_in(party, member, "none") == money.BuyInState()
    assert club.ledger.count() == 4  # cash, its reversal, waived, its reversal: nothing deleted


def test_only_those_coming_pay_the_buy_in(party, member):
    actions.answer_rsvp(party, member, "no")
    with pytest.raises(actions.NotNow, match="only those coming pay"):
        actions.record_buy_in(party, member, "cash")


def test_a_member_coming_by_default_pays_the_buy_in_and_one_who_said_no_does_not(club, member):
    club.attending_by_default = True
    club.save()
    party = actions.add_party(club, starts_at=soon())  # nobody has answered: all coming by default
    assert actions.record_buy_in(party, member, "cash").is_paid
    alternate = club.members.alternates().first()
    with pytest.raises(actions.NotNow, match="only those coming pay"):  # an alternate is never coming by default
        actions.record_buy_in(party, alternate, "cash")
    cal = club.members.get(name="Cal")
    actions.answer_rsvp(party, cal, "no")
    with pytest.raises(actions.NotNow, match="only those coming pay"):
        actions.record_buy_in(party, cal, "cash")


def test_a_buy_in_retried_with_its_key_is_written_once_and_the_key_with_other_content_is_refused(club, party, member):
    actions.record_buy_in(party, member, "cash", key="k-1")
    actions.record_buy_in(party, member, "none")
    actions.record_buy_in(party, member, "cash", key="k-1")  # a phone's retry of the first tap
    assert not state(party, member).kind
    with pytest.raises(actions.KeyReused) as refused:
        actions.record_buy_in(party, member, "waived", key="k-1")
    assert refused.value.status == 409
    assert club.ledger.count() == 2


def test_an_entry_retried_with_its_key_is_written_once(club):
    assert actions.record_entry(club, "supply", 900, what="score pads", key="k-2") is not None
    assert actions.record_entry(club, "supply", 900, what="score pads", key="k-2") is None
    with pytest.raises(actions.KeyReused):
        actions.record_entry(club, "supply", 990, what="score pads", key="k-2")
    assert club.ledger.balance() == -900


# --- The night's payouts ----------------------------------------------------------------------


def awards_of(allocation: prizes.Allocation, members: dict[str, int]) -> list[PrizeAward]:
    """The night's PrizeAward rows for an allocation (unsaved: what `award_prizes` stores)."""
    return [PrizeAward(prize=award.prize, player=Player(name=award.name, member_id=members.get(award.name)),
                       amount_cents=award.amount,
                       roll_off=[list(map(list, throw)) for throw in allocation.roll_offs.get(award.prize, ())])
            for award in allocation.awards]


SHEETS = [prizes.Sheet("Ada", wins=14, losses=10, buncos=2), prizes.Sheet("Bea", wins=14, losses=10, buncos=2),
          prizes.Sheet("Cal", wins=12, losses=12, buncos=0), prizes.Sheet("Dot", wins=8, losses=16, buncos=1),
          prizes.Sheet("Guest Gwen", wins=8, losses=16, buncos=0)]


@pytest.mark.parametrize("split_ties", [True, False])
def test_a_nights_payouts_are_its_prize_computation_ties_included(club, split_ties):
    party = actions.add_party(club, starts_at=soon(-2))
    allocation = prizes.allocate_detailed(SHEETS, pot=2500, traveler="Cal", rng=random.Random(3),
                                          rules=prizes.PrizeRules(split_ties=split_ties))
    members = dict(club.members.values_list("name", "pk"))
    actions.record_night_payouts(party, payouts(awards_of(allocation, members)))
    written = sorted((entry.who, entry.prize, -entry.amount_cents, entry.tie_rule, entry.member_id)
                     for entry in party.ledger_entries.all())
    assert written == sorted(
        (award.name, award.prize, award.amount, _tie(allocation, award), members.get(award.name))
        for award in allocation.awards)
    assert club.ledger.balance() == -2500  # the whole pot went out
    rules = {entry.prize: entry.tie_rule for entry in party.ledger_entries.all()}
    # Ada and Bea tie for Most Buncos and Most Wins: shared, or rolled off with dice.
    assert rules["most_buncos"] == rules["most_wins"] == ("split" if split_ties else "roll_off")
    assert rules["traveling"] == "" and rules["draw"] == "drawn"


def _tie(allocation: prizes.Allocation, award: prizes.Award) -> str:
    if award.prize == "draw":
        return "drawn"
    if sum(other.prize == award.prize for other in allocation.awards) > 1:
        return "split"
    return "roll_off" if award.prize in allocation.roll_offs else ""


def test_a_night_reported_again_reverses_its_old_payouts_and_writes_the_new_ones(club):
    party = actions.add_party(club, starts_at=soon(-2))
    first = [actions.Payout(name="Ada", prize="most_wins", amount_cents=1500),
             actions.Payout(name="Bea", prize="draw", amount_cents=500, tie_rule="drawn")]
    actions.record_night_payouts(party, first)
    actions.record_night_payouts(party, first)  # reported again unchanged: nothing written
    assert party.ledger_entries.count() == 2
    corrected = [actions.Payout(name="Cal", prize="most_wins", amount_cents=1500),
                 actions.Payout(name="Bea", prize="draw", amount_cents=500, tie_rule="drawn")]
    actions.record_night_payouts(party, corrected)
    assert party.ledger_entries.count() == 6  # two, their two reversals, two anew
    assert sorted(party.ledger_entries.live().values_list("member__name", "amount_cents")) == [
        ("Bea", -500), ("Cal", -1500)]
    assert club.ledger.balance() == -2000


def test_a_party_night_played_through_reports_its_prizes_to_the_ledger(club):
    from games.night import actions as night_actions
    from tests.builders import fresh, play_rounds

    party = actions.add_party(club, starts_at=soon(-1))
    members = {member.name: member for member in club.members.all()}
    night = night_actions.start_night(names=list(members)[:8], rng=random.Random(5), club=club, party=party,
                                      members=members)
    play_rounds(night, random.Random(5), 24)
    awards = night_actions.award_prizes(fresh(night))
    assert sorted((award.player.name, award.prize, -award.amount_cents) for award in awards) == sorted(
        party.ledger_entries.values_list("member__name", "prize", "amount_cents"))
    assert party.ledger_entries.balance() == -fresh(night).pot_cents()


def test_a_party_night_reopened_and_decided_again_reports_its_new_payouts_in_place_of_the_old(club):
    from games.night import actions as night_actions
    from games.night.models import TableRound
    from tests.builders import fresh, played_night, tally

    party = actions.add_party(club, starts_at=soon(-1))
    members = {member.name: member for member in club.members.all()}
    night = played_night(8, seed=11, names=list(members)[:8], club=club, party=party, members=members)
    first = night_actions.award_prizes(night, rng=random.Random(1))
    night_actions.reopen_last_round(night)
    night = fresh(night)
    for number in range(2, night.round_obj().tables.count() + 1):
        tally(night, number, "B", 5)
        decided = night_actions.finish_turn(night=night, table_number=number)
        while decided.status == TableRound.Status.ROLL_OFF:
            tally(night, number, "A", 1)
            decided = night_actions.finish_roll_off(night=night, table_number=number)
    again = night_actions.award_prizes(fresh(night), rng=random.Random(2))
    standing = sorted(party.ledger_entries.live().values_list("member__name", "prize", "amount_cents", "tie_rule"))
    assert standing == sorted((award.player.name, award.prize, -award.amount_cents, tie)
                              for award, tie in zip(again, [p.tie_rule for p in payouts(again)], strict=True))
    assert party.ledger_entries.balance() == -fresh(night).pot_cents()  # the old payouts cancelled by their reversals
    changed = sorted((a.player.name, a.prize, a.amount_cents) for a in first) != sorted(
        (a.player.name, a.prize, a.amount_cents) for a in again)
    assert changed  # the night decided otherwise: its prizes moved
    assert party.ledger_entries.filter(reverses__isnull=False).count() == len(first)


# --- Who sees the money, and the seat rule ----------------------------------------------------


def test_a_club_has_one_treasurer_at_most(club):
    ada, bea = club.members.get(name="Ada"), club.members.get(name="Bea")
    actions.set_money_rules(club, visible_to="hosts", paid_keeps_seat=True, treasurer=ada)
    actions.set_money_rules(club, visible_to="hosts", paid_keeps_seat=True, treasurer=bea)
    assert list(club.members.filter(is_treasurer=True)) == [bea]
    with pytest.raises(actions.ClubError, match="who sees the money"):
        actions.set_money_rules(club, visible_to="everyone", paid_keeps_seat=False, treasurer=None)


def test_a_treasurer_writes_in_the_ledger_and_another_member_does_not(club):
    ada, bea = club.members.get(name="Ada"), club.members.get(name="Bea")
    actions.set_money_rules(club, visible_to="hosts", paid_keeps_seat=False, treasurer=ada)
    entry = written(club, "supply", 400, what="pencils", by=actions.Writer(member=ada))
    assert (entry.written_by_member, entry.written_by_name) == (ada, "Ada")
    with pytest.raises(actions.ClubError, match="hosts and its treasurer"):
        actions.record_entry(club, "supply", 400, what="pencils", by=actions.Writer(member=bea))


def last_party_and_next(club: Club) -> tuple[Party, Party]:
    """A party played three weeks ago that Ada, Bea, Cal and Dot came to, and the next one, which
    they all said yes to."""
    last = actions.add_party(club, starts_at=soon(-21))
    coming = actions.add_party(club, starts_at=soon(7))
    for name in ("Ada", "Bea", "Cal", "Dot"):
        member = club.members.get(name=name)
        RSVP.objects.create(party=last, member=member, answer="yes")
        actions.answer_rsvp(coming, member, "yes")
    return last, coming


def test_paid_tonight_keeps_your_seat_next_month(club):
    club.paid_keeps_seat = True
    club.save()
    last, coming = last_party_and_next(club)
    ada, bea, cal, dot = (club.members.get(name=name) for name in ("Ada", "Bea", "Cal", "Dot"))
    actions.record_buy_in(last, ada, "cash")
    actions.record_buy_in(last, bea, "owes")
    actions.record_buy_in(last, cal, "waived")
    with pytest.raises(actions.NotNow, match="until this party's answers are due"):
        actions.release_unpaid_seats(coming, now=coming.cutoff - datetime.timedelta(minutes=1))
    released = actions.release_unpaid_seats(coming, now=coming.cutoff)
    assert released == [bea, dot]
    answers = dict(coming.rsvps.values_list("member__name", "answer"))
    assert answers == {"Ada": "yes", "Bea": "no", "Cal": "yes", "Dot": "no"}
    coming.refresh_from_db()
    assert coming.open_seats == 2
    assert list(coming.sub_invitations.values_list("member__name", "status")) == [
        ("Sam", SubInvitation.Status.INVITED), ("Tia", SubInvitation.Status.INVITED)]
    assert actions.release_unpaid_seats(coming, now=coming.cutoff) == []  # once


def test_the_seats_are_offered_at_the_answers_cutoff_days_before_the_party_not_at_its_start(club):
    club.paid_keeps_seat = True
    club.answer_cutoff_hours = 72
    club.save()
    _, coming = last_party_and_next(club)
    assert payment_cutoff(coming) == coming.cutoff == coming.starts_at - datetime.timedelta(hours=72)
    three_days_before = coming.starts_at - datetime.timedelta(days=3)
    assert [member.name for member in actions.release_unpaid_seats(coming, now=three_days_before)] == [
        "Ada", "Bea", "Cal", "Dot"]


def test_the_sweep_offers_the_unpaid_seats_once_the_cutoff_has_passed_with_no_host_pressing_anything(club):
    club.paid_keeps_seat = True
    club.save()
    last, coming = last_party_and_next(club)
    for name in ("Ada", "Cal", "Dot"):
        actions.record_buy_in(last, club.members.get(name=name), "cash")
    bea = club.members.get(name="Bea")
    assert actions.release_due_seats(now=coming.cutoff - datetime.timedelta(minutes=1)) == 0
    assert RSVP.objects.get(party=coming, member=bea).answer == "yes"
    assert actions.release_due_seats(now=coming.cutoff) == 1
    assert RSVP.objects.get(party=coming, member=bea).answer == "no"
    assert list(coming.sub_invitations.values_list("member__name", flat=True)) == ["Sam"]
    assert actions.release_due_seats(now=coming.cutoff + datetime.timedelta(minutes=15)) == 0  # the next sweep


def test_the_sweep_gives_a_seat_away_once_even_when_its_member_says_yes_again(club):
    club.paid_keeps_seat = True
    club.save()
    last, coming = last_party_and_next(club)
    bea = club.members.get(name="Bea")
    assert actions.release_due_seats(now=coming.cutoff) == 4
    actions.answer_rsvp(coming, bea, "yes")  # she takes her seat back (no sub took it yet)
    assert actions.release_due_seats(now=coming.cutoff + datetime.timedelta(minutes=15)) == 0
    assert RSVP.objects.get(party=coming, member=bea).answer == "yes"
    assert bea in actions.release_unpaid_seats(coming, now=coming.cutoff)  # the host's "now" still can


def test_the_sweep_leaves_the_clubs_without_the_rule_and_the_parties_cancelled(club):
    last, coming = last_party_and_next(club)
    assert actions.release_due_seats(now=coming.cutoff) == 0
    club.paid_keeps_seat = True
    club.save()
    actions.cancel_party(coming)
    assert actions.release_due_seats(now=coming.cutoff) == 0


def test_members_coming_by_default_keep_their_seat_by_paying_as_those_who_said_yes(club):
    club.paid_keeps_seat = True
    club.attending_by_default = True
    club.save()
    last = actions.add_party(club, starts_at=soon(-21))
    coming = actions.add_party(club, starts_at=soon(7))
    regulars = list(club.members.regulars().order_by("name"))
    assert not RSVP.objects.filter(party__in=[last, coming]).exists()  # nobody answered: all count as coming
    for member in regulars[1:]:
        actions.record_buy_in(last, member, "cash")
    ada = regulars[0]
    assert unpaid_members(coming) == [ada]
    assert actions.release_due_seats(now=coming.cutoff) == 1
    assert RSVP.objects.get(party=coming, member=ada).answer == "no"
    assert ada.name not in coming.coming_names()
    assert list(coming.sub_invitations.values_list("member__name", flat=True)) == ["Sam"]


def test_the_seats_sweep_runs_beside_the_reminders(settings):
    from bunco_club import sweeps

    assert settings.CELERY_BEAT_SCHEDULE["release-unpaid-seats"] == {
        "task": "bunco_club.sweeps.release_due_seats",
        "schedule": settings.CELERY_BEAT_SCHEDULE["send-club-reminders"]["schedule"]}
    assert sweeps.release_due_seats.name == "bunco_club.sweeps.release_due_seats"
    assert "bunco_club.sweeps" in settings.CELERY_IMPORTS
    assert "bunco_club.sweeps.release_due_seats_when_due" in settings.CLOCK_TICKERS or not settings.IN_PROCESS_CLOCK


def test_cron_offers_the_unpaid_seats_with_the_reminders(club):
    club.paid_keeps_seat = True
    club.save()
    last = actions.add_party(club, starts_at=soon(-21))
    coming = actions.add_party(club, starts_at=timezone.now() + datetime.timedelta(days=1))  # its cutoff has passed
    bea = club.members.get(name="Bea")
    RSVP.objects.create(party=last, member=bea, answer="yes")
    actions.answer_rsvp(coming, bea, "yes")
    out = StringIO()
    call_command("send_reminders", stdout=out)
    assert "Offered 1 unpaid seat to the sub list." in out.getvalue()
    assert RSVP.objects.get(party=coming, member=bea).answer == "no"


def test_a_buy_in_paid_after_the_cutoff_does_not_keep_the_seat(club):
    club.paid_keeps_seat = True
    club.save()
    last, coming = last_party_and_next(club)
    bea = club.members.get(name="Bea")
    LedgerEntry.objects.create(club=club, party=last, member=bea, kind="buy_in_cash", amount_cents=500,
                               written_at=coming.starts_at + datetime.timedelta(minutes=5))
    assert bea in actions.release_unpaid_seats(coming, now=coming.starts_at + datetime.timedelta(minutes=10))


def test_a_buy_in_paid_before_the_cutoff_keeps_the_seat(club):
    club.paid_keeps_seat = True
    club.save()
    last, coming = last_party_and_next(club)
    bea = club.members.get(name="Bea")
    LedgerEntry.objects.create(club=club, party=last, member=bea, kind="buy_in_cash", amount_cents=500,
                               written_at=coming.cutoff - datetime.timedelta(minutes=5))
    assert bea not in actions.release_unpaid_seats(coming, now=coming.cutoff + datetime.timedelta(minutes=10))


def test_the_seat_rule_is_the_clubs_choice(club):
    _, coming = last_party_and_next(club)
    with pytest.raises(actions.NotNow, match="is off"):
        actions.release_unpaid_seats(coming, now=coming.starts_at)
