"""The chance of a game table, version 2 (docs/FAIRNESS.md): games/rules/dice.py reproduces
every test vector of that page, which outside checks implement on their own and compare."""

from __future__ import annotations

import hashlib

import pytest

from games.rules import dice
from games.rules.dice import ChanceStream

SEED = hashlib.sha256(b"bunco").hexdigest()
CODE = "TEST"
FILL_OR_BUST_STARTING_ORDER = (
    ["BONUS 300"] * 12 + ["BONUS 400"] * 10 + ["BONUS 500"] * 8 + ["NO DICE"] * 8 + ["FILL 1000"] * 6
    + ["MUST BUST"] * 4 + ["VENGEANCE 2500"] * 4 + ["DOUBLE TROUBLE"] * 2
)
NINETY_NINE_STARTING_ORDER = [
    card for card in ("1", "2", "3", "4", "5", "6", "7", "8", "10", "minus 10", "hold", "reverse", "99")
    for _ in range(4)
]


def test_the_vectors_seed_and_its_commitment() -> None:
    assert SEED == "56a0fbc90b238f126c6722d476c70a9d7dd67a6d8f648e5da981890a0ab2c0f8"
    assert dice.commitment_of(SEED) == "5fe021bc44b8eb307a04f0b415103623f42c457d09c60322c2fea5914a8d54b6"


def test_a_new_server_seed_is_64_lowercase_hex_characters_and_never_the_same_twice() -> None:
    seeds = {dice.new_server_seed() for _ in range(20)}
    assert len(seeds) == 20
    assert all(len(seed) == 64 and seed == seed.lower() and int(seed, 16) >= 0 for seed in seeds)


def test_step_1_with_a_contribution_gives_the_twelve_dice_of_the_vectors() -> None:
    stream = ChanceStream(SEED, CODE, 1, "0123456789abcdef0123456789abcdef")
    assert [stream.die() for _ in range(12)] == [4, 5, 2, 2, 2, 5, 5, 5, 6, 4, 6, 5]


def test_a_roll_of_the_engines_reads_the_same_dice_from_the_stream() -> None:
    stream = ChanceStream(SEED, CODE, 1, "0123456789abcdef0123456789abcdef")
    assert dice.roll(stream, 6) + dice.roll(stream, 6) == [4, 5, 2, 2, 2, 5, 5, 5, 6, 4, 6, 5]


def test_step_2_without_a_contribution_gives_the_below_values_of_the_vectors() -> None:
    stream = ChanceStream(SEED, CODE, 2, "")
    assert [stream.below(k) for k in (6, 54, 52, 2, 1_000_000)] == [1, 18, 10, 1, 328628]


def test_step_0_shuffles_the_fill_or_bust_deck_then_rolls_the_start_as_the_vectors_say() -> None:
    stream = ChanceStream(SEED, CODE, 0, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
    deck = dice.shuffled(stream, FILL_OR_BUST_STARTING_ORDER)
    assert deck[:8] == ["FILL 1000", "BONUS 400", "NO DICE", "DOUBLE TROUBLE", "BONUS 400", "NO DICE",
                        "VENGEANCE 2500", "VENGEANCE 2500"]
    assert sorted(deck) == sorted(FILL_OR_BUST_STARTING_ORDER)
    assert dice.roll(stream, 3) == [3, 5, 2]


def test_step_3_shuffles_the_default_ninety_nine_deck_as_the_vectors_say() -> None:
    stream = ChanceStream(SEED, CODE, 3, "")
    assert dice.shuffled(stream, NINETY_NINE_STARTING_ORDER)[:9] == ["10", "1", "8", "10", "99", "99", "2", "2", "7"]


def test_another_contribution_code_or_step_makes_another_stream() -> None:
    def first_dice(code: str, step: int, contribution: str) -> list[int]:
        stream = ChanceStream(SEED, code, step, contribution)
        return [stream.die() for _ in range(12)]

    vector = first_dice(CODE, 1, "0123456789abcdef0123456789abcdef")
    assert first_dice(CODE, 1, "0123456789abcdef0123456789abcdee") != vector
    assert first_dice("TESU", 1, "0123456789abcdef0123456789abcdef") != vector
    assert first_dice(CODE, 2, "0123456789abcdef0123456789abcdef") != vector


def test_a_long_roll_reads_past_the_first_block_and_every_die_is_a_face() -> None:
    stream = ChanceStream(SEED, CODE, 4, "")
    tosses = dice.roll(stream, 600)  # 600 bytes and more: about twenty blocks of 32
    assert set(tosses) == set(dice.FACES)
    assert all(abs(tosses.count(face) - 100) < 45 for face in dice.FACES)


@pytest.mark.parametrize("k", [0, -1, 2**32 + 1])
def test_below_refuses_a_bound_outside_1_to_2_to_the_32(k: int) -> None:
    with pytest.raises(ValueError, match="below"):
        ChanceStream(SEED, CODE, 1, "").below(k)


def test_below_one_is_always_zero_and_below_two_to_the_32_is_any_word() -> None:
    stream = ChanceStream(SEED, CODE, 5, "")
    assert {stream.below(1) for _ in range(10)} == {0}
    assert 0 <= stream.below(2**32) < 2**32
