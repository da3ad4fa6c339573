"""`send_reminders`: send the clubs' due reminders (for cron).

    python manage.py send_reminders

RSVP nudges (the club's number of days before a party), the hosts' reminders, and substitute
invitations and swap requests whose email has not gone out. Each email is recorded as it is sent,
so running this as often as you like sends each one once (bunco_club.mail.send_due_reminders).
First, the seats of members who had not paid the last buy-in by a party's cutoff go to the sub list
where the club says "paid tonight keeps your seat next month" (bunco_club.actions.release_due_seats,
once each).
The in-process clock and Celery beat run the same function.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from bunco_club.actions import release_due_seats
from bunco_club.mail import send_due_reminders


class Command(BaseCommand):
    help = "Send the clubs' due reminders (each goes once, however often this runs)."

    def handle(self, *args: Any, **options: Any) -> None:
        released = release_due_seats()  # "paid tonight keeps your seat next month": first, so its subs are asked now
        if released:
            self.stdout.write(f"Offered {released} unpaid seat{'s' if released != 1 else ''} to the sub list.")
        sent = send_due_reminders()
        self.stdout.write(f"Sent {sent} reminder{'s' if sent != 1 else ''}.")
