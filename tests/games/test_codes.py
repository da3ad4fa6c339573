"""The codes in the URLs of nights, game tables and tournaments (games/codes.py)."""

from __future__ import annotations

import pytest

from games import codes
from tournaments import models as tournament_models


@pytest.mark.parametrize("make", [codes.new_code, tournament_models.new_code])
def test_a_code_never_begins_with_a_dash_a_command_line_would_take_for_an_option(monkeypatch, make):
    drawn = iter(["-Xb3k9Qa", "_Yc4l0Rb", "Zd5m1Sc-"])
    monkeypatch.setattr(codes.secrets, "token_urlsafe", lambda length: next(drawn))

    assert make() == "Zd5m1Sc-"


def test_codes_are_eight_url_safe_characters_and_differ():
    drawn = {codes.new_code() for _ in range(500)}

    assert len(drawn) == 500
    assert all(len(code) == 8 and code[0].isalnum() for code in drawn)
