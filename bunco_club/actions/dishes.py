"""A party's dishes (issue 45): the slots its host sets (appetizer, dessert, drinks… each with how
many), members signing up and withdrawing from their personal link, handing a dish to another
member or trading one, and the fair rotation's suggestion of who brings what is still missing
(bunco_club.rotation.suggest_dishes, pure), which the host may send as an offer.

Every request a phone may retry carries an idempotency key (`DishRequest`): the same key for the
same thing is a retry and changes nothing; the same key for anything else is refused (KeyReused).
An offer whose dishes changed hands since it was made is stale: answering it changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from bunco_club.actions.common import enqueue_mail, locked_party, log_change
from bunco_club.actions.refusals import ClubError
from bunco_club.models import (
    DISH_NAME_MAX,
    DISH_WANTED_MAX,
    RSVP,
    DishOffer,
    DishRequest,
    DishSignup,
    DishSlot,
    Member,
    Party,
)
from bunco_club.rotation import suggest_dishes
from live.refusals import KeyReused, NotNow
from live.text import has_control_characters, well_formed_key

DISH_KEY_REUSED = gettext_lazy("This request carries the key of an earlier one with other content, so it was not "
                               "taken. Reload the page and try again.")
OFFER_STALE = gettext_lazy("This offer no longer stands: the dishes have changed hands since. Nothing was changed.")


# --- Keys and checks ------------------------------------------------------------------------------


def _is_retry(sender: str, key: str, what: str) -> bool:
    """Whether this request was taken already with this key; refused when the key came with another."""
    if not isinstance(key, str) or not well_formed_key(key):
        raise ClubError(_("This request's key is not valid: reload the page and try again."))
    sent = DishRequest.objects.filter(sender=sender, key=key).first()
    if sent is None:
        return False
    if sent.what != what:
        raise KeyReused(str(DISH_KEY_REUSED))
    return True


def _taken(sender: str, key: str, what: str) -> None:
    DishRequest.objects.create(sender=sender, key=key, what=what)


def _open(party: Party) -> None:
    if party.is_cancelled:
        raise NotNow(_("This party is cancelled: there is nothing to bring."))
    if party.is_past:
        raise NotNow(_("This party is over: its dishes can't change any more."))


def _of_club(party: Party, member: Member) -> None:
    if member.club_id != party.club_id or not member.is_active:
        raise ClubError(_("Only the club's members bring dishes to its parties."))


def _said_no(party: Party, member: Member) -> bool:
    return RSVP.objects.filter(party=party, member=member, answer=RSVP.Answer.NO).exists()


def _clean_dish_name(raw: str) -> str:
    name = " ".join(str(raw).split())
    if not name:
        raise ClubError(_("Name the dish, like appetizer, dessert or drinks."))
    if len(name) > DISH_NAME_MAX or has_control_characters(name):
        raise ClubError(_("A dish's name is %(most)s letters at most, without control characters.")
                        % {"most": DISH_NAME_MAX})
    return name


def _clean_wanted(wanted: int, *, least: int = 1) -> int:
    if isinstance(wanted, bool) or not isinstance(wanted, int) or not least <= wanted <= DISH_WANTED_MAX:
        raise ClubError(_("Ask for %(least)s to %(most)s of a dish.") % {"least": least, "most": DISH_WANTED_MAX})
    return wanted


def _changed(party: Party) -> None:
    log_change(party.club_id, "dishes", party=party.pk)


# --- The host's slots ---------------------------------------------------------------------------------


@transaction.atomic
def add_dish_slot(party: Party, name: str, wanted: int = 1) -> DishSlot:
    """The host asks for a dish ("dessert") and how many of it."""
    clean, count = _clean_dish_name(name), _clean_wanted(wanted)
    party = locked_party(party)
    _open(party)
    if party.dish_slots.filter(name__iexact=clean).exists():
        raise ClubError(_("This party asks for %(dish)s already: change how many instead.") % {"dish": clean})
    slot = DishSlot.objects.create(party=party, name=clean, wanted=count)
    _changed(party)
    return slot


@transaction.atomic
def set_dish_wanted(slot: DishSlot, wanted: int) -> DishSlot:
    """The host changes how many of a dish the party wants (never fewer than are signed up)."""
    party = locked_party(slot.party)
    _open(party)
    slot = DishSlot.objects.get(pk=slot.pk)
    taken = slot.taken()
    count = _clean_wanted(wanted)
    if count < taken:
        raise ClubError(ngettext("%(taken)s member brings %(dish)s already: ask for %(taken)s at least.",
                                 "%(taken)s members bring %(dish)s already: ask for %(taken)s at least.", taken)
                        % {"taken": taken, "dish": slot.name})
    slot.wanted = count
    slot.save(update_fields=["wanted"])
    _changed(party)
    return slot


@transaction.atomic
def remove_dish_slot(slot: DishSlot) -> None:
    """The host no longer asks for a dish nobody has signed up for."""
    party = locked_party(slot.party)
    _open(party)
    if slot.signups.exists():
        raise ClubError(_("Members bring %(dish)s already: a dish is removed only when nobody brings it.")
                        % {"dish": slot.name})
    slot.delete()
    _changed(party)


# --- Members signing up, withdrawing, handing over and trading ------------------------------------------


@transaction.atomic
def sign_up_for_dish(slot: DishSlot, member: Member, *, key: str) -> DishSignup:
    """A member brings one of a slot's dishes (while the host wants more of it). A retry changes
    nothing (and is told so if the dish was withdrawn since)."""
    sender = f"member:{member.pk}"
    party = locked_party(slot.party)
    if _is_retry(sender, key, f"signup:{slot.pk}"):
        taken = DishSignup.objects.filter(slot=slot, member=member).first()
        if taken is None:
            raise NotNow(_("You don't bring this dish any more."))
        return taken
    _open(party)
    _of_club(party, member)
    if _said_no(party, member):
        raise NotNow(_("You said you can't come to this party: say yes first, then pick a dish."))
    slot = DishSlot.objects.get(pk=slot.pk)
    if slot.signups.filter(member=member).exists():
        raise NotNow(_("You bring %(dish)s already.") % {"dish": slot.name})
    if slot.places_left() == 0:
        raise NotNow(_("Enough members bring %(dish)s already: pick another dish.") % {"dish": slot.name})
    signup = DishSignup.objects.create(slot=slot, member=member)
    _taken(sender, key, f"signup:{slot.pk}")
    _changed(party)
    return signup


@transaction.atomic
def withdraw_from_dish(member: Member, signup_pk: int, *, key: str) -> None:
    """A member no longer brings a dish (their sign-up `signup_pk`): its place is open again, and
    offers of it no longer stand. A retry changes nothing (the sign-up is gone by then)."""
    sender = f"member:{member.pk}"
    if _is_retry(sender, key, f"withdraw:{signup_pk}"):
        return
    signup = DishSignup.objects.select_related("slot__party").filter(pk=signup_pk, member=member).first()
    if signup is None:
        raise NotNow(_("You don't bring this dish any more."))
    party = locked_party(signup.slot.party)
    _open(party)
    if not DishSignup.objects.filter(pk=signup_pk, member=member).exists():
        raise NotNow(_("You don't bring this dish any more."))
    _taken(sender, key, f"withdraw:{signup_pk}")
    signup.delete()
    _changed(party)


@transaction.atomic
def offer_dish(signup: DishSignup, by: Member, to: Member, *, key: str,
               take: DishSignup | None = None) -> DishOffer:
    """`by` offers the dish they bring to `to`: handed over (`take` None) or traded for `to`'s
    dish `take` at the same party. `to` answers from their link; nothing moves until they accept. A retry
    changes nothing."""
    sender = f"member:{by.pk}"
    what = f"offer:{signup.pk}:{to.pk}:{take.pk if take else ''}"
    party = locked_party(signup.slot.party)
    if _is_retry(sender, key, what):
        return DishOffer.objects.filter(by=by, to=to, kind__in=[DishOffer.Kind.GIVE, DishOffer.Kind.TRADE]
                                        ).latest("pk")
    _open(party)
    _of_club(party, to)
    if signup.member_id != by.pk:
        raise NotNow(_("You don't bring this dish any more."))
    if to.pk == by.pk:
        raise ClubError(_("Pick another member to give or trade your dish with."))
    if take is None:
        if _said_no(party, to):
            raise NotNow(_("%(name)s can't come to this party: pick someone who is coming.") % {"name": to.name})
        if signup.slot.signups.filter(member=to).exists():
            raise NotNow(_("%(name)s brings %(dish)s already.") % {"name": to.name, "dish": signup.slot.name})
    elif take.member_id != to.pk or take.slot.party_id != party.pk or take.slot_id == signup.slot_id:
        raise ClubError(_("Pick a dish of another member at this party to trade for."))
    kind = DishOffer.Kind.TRADE if take is not None else DishOffer.Kind.GIVE
    offer = DishOffer.objects.create(party=party, kind=kind, slot=signup.slot, to=to, by=by, give=signup, take=take)
    _taken(sender, key, what)
    enqueue_mail("send_dish_offer", offer.pk)
    _changed(party)
    return offer


def _accept(offer: DishOffer) -> None:
    if offer.kind == DishOffer.Kind.SUGGESTED:
        DishSignup.objects.create(slot=offer.slot, member=offer.to)
        return
    assert offer.give is not None
    if offer.take is not None:  # a trade: each takes the other's dish
        DishSignup.objects.filter(pk=offer.take.pk).update(member=offer.by_id)
    DishSignup.objects.filter(pk=offer.give.pk).update(member=offer.to_id)


@transaction.atomic
def answer_dish_offer(offer: DishOffer, member: Member, *, accept: bool, key: str) -> DishOffer:
    """The member asked accepts (the dishes change hands) or declines. A stale offer changes nothing."""
    sender = f"member:{member.pk}"
    what = f"{'accept' if accept else 'decline'}:{offer.pk}"
    party = locked_party(offer.party)
    if _is_retry(sender, key, what):
        return DishOffer.objects.get(pk=offer.pk)
    offer = DishOffer.objects.select_related("slot", "give", "take").get(pk=offer.pk)
    if offer.to_id != member.pk:
        raise ClubError(_("This offer was made to someone else."))
    _open(party)
    if offer.status != DishOffer.Status.PENDING:
        raise NotNow(_("You've answered this offer already."))
    if accept and not offer.stands():
        raise NotNow(str(OFFER_STALE))
    if accept:
        _accept(offer)
    offer.status = DishOffer.Status.ACCEPTED if accept else DishOffer.Status.DECLINED
    offer.answered_at = timezone.now()
    offer.save(update_fields=["status", "answered_at"])
    _taken(sender, key, what)
    _changed(party)
    return offer


# --- The rotation's suggestion --------------------------------------------------------------------------


@dataclass(frozen=True)
class Suggestion:
    """Who the fair rotation suggests bring one of a slot's missing dishes."""

    slot: DishSlot
    member: Member


