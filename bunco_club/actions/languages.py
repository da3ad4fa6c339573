"""Languages: the one a member reads their page, mails and calendar in, and a club's (docs/I18N.md,
"Who sees which language")."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from bunco_club.actions.refusals import ClubError
from bunco_club.models import Member


def check_language(language: object) -> str:
    """A language the site speaks (settings.LANGUAGES), else the refusal saying which."""
    if language not in dict(settings.LANGUAGES):
        raise ClubError(_("Choose English or Spanish."))
    return str(language)


@transaction.atomic
def set_member_language(member: Member, language: str) -> Member:
    """The member chose the language of their page, mails and calendar."""
    language = check_language(language)
    Member.objects.filter(pk=member.pk).update(language=language)
    member.language = language
    return member


@transaction.atomic
def guess_member_language(member: Member, language: str) -> bool:
    """Their link is opened for the first time: the phone's language (one the site speaks) becomes the
    member's until they choose; True if it was stored now (a second phone at once finds it taken)."""
    if member.language or language not in dict(settings.LANGUAGES):
        return False
    stored = bool(Member.objects.filter(pk=member.pk, language="").update(language=language))
    if stored:
        member.language = language
    return stored
