"""Languages: the one a member reads their page, mails and calendar in, and a club's (docs/I18N.md,
"Who sees which language")."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext as _

from bunco_club.actions.refusals import ClubError
from bunco_club.models import AccountLanguage, Member


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


def set_account_language(user: AbstractBaseUser, language: str) -> None:
    """A signed-in host or director chose the language they read the site in."""
    AccountLanguage.objects.update_or_create(user_id=user.pk, defaults={"language": check_language(language)})


def account_language(user: AbstractBaseUser) -> str | None:
    """The language a host or director chose, if they did (one the site still speaks)."""
    chosen = AccountLanguage.objects.filter(user_id=user.pk).values_list("language", flat=True).first()
    return chosen if chosen in dict(settings.LANGUAGES) else None