def suggested_dishes(party: Party) -> list[Suggestion]:
    """The fair rotation's suggestion for the dishes still missing (none asked for yet, nobody
    offered them): fewest dishes brought first, skipping those not coming and those who bring or
    are offered something already, then roster order (regulars, then the sub list in its order).
    Empty before `Party.dishes_suggested`."""
    if not party.dishes_suggested():
        return []
    slots = list(party.dish_slots.all())
    pending = DishOffer.objects.filter(party=party, status=DishOffer.Status.PENDING)
    offered = {slot.pk: 0 for slot in slots}
    for slot_id in pending.filter(kind=DishOffer.Kind.SUGGESTED).values_list("slot_id", flat=True):
        offered[slot_id] = offered.get(slot_id, 0) + 1
    places = [slot for slot in slots for _ in range(max(0, slot.places_left() - offered[slot.pk]))]
    if not places:
        return []
    members = party.club.members.filter(is_active=True)
    roster = [*members.regulars().order_by("name"), *members.alternates()]
    coming = {member.pk for member in party.coming_members()}
    busy = {*DishSignup.objects.filter(slot__party=party).values_list("member_id", flat=True),
            *pending.values_list("to_id", flat=True)}
    names = {member.name: member for member in roster}
    plan = suggest_dishes([str(slot.pk) for slot in places], list(names),
                          turns=DishSignup.objects.brought().filter(member__in=roster).turns(),
                          not_coming=[member.name for member in roster if member.pk not in coming],
                          busy=[member.name for member in roster if member.pk in busy])
    return [Suggestion(slot=slot, member=names[name]) for slot, name in zip(places, plan, strict=True) if name]


