"""The night's views, by visitor: phone.py (a player's phone), host.py (the host), screen.py (the
projector, the prizes, the night's stream); shared.py holds what they share."""
