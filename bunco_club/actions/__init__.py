"""Workflows of a club: each is atomic, logs an event on the club's channel and changes nothing
when it refuses (docs/DESIGN.md §3).

One module per part of a club's life: clubs (a club, its settings and hosts), roster (members, the
sub list, co-host pairs), schedule (seasons and parties), hosting (dates away, the rotation, swaps),
rsvps (answers, substitutes), treasury (the ledger: buy-ins, payouts, supplies, dues, corrections,
who sees the money), dishes (what each party's table needs and who brings it), results (a night's
sheets and whether it counts), box (the Bunco box's checklist and its hand-overs from host to
host); what they
share is in common.py. Errors are `ClubError`s (refusals.py), or the refusals every app shares
(live.refusals: NotNow, KeyReused), carrying the HTTP status a view should answer with and a message
for people. Emails (substitute invitations, swap requests, a party's change or cancellation) are
enqueued on commit (bunco_club.tasks: a worker when scaled, eagerly in the embedded default); the
tasks send them through bunco_club.mail, one floor below, which records each so it goes once, and
whose `send_due_reminders` sweeps up anything an enqueue lost.
"""

from __future__ import annotations

# The workflows, one module per part of a club's life, and the club's refusal (refusals.py), all
# named here so that `bunco_club.actions.<name>` is what callers and tests have always used.
from bunco_club.actions.box import BOX_KEY_REUSED, KIT_CHANGED, receive_box, set_box_kit
from bunco_club.actions.clubs import (
    CLUB_FIELDS,
    RESERVED_SLUGS,
    RULE_FIELDS,
    add_cohost,
    create_club,
    note_site_address,
    remove_cohost,
    update_club,
)
from bunco_club.actions.dishes import (
    DISH_KEY_REUSED,
    OFFER_STALE,
    Suggestion,
    add_dish_slot,
    answer_dish_offer,
    offer_dish,
    remove_dish_slot,
    send_dish_suggestion,
    set_dish_wanted,
    sign_up_for_dish,
    suggested_dishes,
    withdraw_from_dish,
)
from bunco_club.actions.hosting import answer_swap, assign_hosts, request_swap, set_blackouts
from bunco_club.actions.languages import (
    account_language,
    check_language,
    guess_member_language,
    set_account_language,
    set_member_language,
)
from bunco_club.actions.refusals import ClubError
from bunco_club.actions.results import NightSheet, record_night_played, record_night_results, set_night_counts
from bunco_club.actions.roster import (
    add_member,
    claim_member,
    edit_member,
    make_alternate,
    move_sub,
    pair_cohosts,
    promote,
    reinstate,
    reset_member_link,
    retire,
    split_cohosts,
)
from bunco_club.actions.rsvps import (
    RSVP_KEY_REUSED,
    SEAT_TAKEN,
    answer_rsvp,
    answer_sub_invitation,
    invite_another_sub,
)
from bunco_club.actions.schedule import add_party, cancel_party, create_season, edit_party, season_by_rule
from bunco_club.actions.treasury import (
    Payout,
    Writer,
    read_amount,
    record_buy_in,
    record_entry,
    record_night_payouts,
    release_due_seats,
    release_unpaid_seats,
    reverse_entry,
    set_money_rules,
)
from live.refusals import KeyReused, NotNow, Refusal

__all__ = [
    "BOX_KEY_REUSED", "KIT_CHANGED", "receive_box", "set_box_kit",
    "CLUB_FIELDS", "RESERVED_SLUGS", "RSVP_KEY_REUSED", "RULE_FIELDS", "SEAT_TAKEN", "ClubError", "KeyReused",
    "NightSheet", "NotNow", "Refusal", "add_cohost", "add_member", "add_party", "answer_rsvp",
    "answer_sub_invitation", "answer_swap", "assign_hosts", "cancel_party", "claim_member", "create_club",
    "create_season", "edit_member", "edit_party", "invite_another_sub", "make_alternate", "move_sub",
    "note_site_address", "pair_cohosts", "promote", "record_night_played", "record_night_results", "reinstate",
    "remove_cohost", "request_swap", "reset_member_link", "retire", "season_by_rule", "set_blackouts",
    "set_night_counts", "split_cohosts", "update_club",
    "account_language", "check_language", "guess_member_language", "set_account_language", "set_member_language",
    "DISH_KEY_REUSED", "OFFER_STALE", "Suggestion", "add_dish_slot", "answer_dish_offer", "offer_dish",
    "remove_dish_slot", "send_dish_suggestion", "set_dish_wanted", "sign_up_for_dish", "suggested_dishes",
    "withdraw_from_dish",
    "Payout", "Writer", "read_amount", "record_buy_in", "record_entry", "record_night_payouts", "release_due_seats",
    "release_unpaid_seats", "reverse_entry", "set_money_rules",
]
