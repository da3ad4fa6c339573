"""The Bunco night: its models, actions, taps (the hot path's SQL), renderers, forms, urls, tasks
and views split by visitor (views/phone.py, views/host.py, views/screen.py).

Part of the `games` app (app label `games`, tables `games_*`): games/models.py imports the
models from here so that Django finds them. The night never imports games.table.
"""
