"""The club domain: clubs, members, seasons, the hosting rotation, parties and RSVPs, standings.

The site's wiring (settings, urls, asgi, the clock, Celery, load_demo) lives apart in bunco_club/site/.
"""
