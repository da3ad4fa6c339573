"""Ninety-Nine or Bust (docs/RULES.md §2): the count, the deck, and a dealt game from deal to winner.

Pure rules, no Django, no global random: shuffles go through `games.rules.dice` with a generator
passed to each action that needs chance (the first deal, a reshuffle, the next deal), so a game
is replayed exactly from its seed and its plays. Every value is immutable; every action returns a
new `Game`.

Seats are numbered clockwise: the player on a seat's left is the next seat number. The site deals
and referees, each phone a hidden hand: a phone sees only `game.view(seat)`, never the `Game`.

- `play_card(count, card)`: the new count, or `IllegalPlay` past 99.
- `legal_cards(hand, count)`, `bot_card(hand, count)`.
- `Rules` (deck composition, markers), `Game.start(...)`, `game.play(seat, card, rng)`,
  `game.next_deal(rng)`, `game.view(seat)`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from games.rules import dice
from games.rules import table as table_game
from games.rules.words import Said, gettext_noop

Card = int | str

NUMBER_CARDS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 10)  # no 9s
SPECIAL_CARDS: tuple[str, ...] = ("minus_10", "hold", "reverse", "99")
CARDS: tuple[Card, ...] = NUMBER_CARDS + SPECIAL_CARDS
MAX_COUNT = 99
HAND_SIZE = 3
STARTING_MARKERS = 4
MIN_PLAYERS = 2

CLOCKWISE = 1
COUNTER_CLOCKWISE = -1

PLAYING = "playing"
ROUND_OVER = "round_over"
GAME_OVER = "game_over"


class IllegalPlay(table_game.IllegalMove):
    """A card, count or action the rules don't allow; the message says why."""


def _is_number(card: object) -> bool:
    # bool is an int subclass; True is no card.
    return type(card) is int and card in NUMBER_CARDS


def _is_card(card: object) -> bool:
    return _is_number(card) or (type(card) is str and card in SPECIAL_CARDS)


def _card_list(cards: Iterable[object]) -> str:
    return ", ".join(map(str, cards)) or Said(gettext_noop("nothing"))


# --- the count -----------------------------------------------------------------------------------


def play_card(count: int, card: int | str) -> int:
    """The count after `card` is played on `count`.

    Number cards add their value and may reach 99 but never pass it; minus_10 stops at 0; hold and
    reverse keep the count; 99 makes it 99 from anywhere.
    """
    if type(count) is not int or not 0 <= count <= MAX_COUNT:
        raise IllegalPlay(Said(gettext_noop("The count is 0 to %(most)s, not %(count)s."), most=MAX_COUNT, count=repr(count)))
    if _is_number(card):
        new = count + card  # type: ignore[operator]
        if new > MAX_COUNT:
            raise IllegalPlay(Said(gettext_noop("%(card)s on %(count)s makes %(new)s: the count may not pass %(most)s."), card=card, count=count, new=new, most=MAX_COUNT))
        return new
    if card == "minus_10":
        return max(0, count - 10)
    if card in ("hold", "reverse"):
        return count
    if card == "99":
        return MAX_COUNT
    raise IllegalPlay(Said(gettext_noop("There is no card %(card)s; the cards are %(cards)s."), card=repr(card), cards=_card_list(CARDS)))


def is_legal(count: int, card: Card) -> bool:
    try:
        play_card(count, card)
    except IllegalPlay:
        if not _is_card(card):
            raise
        return False
    return True


def legal_cards(hand: Sequence[Card], count: int) -> list[Card]:
    """The cards of `hand` that may be played on `count`, in hand order."""
    return [card for card in hand if is_legal(count, card)]


def bot_card(hand: Sequence[Card], count: int) -> Card:
    """A simple bot: the highest legal number card, else hold, reverse, minus_10, 99.

    Special cards are the only way out at a high count, so the bot keeps them as long as a number
    card will do, and plays its biggest number to leave the next player the least room. Of the
    specials it spends first those that keep the pressure on (hold, reverse) and last the 99.
    """
    legal = legal_cards(hand, count)
    if not legal:
        raise IllegalPlay(Said(gettext_noop("No card of %(hand)s can be played on %(count)s."), hand=_card_list(hand), count=count))
    numbers = [card for card in legal if _is_number(card)]
    if numbers:
        return max(numbers)
    for special in ("hold", "reverse", "minus_10", "99"):
        if special in legal:
            return special
    raise AssertionError("unreachable: every legal card is a number or a special card")


