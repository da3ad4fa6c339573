// A Kismet table's page (a phone's, or the table screen's), drawn only from what the server sends:
// the dice, whose turn, the boxes the dice may go in with their scores (best first), the boxes where
// only a 0 goes, every sheet and its totals. The page never works a score out.
// A seat of server dice taps dice to hold them and rolls; a seat of real dice taps in its five faces
// after its last roll at the table. Every move carries a random key, reused when it is sent again.
// No inline script (CSP): the payload arrives in <script type="application/json"> blocks.
(function () {
  "use strict";

  var COLORS = { 1: "black", 6: "black", 2: "red", 5: "red", 3: "green", 4: "green" };
  var FACE_WORDS = ["", gettext("one"), gettext("two"), gettext("three"), gettext("four"), gettext("five"), gettext("six")];
  var COLOR_WORDS = { black: gettext("black"), red: gettext("red"), green: gettext("green") };
  var BASIC = ["ones", "twos", "threes", "fours", "fives", "sixes"];

  var state = null;
  var held = [];        // indices of the dice tapped to hold for the next roll
  var heldFor = -1;     // the move number the holds belong to
  var typed = [];       // the faces a seat of real dice has tapped in
  var retyping = false; // a seat of real dice correcting the dice it entered
  var busy = false;
  var table = null;     // the live connection (TableLive): it sends the moves
  var $ = TableLive.$;
  var el = TableLive.el;
  var isScreen = TableLive.isScreen;
  function myTurn() { return !isScreen() && state.on_turn === true; }
  function label(box) { return (state.public.labels || {})[box] || box; }

  function die(face, asButton) {
    var node = el(asButton ? "button" : "span", "die face-" + face + " pips-" + COLORS[face]);
    // A die that is no button is a picture of its face: an aria-label needs a role to be allowed.
    if (asButton) node.type = "button"; else node.setAttribute("role", "img");
    node.setAttribute("aria-label", FACE_WORDS[face] + " (" + COLOR_WORDS[COLORS[face]] + ")");
    for (var i = 0; i < face; i++) node.appendChild(el("span", "pip"));
    return node;
  }

  function kinds() {
    return (state.legal_moves || []).map(function (move) { return move.kind; });
  }

  function button(text, kind, extra) {
    var node = el("button", "button" + (extra ? " " + extra : ""), text);
    node.type = "button";
    node.setAttribute("data-move", kind);
    node.disabled = busy;
    return node;
  }

  // --- drawing -----------------------------------------------------------------------------

  function render() {
    if (!state || !$("play")) return;
    var pub = state.public;
    $("play").setAttribute("data-moves", String(state.moves_made));
    TableLive.sayTurn(state, myTurn());
    $("said").textContent = state.said || "";
    drawPenalty(pub);
    drawDice(pub);
    drawEntry(pub);
    drawActions(pub);
    drawOptions(pub);
    if ($("sheet")) drawOwnSheet(pub);
    if ($("sheets")) drawAllSheets(pub);
    drawTotals(pub);
  }

  function drawPenalty(pub) {
    var box = $("penalty");
    var last = pub.last;
    if (!box) return;
    if (!last || !last.second_kismet) { box.hidden = true; return; }
    var me = state.seat !== null && state.seat !== undefined ? pub.seats[state.seat] : null;
    var mine = (last.zeroed || []).filter(function (pair) { return pair[0] === me; })[0];
    var text;
    if (mine) {
      text = interpolate(gettext("%(name)s rolled a second Kismet: your sheet gets a 0 in %(box)s and you lose this turn."),
        { name: last.player, box: label(mine[1]) }, true);
    } else {
      var zeroed = (last.zeroed || []).map(function (pair) {
        return interpolate(gettext("%(name)s gets a 0 in %(box)s"), { name: pair[0], box: label(pair[1]) }, true);
      }).join(", ") || gettext("no other sheet had a box open");
      text = interpolate(gettext("Second Kismet for %(name)s: %(zeroed)s. They lose their turn; %(name)s plays again."),
        { name: last.player, zeroed: zeroed }, true);
    }
    box.hidden = false;
    box.textContent = text;
  }

  function canHold(pub) { return myTurn() && !state.typed && pub.dice && pub.rolls_left > 0; }

  function drawDice(pub) {
    var box = $("dice");
    TableLive.redraw(box, function (box) {
      var rollLine = $("roll-line");
      rollLine.textContent = "";
      if (!pub.dice || (myTurn() && state.typed && retyping)) return;
      if (canHold(pub) && heldFor !== state.moves_made) { held = []; heldFor = state.moves_made; }
      box.setAttribute("aria-label", interpolate(gettext("The dice: %(dice)s"), { dice: pub.dice.join(" ") }, true));
      pub.dice.forEach(function (face, index) {
        var node = die(face, canHold(pub));
        if (canHold(pub)) {
          var on = held.indexOf(index) !== -1;
          node.setAttribute("aria-pressed", on ? "true" : "false");
          node.setAttribute("aria-label", on ? interpolate(gettext("%(face)s, held"), { face: FACE_WORDS[face] }, true) : FACE_WORDS[face]);
          node.setAttribute("data-die", String(index));
        }
        box.appendChild(node);
      });
      if (pub.real_dice && pub.real_dice[pub.turn]) {
        rollLine.textContent = gettext("Real dice, typed in.");
      } else {
        rollLine.textContent = interpolate(gettext("Roll %(roll)s of 3"), { roll: pub.rolls }, true) +
          (canHold(pub) ? " · " + gettext("tap dice to hold them, then roll the others") : "");
      }
      if (pub.second_kismet) rollLine.textContent += " · " + gettext("A SECOND KISMET!");
    });
  }

  function drawEntry(pub) {
    var entry = $("entry");
    if (!entry) return;
    var show = myTurn() && state.typed && (!pub.dice || retyping);
    entry.hidden = !show;
    if (!show) return;
    var slots = $("entry-slots");
    slots.textContent = "";
    for (var i = 0; i < 5; i++) {
      if (i < typed.length) {
        var node = die(typed[i], true);
        node.setAttribute("data-untype", String(i));
        node.setAttribute("aria-label", interpolate(gettext("Die %(number)s: %(face)s, tap to remove"), { number: i + 1, face: typed[i] }, true));
        slots.appendChild(node);
      } else {
        slots.appendChild(el("span", "die die-empty", ""));
      }
    }
    var faces = $("entry-faces");
    faces.textContent = "";
    for (var face = 1; face <= 6; face++) {
      var pick = die(face, true);
      pick.setAttribute("data-type", String(face));
      pick.setAttribute("aria-label", interpolate(gettext("Face %(face)s"), { face: face }, true));
      pick.disabled = busy || typed.length >= 5;
      faces.appendChild(pick);
    }
  }

  function drawActions(pub) {
    var box = $("actions");
    if (!box) return;
    TableLive.redraw(box, function (box) {
      if (!myTurn()) return;
      var can = kinds();
      if (can.indexOf("roll") !== -1) {
        var text = !pub.dice ? gettext("Roll the dice") : held.length
          ? interpolate(gettext("Roll again, holding %(dice)s"), { dice: heldFaces(pub).join(" ") }, true) : gettext("Roll all five again");
        box.appendChild(button(text, "roll", "button-big"));
      }
      if (can.indexOf("enter") !== -1) {
        if (!pub.dice || retyping) {
          var enter = button(typed.length === 5 ? interpolate(gettext("Enter %(dice)s"), { dice: typed.join(" ") }, true)
            : interpolate(gettext("Tap in %(count)s more"), { count: 5 - typed.length }, true), "enter", "button-big");
          enter.disabled = busy || typed.length !== 5;
          box.appendChild(enter);
        } else {
          box.appendChild(button(gettext("Type the dice again"), "retype", "button-secondary"));
        }
      }
      if (state.can_undo) box.appendChild(button(gettext("Undo"), "undo", "button-secondary undo-button"));
    });
  }

  function heldFaces(pub) {
    return held.map(function (i) { return pub.dice[i]; }).sort();
  }

  function drawOptions(pub) {
    var box = $("options");
    var hint = $("hint");
    if (!box) return;
    TableLive.redraw(box, function (box) {
      if (hint) hint.hidden = true;
      if (!myTurn() || !pub.dice || retyping) return;
      if (hint && state.hint) {
        hint.hidden = false;
        hint.textContent = interpolate(gettext("Hint: %(box)s is expected to leave the best final total (a fast estimate)."), { box: label(state.hint) }, true);
      }
      if (pub.options.length) {
        box.appendChild(el("h2", "options-title", gettext("Score the dice in")));
        var list = el("div", "option-list");
        pub.options.forEach(function (pair) {
          var node = button(label(pair[0]) + " " + pair[1], "score", "option");
          node.setAttribute("data-box", pair[0]);
          list.appendChild(node);
        });
        box.appendChild(list);
      }
      if (pub.zeros.length) {
        box.appendChild(el("h2", "options-title", gettext("Only a 0 can go in")));
        var zeros = el("div", "option-list zero-list");
        pub.zeros.forEach(function (name) {
          var node = button(label(name) + " 0", "score", "option button-secondary");
          node.setAttribute("data-box", name);
          zeros.appendChild(node);
        });
        box.appendChild(zeros);
      }
    });
  }

  function sheetTable(pub, seat, big) {
    var sheet = pub.sheets[seat];
    var table = el("table", "kismet-sheet" + (big ? " kismet-sheet-big" : ""));
    var caption = el("caption", "", pub.seats[seat] + (seat === pub.turn ? " · " + gettext("on turn") : ""));
    table.appendChild(caption);
    var body = el("tbody");
    function row(name, value, extra) {
      var tr = el("tr", extra || "");
      var th = el("th", "", name);
      th.scope = "row";
      tr.appendChild(th);
      tr.appendChild(el("td", "", value));
      body.appendChild(tr);
      return tr;
    }
    Object.keys(pub.labels).forEach(function (box) {
      var value = sheet.boxes[box];
      row(label(box), value === null ? gettext("open") : String(value), value === null ? "is-open" : "is-filled")
        .setAttribute("data-box", box);
      if (box === "sixes") {
        var next = sheet.next_bonus;
        row(gettext("Basic total"), String(sheet.basic), "total-row");
        // How far the next bonus step is: "+12 → 35" (12 more Basic points earn 35).
        row(gettext("Bonus"), String(sheet.bonus) + (next ? " (+" + next.needs + " → " + next.bonus + ")" : ""), "total-row bonus-row");
      }
    });
    row(gettext("Kismet section"), String(sheet.kismet_section), "total-row");
    row(gettext("Total"), String(sheet.total), "total-row grand-total");
    table.appendChild(body);
    return table;
  }

  function drawOwnSheet(pub) {
    var box = $("sheet");
    box.textContent = "";
    var seat = state.seat;
    if (seat === null || seat === undefined) {
      if (pub.turn !== null && pub.turn !== undefined) box.appendChild(sheetTable(pub, pub.turn, true));
      return;
    }
    box.appendChild(sheetTable(pub, seat, true));
  }

  function drawAllSheets(pub) {
    var box = $("sheets");
    box.textContent = "";
    pub.seats.forEach(function (_, seat) {
      var table = sheetTable(pub, seat, false);
      if (seat === pub.turn) table.classList.add("on-turn");
      box.appendChild(table);
    });
  }

  function drawTotals(pub) {
    var table = $("scores");
    if (!table) return;
    var body = table.querySelector("tbody");
    body.textContent = "";
    pub.seats.forEach(function (name, seat) {
      var tr = el("tr", seat === pub.turn ? "on-turn" : "");
      var th = el("th", "", name);
      th.scope = "row";
      if (seat === state.seat) th.appendChild(el("span", "muted", " " + gettext("(you)")));
      var tag = TableLive.botTag((state.seats || [])[seat]);
      if (tag) th.appendChild(el("span", "muted", tag));
      tr.appendChild(th);
      tr.appendChild(el("td", "score", String(pub.scores[seat]) + " · " + pub.sheets[seat].filled + "/15"));
      body.appendChild(tr);
    });
  }

  // --- what the server sends -----------------------------------------------------------------

  // A newer state: the dice typed in (or being typed again) belong to the old one.
  function taking(payload, old) {
    if (!old || payload.moves_made !== old.moves_made) { retyping = false; typed = []; }
  }

  function moved(old, data) {
    retyping = false;
    typed = [];
    return Object.assign({}, old, {
      public: data.view, moves_made: data.move.number, said: data.said,
      on_turn: old.seat !== null && data.view.turn === old.seat && old.status === "playing",
      legal_moves: [], can_undo: false, hint: null,
    });
  }

  function asks(next, data) { return next.on_turn || data.view.turn === null; }

  function send(fields) { table.send(fields); }

  document.addEventListener("click", function (event) {
    var target = event.target.closest && event.target.closest("[data-die], [data-move], [data-type], [data-untype]");
    if (!target) return;
    if (!state) return;
    event.preventDefault();
    if (busy) return;
    if (target.hasAttribute("data-die")) {
      var index = parseInt(target.getAttribute("data-die"), 10);
      var at = held.indexOf(index);
      if (at === -1) held.push(index); else held.splice(at, 1);
      render();
      return;
    }
    if (target.hasAttribute("data-type")) {
      if (typed.length < 5) typed.push(parseInt(target.getAttribute("data-type"), 10));
      render();
      return;
    }
    if (target.hasAttribute("data-untype")) {
      typed.splice(parseInt(target.getAttribute("data-untype"), 10), 1);
      render();
      return;
    }
    var kind = target.getAttribute("data-move");
    if (kind === "roll") {
      send(state.public.dice ? { kind: "roll", keep: heldFaces(state.public) } : { kind: "roll" });
    } else if (kind === "enter") {
      if (typed.length === 5) send({ kind: "enter", dice: typed.slice() });
    } else if (kind === "retype") {
      retyping = true;
      typed = [];
      render();
    } else if (kind === "score") {
      send({ kind: "score", box: target.getAttribute("data-box") });
    } else {
      send({ kind: kind });
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    // The lobby has no #play yet: the page still follows the table (its seats, the start).
    if ($("play") && !$("play").hasAttribute("data-kismet")) return;
    table = TableLive.start({
      render: function (next, nowBusy) { state = next; busy = nowBusy; render(); },
      taking: taking,
      moved: moved,
      asks: asks,
    });
  });
})();
