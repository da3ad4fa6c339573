"""Views of a tournament: thin, typed, permission first, then an action, then a template.

Three kinds of visitor: the director (logged in, the tournament's own), a group's phone (opened
the group's signed QR link; its session remembers the group) and the projector (a read-only link
with an unguessable token). One URL per verb; an action's refusal reaches the response through
`refused(page)` (shared.py), the one place that answers this app's refusals.

By topic: new.py (the director's list and a new tournament), director.py (the dashboard and its
buttons), group_sheet.py (the director's page of one group), printouts.py (QR codes, the results
CSV), group.py (a group's phone), screen.py (the projector and the stream); contexts.py holds what
the pages show, shared.py the permission helpers and the one answer to a refusal."""