# --- the deck ------------------------------------------------------------------------------------


def make_deck(copies: Mapping[Card, int]) -> tuple[Card, ...]:
    """A deck with `copies[card]` of each card (cards left out have none), in `CARDS` order."""
    for card, number in copies.items():
        if not _is_card(card):
            raise IllegalPlay(Said(gettext_noop("There is no card %(card)s; the cards are %(cards)s."), card=repr(card), cards=_card_list(CARDS)))
        if type(number) is not int or number < 0:
            raise IllegalPlay(Said(gettext_noop("The number of %(card)s cards must be a whole number, 0 or more, not %(number)s."),
                                   card=repr(card), number=repr(number)))
    return tuple(card for card in CARDS for _ in range(copies.get(card, 0)))


DEFAULT_DECK: tuple[Card, ...] = make_deck(dict.fromkeys(CARDS, 4))  # 13 kinds x 4 = 52


@dataclass(frozen=True)
class Rules:
    """The table's choices: the deck (docs/RULES.md §2 by default) and each player's markers."""

    deck: tuple[Card, ...] = DEFAULT_DECK
    markers: int = STARTING_MARKERS

    def __post_init__(self) -> None:
        for card in self.deck:
            if not _is_card(card):
                raise IllegalPlay(Said(gettext_noop("There is no card %(card)s; the cards are %(cards)s."), card=repr(card), cards=_card_list(CARDS)))
        if type(self.markers) is not int or self.markers < 1:
            raise IllegalPlay(Said(gettext_noop("Each player starts with at least 1 marker, not %(markers)s."), markers=repr(self.markers)))

    @classmethod
    def with_deck(cls, copies: Mapping[Card, int], *, markers: int = STARTING_MARKERS) -> Rules:
        return cls(make_deck(copies), markers)


# --- a game --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """Something every seat may see: what the last action did, for the page and the event log."""

    kind: str  # "dealt", "played", "reshuffled", "lost_round", "out", "won"
    seat: int | None = None
    card: Card | None = None
    count: int | None = None
    cards: tuple[Card, ...] = ()  # the loser's hand, shown when a round is lost
    size: int | None = None  # cards reshuffled into the draw pile


@dataclass(frozen=True)
class PlayerView:
    seat: int
    name: str
    markers: int
    cards: int  # how many cards they hold, never which
    out: bool


@dataclass(frozen=True)
class SeatView:
    """The game as one seat sees it: its own hand, everybody's public state, nobody else's cards."""

    seat: int
    hand: tuple[Card, ...]
    legal: tuple[Card, ...]  # the cards of `hand` playable now (empty unless it is this seat's turn)
    your_turn: bool
    count: int
    direction: int
    turn: int | None
    dealer: int
    round: int
    phase: str
    top_card: Card | None
    draw_pile: int  # cards left, never their order
    players: tuple[PlayerView, ...]
    loser: int | None
    winner: int | None
    events: tuple[Event, ...]


