// Fill or Bust at a game table (a phone's page, or the table screen): draws the game from what the server
// sends (the page's payload, the stream's events, a move's answer), never from anything it works
// out itself: whose turn, the legal moves, the keeps and their points all come from the server.
// The seat on turn gets buttons for exactly its legal moves; every move carries a random key,
// reused when it is sent again, and the buttons are locked while it is under way.
// No inline script (CSP): the payload arrives in <script type="application/json"> blocks.
(function () {
  "use strict";

  // A whole number as the page's language writes it, as the server does (Django's formats, from the
  // catalog: 2,000 in English, 2 000 in Spanish).
  function num(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, get_format("THOUSAND_SEPARATOR")); }
  var FACE_WORDS = ["", gettext("one"), gettext("two"), gettext("three"), gettext("four"), gettext("five"), gettext("six")];
  var CARD_WHY = {
    BONUS_300: interpolate(gettext("Fill to add %(points)s; you may stop once you have set something aside."), { points: 300 }, true),
    BONUS_400: interpolate(gettext("Fill to add %(points)s; you may stop once you have set something aside."), { points: 400 }, true),
    BONUS_500: interpolate(gettext("Fill to add %(points)s; you may stop once you have set something aside."), { points: 500 }, true),
    FILL_1000: gettext("Fill to add 1,000: no stopping before the Fill."),
    MUST_BUST: gettext("Toss until you bust, setting aside every scoring die each time."),
    VENGEANCE_2500: gettext("Fill it and the leaders lose points."),
    DOUBLE_TROUBLE: gettext("Fill twice and the turn's points are doubled."),
    NO_DICE: gettext("The turn is over."),
  };
  var LABELS = {
    draw: gettext("Turn a card"),
    play: gettext("Play the Vengeance"),
    decline: gettext("Decline the Vengeance"),
    stop: gettext("Stop and bank"),
    end: gettext("End the turn"),
    "continue": gettext("Continue: turn a card"),
  };

  var state = null;
  var selected = [];      // indices of the tossed dice tapped to set aside
  var selectedFor = -1;   // the move number the selection belongs to
  var busy = false;
  var table = null;       // the live connection (TableLive): it sends the moves
  var $ = TableLive.$;
  var el = TableLive.el;
  var isScreen = TableLive.isScreen;

  function die(face, asButton) {
    var node = el(asButton ? "button" : "span", "die face-" + face);
    if (asButton) node.type = "button";
    // A die that is no button is a picture of its face: an aria-label needs a role to be allowed.
    if (!asButton) { node.setAttribute("role", "img"); node.setAttribute("title", String(face)); }
    node.setAttribute("aria-label", String(face));
    for (var i = 0; i < face; i++) node.appendChild(el("span", "pip"));
    return node;
  }

  function cardLabel(name) { return name ? name.replace(/_/g, " ") : ""; }

  function sortedDice(indices) {
    var toss = state.public.last_toss || [];
    return indices.map(function (i) { return toss[i]; }).sort(function (a, b) { return a - b; });
  }

  function keepFor(indices) {
    var dice = sortedDice(indices).join(",");
    var keeps = state.keeps || [];
    for (var i = 0; i < keeps.length; i++) {
      if (keeps[i].dice.join(",") === dice) return keeps[i];
    }
    return null;
  }

  // The maximal keep (the server's first) picked out of the toss, for MUST BUST.
  function indicesOf(dice) {
    var toss = (state.public.last_toss || []).slice();
    var used = [];
    dice.forEach(function (face) {
      for (var i = 0; i < toss.length; i++) {
        if (toss[i] === face && used.indexOf(i) === -1) { used.push(i); return; }
      }
    });
    return used;
  }

  function myTurn() { return !isScreen() && state.on_turn === true; }

  // --- drawing -----------------------------------------------------------------------------

  function render() {
    if (!state) return;
    drawStartRoll(state.public);
    if (!$("play")) return;
    var pub = state.public;
    $("play").setAttribute("data-moves", String(state.moves_made));
    TableLive.sayTurn(state, myTurn());
    $("said").textContent = state.said || "";

    var card = $("card");
    if (pub.card) {
      card.hidden = false;
      card.textContent = "";
      card.appendChild(el("strong", "card-name", cardLabel(pub.card)));
      card.appendChild(el("span", "card-why", " " + (CARD_WHY[pub.card] || "")));
      card.className = "game-card card-" + pub.card.toLowerCase();
    } else {
      card.hidden = true;
    }

    drawDice(pub);
    var aside = $("set-aside");
    aside.textContent = "";
    if ((pub.set_aside || []).length) {
      aside.appendChild(el("span", "muted", gettext("Set aside:") + " "));
      pub.set_aside.forEach(function (face) { aside.appendChild(die(face, false)); });
    }
    var atRisk = (pub.pending || 0) + (pub.card_points || 0);
    var risk = pub.pending
      ? interpolate(gettext("At risk this turn: %(points)s (%(earlier)s from earlier cards)"),
        { points: num(atRisk), earlier: num(pub.pending) }, true)
      : interpolate(gettext("At risk this turn: %(points)s"), { points: num(atRisk) }, true);
    var left = pub.cards_left !== null && pub.cards_left !== undefined
      ? " · " + interpolate(ngettext("%(count)s card left", "%(count)s cards left", pub.cards_left), { count: pub.cards_left }, true) : "";
    $("pending").textContent = pub.turn === null ? "" : risk + left;
    drawScores(pub);
    drawActions(pub);
  }

  // Who starts (docs/RULES.md §1.2): each player's die, the tied players' dice rolled again, and who
  // starts, as the server recorded them; the view carries them in the lobby and through the first
  // turn. The screen has a place for them (#start-roll); a phone's page gets one under the lobby's
  // heading, or in play above the scores (the buttons of the turn stay where the thumb expects).
  function drawStartRoll(pub) {
    var roll = pub.start_roll;
    var box = $("start-roll");
    if (!box) {
      var heading = $("lobby-title"), scores = $("scores");
      if (!roll || !(heading || scores)) return;
      box = el("section", "start-roll");
      box.id = "start-roll";
      if (heading) heading.after(box); else scores.before(box);
    }
    box.hidden = !roll;
    TableLive.redraw(box, function (box) {
      if (!roll) return;
      box.setAttribute("aria-label", roll.words);
      box.appendChild(el("h2", "start-roll-title", gettext("Who starts?")));
      var rounds = el("ol", "start-roll-rounds");
      roll.rounds.forEach(function (dice, index) {
        var line = el("li", "start-roll-round");
        line.appendChild(el("span", "start-roll-note", index === 0 ? gettext("Each rolled one die:") : gettext("A tie, so they rolled again:")));
        dice.forEach(function (pair) {
          var player = el("span", "start-roll-player", pair[0] + " ");
          player.setAttribute("data-face", String(pair[1]));
          player.appendChild(die(pair[1], false));
          line.appendChild(player);
        });
        rounds.appendChild(line);
      });
      box.appendChild(rounds);
      box.appendChild(el("p", "start-roll-starter", interpolate(gettext("%(name)s starts."), { name: roll.starter }, true)));
    });
  }

  function drawDice(pub) {
    var box = $("dice");
    TableLive.redraw(box, function (box) {
      var toss = pub.last_toss;
      var keepLine = $("keep-line");
      if (keepLine) keepLine.textContent = "";
      if (!toss) {
        if (pub.phase === "toss" && pub.dice_to_toss) {
          box.appendChild(el("p", "dice-waiting", interpolate(ngettext("%(count)s die to toss", "%(count)s dice to toss", pub.dice_to_toss),
            { count: pub.dice_to_toss }, true)));
        }
        return;
      }
      var canKeep = myTurn() && pub.phase === "keep" && (state.keeps || []).length > 0;
      if (canKeep && selectedFor !== state.moves_made) {
        selected = state.must_bust ? indicesOf(state.keeps[0].dice) : [];
        selectedFor = state.moves_made;
      }
      box.setAttribute("aria-label", interpolate(gettext("Tossed: %(dice)s"), { dice: toss.join(" ") }, true));
      toss.forEach(function (face, index) {
        var node = die(face, canKeep);
        if (canKeep) {
          var on = selected.indexOf(index) !== -1;
          node.setAttribute("aria-pressed", on ? "true" : "false");
          node.setAttribute("aria-label", on ? interpolate(gettext("%(face)s, chosen"), { face: FACE_WORDS[face] }, true) : FACE_WORDS[face]);
          node.setAttribute("data-die", String(index));
          if (state.must_bust) node.disabled = true;
        }
        box.appendChild(node);
      });
      if (canKeep && keepLine) {
        var keep = keepFor(selected);
        if (state.must_bust) {
          keepLine.textContent = interpolate(gettext("MUST BUST: every toss sets aside all its scoring dice, so they are chosen for you (%(points)s points)."),
            { points: state.keeps[0].points }, true);
        } else if (!selected.length) {
          keepLine.textContent = gettext("Tap the scoring dice to set them aside.");
        } else if (keep) {
          keepLine.textContent = interpolate(gettext("Selected: %(dice)s = %(points)s points"), { dice: keep.dice.join(" "), points: keep.points }, true);
        } else {
          keepLine.textContent = gettext("Those dice don't make a scoring selection.");
        }
      }
    });
  }

  function drawScores(pub) {
    var table = $("scores");
    if (!table) return;
    var body = table.querySelector("tbody");
    body.textContent = "";
    $("goal").textContent = pub.goal ? interpolate(gettext("(to %(goal)s)"), { goal: num(pub.goal) }, true) : "";
    (pub.seats || []).forEach(function (name, seat) {
      var row = el("tr", seat === pub.turn ? "on-turn" : "");
      var who = el("th", "", name);
      who.scope = "row";
      if (seat === state.seat) who.appendChild(el("span", "muted", " " + gettext("(you)")));
      var tag = TableLive.botTag((state.seats || [])[seat]);
      if (tag) who.appendChild(el("span", "muted", tag));
      row.appendChild(who);
      row.appendChild(el("td", "score", num(pub.scores[seat] || 0)));
      body.appendChild(row);
    });
  }

  function button(label, kind, extra) {
    var node = el("button", "button button-big" + (extra ? " " + extra : ""), label);
    node.type = "button";
    node.setAttribute("data-move", kind);
    node.disabled = busy;
    return node;
  }

  function drawActions(pub) {
    var box = $("actions");
    if (!box) return;
    TableLive.redraw(box, function (box) {
      box.classList.toggle("is-busy", busy);
      if (!myTurn()) return;
      var kinds = [];
      (state.legal_moves || []).forEach(function (move) {
        if (kinds.indexOf(move.kind) === -1) kinds.push(move.kind);
      });
      kinds.forEach(function (kind) {
        if (kind === "keep") {
          var keep = keepFor(selected);
          var node = button(keep ? interpolate(gettext("Set aside %(dice)s (%(points)s)"), { dice: keep.dice.join(" "), points: keep.points }, true)
            : gettext("Set aside"), "keep");
          node.disabled = busy || !keep;
          box.appendChild(node);
        } else if (kind === "toss") {
          box.appendChild(button(interpolate(ngettext("Toss %(count)s die", "Toss %(count)s dice", pub.dice_to_toss), { count: pub.dice_to_toss }, true), "toss"));
        } else if (kind === "stop") {
          var atRisk = (pub.pending || 0) + (pub.card_points || 0);
          box.appendChild(button(interpolate(gettext("Stop and bank %(points)s"), { points: num(atRisk) }, true), "stop", "button-secondary"));
        } else {
          box.appendChild(button(LABELS[kind] || kind, kind, kind === "decline" || kind === "end" ? "button-secondary" : ""));
        }
      });
      if (state.can_undo) box.appendChild(button(gettext("Undo"), "undo", "button-secondary undo-button"));
    });
  }

  // --- what the server sends -----------------------------------------------------------------

  function moved(old, data) {
    return Object.assign({}, old, {
      public: data.view, moves_made: data.move.number, said: data.said,
      on_turn: old.seat !== null && data.view.turn === old.seat && old.status === "playing",
      legal_moves: [], keeps: [], can_undo: false, must_bust: false,
    });
  }

  // The seat on turn asks for its legal moves and keeps (they are on no public channel).
  function asks(next, data) { return next.on_turn || data.view.turn === null; }

  function send(kind, dice) { table.send({ kind: kind, dice: dice }); }

  document.addEventListener("click", function (event) {
    var target = event.target.closest && event.target.closest("[data-die], [data-move]");
    if (!target || !state) return;
    event.preventDefault();
    if (busy) return;
    if (target.hasAttribute("data-die")) {
      var index = parseInt(target.getAttribute("data-die"), 10);
      var at = selected.indexOf(index);
      if (at === -1) selected.push(index); else selected.splice(at, 1);
      render();
      return;
    }
    var kind = target.getAttribute("data-move");
    if (kind === "keep") {
      var keep = keepFor(selected);
      if (!keep) return;
      send("keep", keep.dice);
    } else {
      send(kind);
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    table = TableLive.start({
      render: function (next, nowBusy) { state = next; busy = nowBusy; render(); },
      moved: moved,
      asks: asks,
      // (A clock set, paused or started, a tournament round's, redraws only the clock's line: TableLive.)
      hand: function () { table.refresh(); },
    });
  });
})();
