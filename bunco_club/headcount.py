"""Who is coming to a party and what the night would need (seats come in fours): read by the
club's pages, the host's dashboard and the host's reminder email (bunco_club.mail), so it sits below
the actions that the mail tasks must not import (docs/DESIGN.md §2: no import circles)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext, ngettext

from bunco_club.models import Member, Party, SubInvitation
from games.rules import bunco


@dataclass(frozen=True)
class Headcount:
    """Who is coming to a party and what the night would need: seats come in fours."""

    coming: list[Member]  # the yes answers and those coming by default
    maybe: list[Member]
    declined: list[Member]
    waiting: list[Member]  # regulars who haven't answered (and are not counted as coming)
    subs_invited: list[Member]
    open_seats: int
    # Of `coming`, the regulars counted by default, without an answer (Club.attending_by_default).
    by_default: list[Member] = field(default_factory=list)
    # The "no"s after the cutoff from members counted as coming: for the hosts' eyes alone.
    late: list[Member] = field(default_factory=list)

    @property
    def tables(self) -> int:
        return bunco.tables_and_ghosts(len(self.coming))[0]  # the engine's one headcount

    @property
    def ghosts(self) -> int:
        return bunco.tables_and_ghosts(len(self.coming))[1]

    @property
    def nobody_coming(self) -> bool:
        """No yes yet: no table, no ghost, nothing to get ready (issue 29, C11: "0 coming, 0 ghosts
        · 0 tables of four" said it in figures nobody should have to read)."""
        return not self.coming

    def summary(self) -> str:
        """"9 coming, 2 subs invited, 3 ghosts"; "Nobody coming yet" before the first yes."""
        coming = len(self.coming)
        parts = [gettext("Nobody coming yet") if self.nobody_coming else
                 ngettext("%(count)s coming", "%(count)s coming", coming) % {"count": coming}]
        if self.subs_invited:
            subs = len(self.subs_invited)
            parts.append(ngettext("%(count)s sub invited", "%(count)s subs invited", subs) % {"count": subs})
        if not self.nobody_coming:
            parts.append(ngettext("%(count)s ghost", "%(count)s ghosts", self.ghosts) % {"count": self.ghosts})
        return ", ".join(parts)


def headcount(party: Party) -> Headcount:
    """Who is coming (`Party.counts_as_coming`: a yes, or no answer where the club counts its
    members by default), who may, who can't, who hasn't answered, and the subs invited."""
    rsvps = list(party.rsvps.all())
    answers = {rsvp.member_id: rsvp.answer for rsvp in rsvps}
    late_ids = {rsvp.member_id for rsvp in rsvps if rsvp.cancelled_late}
    members = list(party.club.members.filter(is_active=True))
    by_answer: dict[str, list[Member]] = {"yes": [], "maybe": [], "no": []}
    waiting, by_default = [], []
    for member in members:
        answer = answers.get(member.pk)
        if answer in by_answer:
            by_answer[answer].append(member)
        elif party.counts_as_coming(member, None):
            by_default.append(member)
        elif not member.is_alternate:
            waiting.append(member)
    invited = [invitation.member for invitation in
               party.sub_invitations.filter(status=SubInvitation.Status.INVITED).select_related("member")]
    counted = {member.pk for member in [*by_answer["yes"], *by_default]}
    coming = [member for member in members if member.pk in counted]  # the roster's order
    return Headcount(coming=coming, maybe=by_answer["maybe"], declined=by_answer["no"], waiting=waiting,
                     subs_invited=invited, open_seats=party.open_seats, by_default=by_default,
                     late=[member for member in members if member.pk in late_ids])