@dataclass(frozen=True)
class Game:
    """A dealt game. Start with `Game.start(names, rng)`; seats are indexes into `players`.

    `draw_pile[0]` is the next card drawn; `played[-1]` is the top of the played pile.
    """

    rules: Rules
    players: tuple[str, ...]
    markers: tuple[int, ...]
    dealer: int
    hands: tuple[tuple[Card, ...], ...]
    draw_pile: tuple[Card, ...]
    played: tuple[Card, ...]
    count: int
    direction: int
    turn: int | None  # the seat to play; the loser while the round is over; None at the end
    phase: str
    round: int = 1
    loser: int | None = None  # who lost the last round
    events: tuple[Event, ...] = ()

    @classmethod
    def start(
        cls, players: Iterable[str], rng: dice.Chance, *, rules: Rules | None = None, dealer: int = 0
    ) -> Game:
        rules = rules or Rules()
        names = tuple(players)
        if len(names) < MIN_PLAYERS:
            raise IllegalPlay(Said(gettext_noop("Ninety-Nine or Bust needs at least %(least)s players, not %(count)s."), least=MIN_PLAYERS, count=len(names)))
        for name in names:
            if not isinstance(name, str) or not name:
                raise IllegalPlay(Said(gettext_noop("A player's name must be some text, not %(name)s."), name=repr(name)))
        if len(set(names)) != len(names):
            raise IllegalPlay(Said(gettext_noop("Each player needs a different name.")))
        if len(rules.deck) <= HAND_SIZE * len(names):
            raise IllegalPlay(Said(gettext_noop("A deck of %(cards)s cards cannot deal %(hand)s each to %(players)s players "
                                                "and leave a draw pile."), cards=len(rules.deck), hand=HAND_SIZE,
                                   players=len(names)))
        if type(dealer) is not int or not 0 <= dealer < len(names):
            raise IllegalPlay(Said(gettext_noop("The dealer is a seat from 0 to %(last)s, not %(dealer)s."), last=len(names) - 1, dealer=repr(dealer)))
        empty = tuple(() for _ in names)
        game = cls(
            rules, names, (rules.markers,) * len(names), dealer, empty, (), (), 0, CLOCKWISE, None, ROUND_OVER
        )
        return game._deal(dealer, rng, round_number=1)

    # --- what anyone may ask ---

    @property
    def active(self) -> tuple[int, ...]:
        """Seats still in the game (with markers)."""
        return tuple(seat for seat, markers in enumerate(self.markers) if markers > 0)

    @property
    def winner(self) -> int | None:
        return self.active[0] if self.phase == GAME_OVER else None

    def hand(self, seat: int) -> tuple[Card, ...]:
        return self.hands[self._check_seat(seat)]

    def view(self, seat: int) -> SeatView:
        """What the phone at `seat` may show: never another player's cards or the pile's order."""
        self._check_seat(seat)
        hand = self.hands[seat]
        your_turn = self.phase == PLAYING and self.turn == seat
        return SeatView(
            seat=seat,
            hand=hand,
            legal=tuple(legal_cards(hand, self.count)) if your_turn else (),
            your_turn=your_turn,
            count=self.count,
            direction=self.direction,
            turn=self.turn,
            dealer=self.dealer,
            round=self.round,
            phase=self.phase,
            top_card=self.played[-1] if self.played else None,
            draw_pile=len(self.draw_pile),
            players=tuple(
                PlayerView(s, name, self.markers[s], len(self.hands[s]), self.markers[s] == 0)
                for s, name in enumerate(self.players)
            ),
            loser=self.loser,
            winner=self.winner,
            events=self.events,
        )

    # --- actions ---

    def play(self, seat: int, card: Card, rng: dice.Chance) -> Game:
        """`seat` plays `card`, draws back to three, and the turn passes on.

        `rng` reshuffles the played pile if the draw pile runs out. If the next player then holds
        no legal card they lose the round and a marker at once: there is nothing they could do.
        """
        self._check_seat(seat)
        if self.phase != PLAYING:
            raise IllegalPlay(
                Said(gettext_noop("The game is over.")) if self.phase == GAME_OVER
                else Said(gettext_noop("The round is over: deal again."))
            )
        if seat != self.turn:
            raise IllegalPlay(Said(gettext_noop("It is %(player)s's turn, not %(name)s's."), player=self.players[self.turn], name=self.players[seat]))  # type: ignore[index]
        hand = list(self.hands[seat])
        if card not in hand or not _is_card(card):
            raise IllegalPlay(Said(gettext_noop("%(name)s holds %(hand)s, not %(card)s."), name=self.players[seat], hand=_card_list(hand), card=repr(card)))
        count = play_card(self.count, card)  # IllegalPlay past 99

        hand.remove(card)
        played = self.played + (card,)
        events = [Event("played", seat=seat, card=card, count=count)]
        direction = self.direction
        # With two players left a reverse would hand the turn to the same opponent: it is a hold.
        if card == "reverse" and len(self.active) > 2:
            direction = -direction

        draw_pile = self.draw_pile
        while len(hand) < HAND_SIZE:
            if not draw_pile:
                if len(played) < 2:
                    break  # every other card is in a hand: play on with fewer cards
                # The played pile but its top card becomes the new draw pile; the count stays.
                draw_pile = tuple(dice.shuffled(rng, played[:-1]))
                played = played[-1:]
                events.append(Event("reshuffled", size=len(draw_pile)))
            rest = list(draw_pile)
            hand.append(dice.draw(rng, rest, seat=seat))
            draw_pile = tuple(rest)

        hands = _with(self.hands, seat, tuple(hand))
        following = self._next_seat(seat, direction)
        game = replace(
            self,
            hands=hands,
            draw_pile=draw_pile,
            played=played,
            count=count,
            direction=direction,
            turn=following,
            loser=None,
            events=tuple(events),
        )
        if not legal_cards(hands[following], count):
            return game._lose_round(following)
        return game

    def next_deal(self, rng: dice.Chance) -> Game:
        """After a lost round: the deal passes left, everything is reshuffled, count 0, clockwise."""
        if self.phase != ROUND_OVER:
            raise IllegalPlay(
                Said(gettext_noop("The game is over.")) if self.phase == GAME_OVER
                else Said(gettext_noop("The round is still being played."))
            )
        assert self.next_dealer is not None
        return self._deal(self.next_dealer, rng, round_number=self.round + 1)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (hands and the pile's order included: the server's copy only)."""
        return {
            "rules": {"deck": list(self.rules.deck), "markers": self.rules.markers},
            "players": list(self.players),
            "markers": list(self.markers),
            "dealer": self.dealer,
            "hands": [list(hand) for hand in self.hands],
            "draw_pile": list(self.draw_pile),
            "played": list(self.played),
            "count": self.count,
            "direction": self.direction,
            "turn": self.turn,
            "phase": self.phase,
            "round": self.round,
            "loser": self.loser,
            "events": [
                {"kind": e.kind, "seat": e.seat, "card": e.card, "count": e.count, "cards": list(e.cards), "size": e.size}
                for e in self.events
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Game:
        return cls(
            rules=Rules(tuple(data["rules"]["deck"]), data["rules"]["markers"]),
            players=tuple(data["players"]),
            markers=tuple(data["markers"]),
            dealer=data["dealer"],
            hands=tuple(tuple(hand) for hand in data["hands"]),
            draw_pile=tuple(data["draw_pile"]),
            played=tuple(data["played"]),
            count=data["count"],
            direction=data["direction"],
            turn=data["turn"],
            phase=data["phase"],
            round=data["round"],
            loser=data["loser"],
            events=tuple(
                Event(e["kind"], e["seat"], e["card"], e["count"], tuple(e["cards"]), e["size"])
                for e in data["events"]
            ),
        )

    @property
    def next_dealer(self) -> int | None:
        """Who deals next after a lost round (the deal passes left); None otherwise."""
        return self._next_seat(self.dealer, CLOCKWISE) if self.phase == ROUND_OVER else None

    # --- internals ---

    def _lose_round(self, seat: int) -> Game:
        markers = _with(self.markers, seat, self.markers[seat] - 1)
        events = list(self.events)
        events.append(Event("lost_round", seat=seat, count=self.count, cards=self.hands[seat]))
        phase = ROUND_OVER
        turn: int | None = seat
        if markers[seat] == 0:
            events.append(Event("out", seat=seat))
            still_in = [s for s, m in enumerate(markers) if m > 0]
            if len(still_in) == 1:
                events.append(Event("won", seat=still_in[0]))
                phase, turn = GAME_OVER, None
        return replace(self, markers=markers, turn=turn, phase=phase, loser=seat, events=tuple(events))

    def _deal(self, dealer: int, rng: dice.Chance, *, round_number: int) -> Game:
        deck = dice.shuffled(rng, self.rules.deck)
        hands: list[list[Card]] = [[] for _ in self.players]
        seats = [s for s in self._clockwise_from(dealer) if self.markers[s] > 0]
        # One card at a time, starting on the dealer's left (who plays first), as at a real table.
        for _ in range(HAND_SIZE):
            for seat in seats:
                hands[seat].append(dice.deal_one(rng, deck, seat=seat))
        return replace(
            self,
            dealer=dealer,
            hands=tuple(tuple(hand) for hand in hands),
            draw_pile=tuple(deck),
            played=(),
            count=0,
            direction=CLOCKWISE,
            turn=self._next_seat(dealer, CLOCKWISE),
            phase=PLAYING,
            round=round_number,
            loser=None,
            events=(Event("dealt", seat=dealer),),
        )

    def _clockwise_from(self, seat: int) -> list[int]:
        """Every seat, starting on `seat`'s left and ending with `seat`."""
        n = len(self.players)
        return [(seat + step) % n for step in range(1, n + 1)]

    def _next_seat(self, seat: int, direction: int) -> int:
        n = len(self.players)
        for step in range(1, n + 1):
            candidate = (seat + direction * step) % n
            if self.markers[candidate] > 0:
                return candidate
        raise AssertionError("unreachable: a game in play has players with markers")

    def _check_seat(self, seat: int) -> int:
        if type(seat) is not int or not 0 <= seat < len(self.players):
            raise IllegalPlay(Said(gettext_noop("There is no seat %(seat)s; seats are 0 to %(last)s."), seat=repr(seat), last=len(self.players) - 1))
        return seat


