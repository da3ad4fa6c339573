"""The club domain: clubs, their members and alternates, and their parties.

This app never imports `games` or `tournaments` models (DESIGN.md §2): a night may belong to a
party, not the other way round.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Club(models.Model):
    name = models.CharField(max_length=80)
    slug = models.SlugField(unique=True)
    hosts = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="hosted_clubs", blank=True)
    buy_in_cents = models.PositiveIntegerField(default=500)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def is_hosted_by(self, user: object) -> bool:
        return bool(getattr(user, "is_authenticated", False)) and self.hosts.filter(pk=user.pk).exists()


class MemberQuerySet(models.QuerySet["Member"]):
    def regulars(self) -> MemberQuerySet:
        return self.filter(is_alternate=False, is_active=True)

    def alternates(self) -> MemberQuerySet:
        return self.filter(is_alternate=True, is_active=True)


class Member(models.Model):
    """A person on a club's roster; alternates ("the sub list") fill in when a regular cancels."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="members")
    name = models.CharField(max_length=60)
    email = models.EmailField(blank=True)
    phone = models.CharField(max_length=30, blank=True)
    is_alternate = models.BooleanField(default=False)
    is_active = models.BooleanField(default=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    objects = MemberQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["club", "name"], name="member_unique_name_in_club")]

    def __str__(self) -> str:
        return self.name


class PartyQuerySet(models.QuerySet["Party"]):
    def upcoming(self) -> PartyQuerySet:
        return self.filter(starts_at__gte=timezone.now() - timezone.timedelta(hours=12)).order_by("starts_at")


class Party(models.Model):
    """One monthly get-together at a member's home."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="parties")
    starts_at = models.DateTimeField()
    host = models.ForeignKey(Member, null=True, blank=True, on_delete=models.SET_NULL, related_name="hosted_parties")
    location = models.CharField(max_length=200, blank=True)
    notes = models.TextField(blank=True)

    objects = PartyQuerySet.as_manager()

    class Meta:
        ordering = ["starts_at"]
        verbose_name_plural = "parties"

    def __str__(self) -> str:
        return f"{self.club} — {timezone.localtime(self.starts_at):%a %d %b %Y}"


class RSVP(models.Model):
    class Answer(models.TextChoices):
        YES = "yes", "Coming"
        NO = "no", "Can't come"
        MAYBE = "maybe", "Maybe"

    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="rsvps")
    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="rsvps")
    answer = models.CharField(max_length=5, choices=Answer.choices)
    answered_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["party", "member"], name="rsvp_one_per_member")]

    def __str__(self) -> str:
        return f"{self.member}: {self.get_answer_display()}"
