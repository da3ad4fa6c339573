"""Pure game rules: no Django, no database, no global random.

Chance always comes from outside: dice and shuffles are made by `dice.py` from an injected
`random.Random`, and every engine takes the dice it is given.
"""