def _with(values: tuple, index: int, value: object) -> tuple:
    return values[:index] + (value,) + values[index + 1 :]


def deck_counts(game: Game) -> Counter:
    """Every card of the game, wherever it is (hands, draw pile, played pile): always the deck."""
    counts: Counter = Counter(game.draw_pile)
    counts.update(game.played)
    for hand in game.hands:
        counts.update(hand)
    return counts


# --- what chance produced, and a move in words ------------------------------------------------------


def chance_between(before: Game, after: Game) -> list[list[Any]]:
    """What chance produced from `before` to `after` (one action), in the order it happened:
    ["deal", dealer, [each seat's hand]] for a new deal; for a play, ["draw", card] per card the
    player drew and ["reshuffled", size] where the played pile became the draw pile. These name
    hidden cards: the server records them for the check at the end, and never sends them."""
    if after.round != before.round:
        return [["deal", after.dealer, [list(hand) for hand in after.hands]]]
    played = next((e for e in after.events if e.kind == "played"), None)
    if played is None or played.seat is None:
        return []
    kept = len(before.hands[played.seat]) - 1
    drawn = list(after.hands[played.seat][kept:])
    steps: list[list[Any]] = [["draw", card] for card in drawn]
    reshuffle = next((e for e in after.events if e.kind == "reshuffled"), None)
    if reshuffle is not None:
        at = len(before.draw_pile)
        steps.insert(at, ["reshuffled", reshuffle.size])
    return steps


