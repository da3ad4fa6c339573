// Ninety-Nine or Bust at a game table (a phone's page, or the table screen's): draws the count,
// the last card, the markers and, on a phone, its own hand, from what the server sends (the page's
// payload, the stream's events, a move's answer). Which cards may be played and the count each
// would make come from the server (private.legal, private.makes): the page works out no rule.
// A tap plays a card with a random key, reused when the move is sent again; buttons lock meanwhile.
// No inline script (CSP): the payload arrives in <script type="application/json"> blocks.
(function () {
  "use strict";

  var WORDS = { minus_10: "−10", hold: gettext("Hold"), reverse: gettext("Reverse"), "99": "99" };
  var SPOKEN = { minus_10: gettext("minus 10"), hold: gettext("hold"), reverse: gettext("reverse"), "99": "99" };

  var state = null;
  var busy = false;
  var table = null;   // the live connection (TableLive): it sends the moves
  var $ = TableLive.$;
  var el = TableLive.el;
  var isScreen = TableLive.isScreen;

  function cardText(card) { return WORDS[card] || String(card); }
  function cardSpoken(card) { return SPOKEN[card] || String(card); }
  function isSpecial(card) { return typeof card === "string"; }

  function canMove() { return !isScreen() && state.on_turn === true && state.status === "playing"; }
  function legalKinds() { return (state.legal_moves || []).map(function (m) { return m.kind; }); }

  // --- drawing ---------------------------------------------------------------------------------

  function render() {
    if (!state || !$("play")) return;
    var pub = state.public;
    var seats = pub.seats || [];
    var mine = state.seat;
    $("play").setAttribute("data-moves", String(state.moves_made));
    var turnLine = $("turn-line");
    if (state.status === "over" || pub.phase === "game_over") {
      var winners = pub.winners || [];
      turnLine.textContent = winners.length
        ? (mine !== null && seats[mine] === winners[0] ? gettext("You win!") : interpolate(gettext("%(name)s wins!"), { name: winners[0] }, true))
        : gettext("The game is over");
    } else if (state.status === "seating") {
      turnLine.textContent = gettext("Waiting for the start");
    } else if (pub.phase === "round_over") {
      turnLine.textContent = pub.next_dealer === mine && !isScreen() ? gettext("Your deal")
        : interpolate(gettext("%(name)s deals next"), { name: seats[pub.next_dealer] }, true);
    } else if (canMove()) {
      turnLine.textContent = gettext("Your turn: play a card");
    } else {
      turnLine.textContent = interpolate(gettext("%(name)s's turn"), { name: seats[pub.turn] }, true);
    }
    turnLine.classList.toggle("is-mine", canMove());
    $("count").textContent = String(pub.count);
    $("direction").textContent = pub.direction === 1 ? "↻ " + gettext("clockwise") : "↺ " + gettext("counter-clockwise");
    var top = $("top-card");
    top.textContent = pub.top_card === null || pub.top_card === undefined ? "–" : cardText(pub.top_card);
    top.classList.toggle("special", isSpecial(pub.top_card));
    $("said").textContent = state.said || "";
    drawLost(pub);
    if ($("draw-pile")) $("draw-pile").textContent = interpolate(ngettext("%(count)s card in the draw pile", "%(count)s cards in the draw pile", pub.draw_pile), { count: pub.draw_pile }, true);
    drawHand(pub);
    drawScores(pub);
    drawActions(pub);
  }

  function drawLost(pub) {
    var line = $("lost-line");
    if (!line) return;
    var seats = pub.seats || [];
    var text = "";
    if (pub.loser !== null && pub.loser !== undefined && pub.phase !== "playing") {
      var out = pub.markers[pub.loser] === 0;
      if (!isScreen() && pub.loser === state.seat) {
        text = interpolate(gettext("You had no card you could play on %(count)s: you lose this deal and a marker."), { count: pub.count }, true) +
          " " + (out ? gettext("You have no markers left: you are out.")
            : interpolate(gettext("%(markers)s left."), { markers: pub.markers[pub.loser] }, true));
      } else {
        text = interpolate(gettext("%(name)s had no card to play on %(count)s: loses the deal and a marker."),
          { name: seats[pub.loser], count: pub.count }, true) +
          (out ? " " + interpolate(gettext("%(name)s is out."), { name: seats[pub.loser] }, true) : "");
      }
    }
    line.hidden = !text;
    line.textContent = text;
  }

  function drawHand(pub) {
    var box = $("hand");
    if (!box || isScreen()) return;
    TableLive.redraw(box, function (box) {
      var priv = state.private || {};
      var hand = priv.hand || [];
      var makes = priv.makes;  // null: not reckoned on the count shown yet (see moved)
      var legal = priv.legal || [];
      var playing = canMove() && legalKinds().indexOf("play") !== -1;
      if (!hand.length) {
        box.appendChild(el("p", "muted", pub.markers && pub.markers[state.seat] === 0 ? gettext("You are out of the game.") : gettext("No cards in your hand.")));
        return;
      }
      hand.forEach(function (card, index) {
        var node = el("button", "playing-card" + (isSpecial(card) ? " special" : ""));
        node.type = "button";
        node.appendChild(el("span", "card-face", cardText(card)));
        var known = Array.isArray(makes);
        var past = known && (makes[index] === null || makes[index] === undefined);
        node.appendChild(el("span", "makes", !known ? "" : past ? gettext("past 99") : "→ " + makes[index]));
        node.classList.toggle("is-past-99", past);
        var playable = playing && legal.indexOf(card) !== -1;
        node.classList.toggle("is-playable", playable);
        node.disabled = busy || !playable;
        node.setAttribute("data-card", String(card));
        node.setAttribute("aria-label", !known ? cardSpoken(card) : past
          ? interpolate(gettext("%(card)s, would pass 99"), { card: cardSpoken(card) }, true)
          : interpolate(gettext("%(card)s, makes %(count)s"), { card: cardSpoken(card), count: makes[index] }, true));
        box.appendChild(node);
      });
    });
  }

  function drawScores(pub) {
    var table = $("scores");
    if (!table) return;
    var body = table.querySelector("tbody");
    body.textContent = "";
    (pub.seats || []).forEach(function (name, seat) {
      var out = pub.markers[seat] === 0;
      var row = el("tr", (seat === pub.turn && pub.phase === "playing" ? "on-turn" : "") + (out ? " is-out" : ""));
      var who = el("th", "", name);
      who.scope = "row";
      if (seat === state.seat) who.appendChild(el("span", "muted", " " + gettext("(you)")));
      if (seat === pub.dealer) who.appendChild(el("span", "muted", " · " + gettext("dealer")));
      var tag = TableLive.botTag((state.seats || [])[seat]);
      if (tag) who.appendChild(el("span", "muted", tag));
      row.appendChild(who);
      var markers = el("td", "markers", out ? gettext("out") : "●".repeat(pub.markers[seat]));
      markers.setAttribute("aria-label", interpolate(ngettext("%(count)s marker", "%(count)s markers", pub.markers[seat]), { count: pub.markers[seat] }, true));
      row.appendChild(markers);
      row.appendChild(el("td", "muted", out ? "" : interpolate(ngettext("%(count)s card", "%(count)s cards", pub.cards[seat]), { count: pub.cards[seat] }, true)));
      body.appendChild(row);
    });
  }

  function drawActions() {
    var box = $("actions");
    if (!box) return;
    TableLive.redraw(box, function (box) {
      if (!canMove() || legalKinds().indexOf("deal") === -1) return;
      var node = el("button", "button button-big", gettext("Deal the next round"));
      node.type = "button";
      node.setAttribute("data-move", "deal");
      node.disabled = busy;
      box.appendChild(node);
    });
  }

  // --- what the server sends -------------------------------------------------------------------

  // Whose move it is after a move: the seat on turn while playing, else the next dealer's.
  function onTurn(old, view) {
    if (old.seat === null || old.status !== "playing") return false;
    return view.phase === "playing" ? view.turn === old.seat : view.next_dealer === old.seat;
  }

  function moved(old, data) {
    // What each card makes was worked out on the count before this move: until this seat's hand
    // comes for the new count (its "hand" event follows the move's), it is not known, and no card
    // is shown as passing 99 or playable on a count it was never reckoned on.
    var priv = old["private"] ? Object.assign({}, old["private"], { makes: null, legal: [] }) : old["private"];
    return Object.assign({}, old, {
      "private": priv, public: data.view, moves_made: data.move.number, said: data.said,
      on_turn: onTurn(old, data.view), legal_moves: [],
    });
  }

  // The seat on turn asks for its moves (they are on no public channel); its hand comes on its own.
  function asks(next, data) { return next.on_turn || data.view.phase === "game_over"; }

  function handArrived(data) {
    if (!state || isScreen()) return;
    table.set(Object.assign({}, state, { "private": data["private"] }));
  }

  function send(kind, card) { table.send({ kind: kind, card: card }); }

  document.addEventListener("click", function (event) {
    var target = event.target.closest && event.target.closest("[data-card], [data-move]");
    if (!target || !state || busy) return;
    event.preventDefault();
    if (target.hasAttribute("data-card")) {
      var raw = target.getAttribute("data-card");
      send("play", raw);
    } else {
      send(target.getAttribute("data-move"));
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    table = TableLive.start({
      render: function (next, nowBusy) { state = next; busy = nowBusy; render(); },
      moved: moved,
      asks: asks,
      hand: function (event) { handArrived(JSON.parse(event.data)); },
    });
  });
})();