@transaction.atomic
def send_dish_suggestion(slot: DishSlot, member: Member, *, key: str, host_id: int) -> DishOffer:
    """The host sends a suggestion (the rotation's, or their own pick) as an offer the member
    accepts from their link. A retry changes nothing."""
    sender = f"host:{host_id}"
    what = f"suggest:{slot.pk}:{member.pk}"
    party = locked_party(slot.party)
    if _is_retry(sender, key, what):
        return DishOffer.objects.filter(slot=slot, to=member, kind=DishOffer.Kind.SUGGESTED).latest("pk")
    _open(party)
    _of_club(party, member)
    slot = DishSlot.objects.get(pk=slot.pk)
    if slot.signups.filter(member=member).exists():
        raise NotNow(_("%(name)s brings %(dish)s already.") % {"name": member.name, "dish": slot.name})
    if slot.places_left() == 0:
        raise NotNow(_("Enough members bring %(dish)s already.") % {"dish": slot.name})
    if DishOffer.objects.filter(slot=slot, to=member, status=DishOffer.Status.PENDING).exists():
        raise NotNow(_("%(name)s has been asked for %(dish)s already.") % {"name": member.name, "dish": slot.name})
    offer = DishOffer.objects.create(party=party, kind=DishOffer.Kind.SUGGESTED, slot=slot, to=member)
    _taken(sender, key, what)
    enqueue_mail("send_dish_offer", offer.pk)
    _changed(party)
    return offer