_CARD_WORDS = {"minus_10": gettext_noop("minus 10"), "hold": gettext_noop("hold"),
               "reverse": gettext_noop("reverse"), "99": "99"}


def card_words(card: object) -> str:
    """A card's name, a `Said` translated where it is read."""
    return Said(_CARD_WORDS.get(str(card), str(card)))


def hands_words(game: Game) -> str:
    """Every hand, for the replay once the game is over: "Ada holds 3, hold, 10 · Bea holds ..."."""
    return table_game.one_after_another(*(
        Said(gettext_noop("%(name)s holds %(cards)s"), name=name, cards=_cards_said(hand))
        for name, hand in zip(game.players, game.hands, strict=True) if hand), joined=" · ")


def _cards_said(cards: Iterable[object]) -> Said:
    words = [card_words(card) for card in cards]
    return Said(", ".join(f"%(c{number})s" for number in range(len(words))),
                **{f"c{number}": word for number, word in enumerate(words)})


def _said_played(name: str, event: Mapping[str, Any], view: Mapping[str, Any]) -> Said:
    card = event["card"]
    if card == "reverse":
        if view.get("direction") == CLOCKWISE:
            template = gettext_noop("%(name)s plays %(card)s (play goes clockwise): the count is %(count)s.")
        else:
            template = gettext_noop("%(name)s plays %(card)s (play goes counter-clockwise): the count is %(count)s.")
    elif card == "hold":
        template = gettext_noop("%(name)s plays %(card)s (the count holds): the count is %(count)s.")
    else:
        template = gettext_noop("%(name)s plays %(card)s: the count is %(count)s.")
    return Said(template, name=name, card=card_words(card), count=event["count"])


_EVENT_SAID = {
    "reshuffled": gettext_noop("The played cards but the top one are shuffled into a new draw pile."),
    "lost_round": gettext_noop("%(name)s has no card to play on %(count)s: loses the deal and a marker."),
    "out": gettext_noop("%(name)s has no markers left: out of the game."),
    "won": gettext_noop("%(name)s wins!"),
}


def said(move: Mapping[str, Any], view: Mapping[str, Any]) -> str:
    """One move in words, from the move as recorded and the public view after it (what every seat
    may see: the card played, the count, who lost the deal)."""
    seats = view.get("seats") or []

    def name(seat: object) -> str:
        return seats[seat] if isinstance(seat, int) and 0 <= seat < len(seats) else Said(gettext_noop("Someone"))

    kind = move.get("move", {}).get("kind")
    if kind == "deal":
        return Said(gettext_noop("%(name)s deals a new round: the count is 0."), name=name(move.get("seat")))
    words: list[str] = []
    for event in (view.get("events") or []) if kind == "play" else []:
        if event["kind"] == "played":
            words.append(_said_played(name(event["seat"]), event, view))
        elif event["kind"] in _EVENT_SAID:
            words.append(Said(_EVENT_SAID[event["kind"]], name=name(event.get("seat")), count=event.get("count")))
    if not words:
        return Said(gettext_noop("%(name)s moved."), name=name(move.get("seat")))
    return table_game.one_after_another(*words)


# --- at a game table -------------------------------------------------------------------------------


@dataclass(frozen=True)
class NinetyNineTable(table_game.TableGame):
    """Ninety-Nine or Bust as a `TableGame`: the server shuffles and deals, each hand is private.

    Moves: {"kind": "play", "card": card} by the seat whose turn it is; after a lost round,
    {"kind": "deal"} by the next dealer (the player on the last dealer's left). A seat's view
    carries its own hand (and the count each of its cards would make) in its private part; the
    public part has how many cards each player holds, never which, nor the draw pile's order.
    """

    state: Game
    game: ClassVar[str] = "ninety_nine"

    @classmethod
    def new(cls, names: Sequence[str], rng: dice.Chance, *, rules: Rules | None = None) -> NinetyNineTable:
        return cls(Game.start(names, rng, rules=rules))

    @property
    def seats(self) -> tuple[str, ...]:
        return self.state.players

    def to_move(self) -> tuple[int, ...]:
        state = self.state
        if state.phase == PLAYING and state.turn is not None:
            return (state.turn,)
        return () if state.next_dealer is None else (state.next_dealer,)

    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        if seat not in self.to_move():
            return []
        if self.state.phase == ROUND_OVER:
            return [{"kind": "deal"}]
        cards = dict.fromkeys(legal_cards(self.state.hands[seat], self.state.count))
        return [{"kind": "play", "card": card} for card in cards]

    def apply(self, seat: int, move: table_game.Move, rng: dice.Chance) -> NinetyNineTable:
        self.check_turn(seat)
        kind = table_game.move_kind(move, ("play", "deal"))
        if kind == "deal":
            return NinetyNineTable(self.state.next_deal(rng))
        return NinetyNineTable(self.state.play(seat, move.get("card"), rng))  # type: ignore[arg-type]

    def view(self, seat: int | None) -> table_game.View:
        state = self.state
        public = {
            "game": self.game,
            "seats": list(state.players),
            "count": state.count,
            "direction": state.direction,
            "turn": state.turn if state.phase == PLAYING else None,
            "dealer": state.dealer,
            "next_dealer": state.next_dealer,
            "round": state.round,
            "phase": state.phase,
            "top_card": state.played[-1] if state.played else None,
            "draw_pile": len(state.draw_pile),
            "markers": list(state.markers),
            "scores": list(state.markers),  # the table's scoresheet: markers left
            "cards": [len(hand) for hand in state.hands],
            "loser": state.loser,
            "winner": state.winner,
            "winners": [] if state.winner is None else [state.players[state.winner]],
            # A lost round's cards stay with their player: the public record says who and at what count.
            "events": [
                {"kind": e.kind, "seat": e.seat, "card": e.card, "count": e.count, "size": e.size}
                for e in state.events
            ],
        }
        if seat is None:
            return table_game.View(public)
        self.check_seat(seat)
        hand = state.hands[seat]
        your_turn = state.phase == PLAYING and state.turn == seat
        private = {
            "seat": seat,
            "hand": list(hand),
            "makes": [play_card(state.count, card) if is_legal(state.count, card) else None for card in hand],
            "legal": list(legal_cards(hand, state.count)) if your_turn else [],
        }
        return table_game.View(public, private)

    @property
    def is_over(self) -> bool:
        return self.state.phase == GAME_OVER

    def result(self) -> table_game.Result | None:
        winner = self.state.winner
        return None if winner is None else table_game.Result((winner,), self.state.markers)

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "state": self.state.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NinetyNineTable:
        return cls(Game.from_dict(data["state"]))
