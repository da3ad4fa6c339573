// A game table's page (a phone's, or the table screen's): draws the game from what the server
// sends (the page's payload, the stream's events, a move's answer), never from anything it works
// out itself: whose turn, the legal moves, the keeps and their points all come from the server.
// The seat on turn gets buttons for exactly its legal moves; every move carries a random key,
// reused when it is sent again, and the buttons are locked while it is under way.
// No inline script (CSP): the payload arrives in <script type="application/json"> blocks.
(function () {
  "use strict";

  var FACE_WORDS = ["", "one", "two", "three", "four", "five", "six"];
  var CARD_WHY = {
    BONUS_300: "Fill to add 300; you may stop once you have set something aside.",
    BONUS_400: "Fill to add 400; you may stop once you have set something aside.",
    BONUS_500: "Fill to add 500; you may stop once you have set something aside.",
    FILL_1000: "Fill to add 1,000: no stopping before the Fill.",
    MUST_BUST: "Toss until you bust, setting aside every scoring die each time.",
    VENGEANCE_2500: "Fill it and the leaders lose points.",
    DOUBLE_TROUBLE: "Fill twice and the turn's points are doubled.",
    NO_DICE: "The turn is over.",
  };
  var LABELS = {
    draw: "Turn a card",
    play: "Play the Vengeance",
    decline: "Decline the Vengeance",
    stop: "Stop and bank",
    end: "End the turn",
    "continue": "Continue: turn a card",
  };

  var state = null;
  var urls = {};
  var selected = [];      // indices of the tossed dice tapped to set aside
  var selectedFor = -1;   // the move number the selection belongs to
  var busy = false;
  var POLL_MS = 10000;    // the page's data-poll-seconds (settings.PHONE_POLL_SECONDS) when it has one
  var TRY_TIMEOUT_MS = 6000;
  var TRIES = 4;

  function $(id) { return document.getElementById(id); }
  function isScreen() { var play = $("play"); return play && play.hasAttribute("data-screen"); }

  function newKey() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function die(face, asButton) {
    var node = el(asButton ? "button" : "span", "die face-" + face);
    if (asButton) node.type = "button";
    node.setAttribute(asButton ? "aria-label" : "title", String(face));
    if (!asButton) node.setAttribute("aria-label", String(face));
    for (var i = 0; i < face; i++) node.appendChild(el("span", "pip"));
    return node;
  }

  function csrf() {
    var match = document.cookie.match(/(?:^|; )csrftoken=([^;]*)/);
    if (match) return decodeURIComponent(match[1]);
    var field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
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
    if (!state || !$("play")) return;
    var pub = state.public;
    var seats = pub.seats || [];
    $("play").setAttribute("data-moves", String(state.moves_made));
    var turnLine = $("turn-line");
    if (state.status === "over" || pub.turn === null) {
      var winners = pub.winners || [];
      turnLine.textContent = winners.length ? winners.join(" and ") + (winners.length > 1 ? " win!" : " wins!") : "The game is over";
    } else if (state.status === "seating") {
      turnLine.textContent = "Waiting for the start";
    } else if (myTurn()) {
      turnLine.textContent = "Your turn";
    } else {
      turnLine.textContent = seats[pub.turn] + "'s turn";
    }
    turnLine.classList.toggle("is-mine", myTurn());
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
      aside.appendChild(el("span", "muted", "Set aside: "));
      pub.set_aside.forEach(function (face) { aside.appendChild(die(face, false)); });
    }
    var atRisk = (pub.pending || 0) + (pub.card_points || 0);
    $("pending").textContent = pub.turn === null ? "" : "At risk this turn: " + atRisk.toLocaleString("en") +
      (pub.pending ? " (" + pub.pending.toLocaleString("en") + " from earlier cards)" : "") +
      (pub.cards_left !== null && pub.cards_left !== undefined ? " · " + pub.cards_left + " cards left" : "");
    drawScores(pub);
    drawActions(pub);
  }

  function drawDice(pub) {
    var box = $("dice");
    box.textContent = "";
    var toss = pub.last_toss;
    var keepLine = $("keep-line");
    if (keepLine) keepLine.textContent = "";
    if (!toss) {
      if (pub.phase === "toss" && pub.dice_to_toss) {
        box.appendChild(el("p", "dice-waiting", pub.dice_to_toss + " " + (pub.dice_to_toss === 1 ? "die" : "dice") + " to toss"));
      }
      return;
    }
    var canKeep = myTurn() && pub.phase === "keep" && (state.keeps || []).length > 0;
    if (canKeep && selectedFor !== state.moves_made) {
      selected = state.must_bust ? indicesOf(state.keeps[0].dice) : [];
      selectedFor = state.moves_made;
    }
    box.setAttribute("aria-label", "Tossed: " + toss.join(" "));
    toss.forEach(function (face, index) {
      var node = die(face, canKeep);
      if (canKeep) {
        var on = selected.indexOf(index) !== -1;
        node.setAttribute("aria-pressed", on ? "true" : "false");
        node.setAttribute("aria-label", FACE_WORDS[face] + (on ? ", chosen" : ""));
        node.setAttribute("data-die", String(index));
        if (state.must_bust) node.disabled = true;
      }
      box.appendChild(node);
    });
    if (canKeep && keepLine) {
      var keep = keepFor(selected);
      if (state.must_bust) {
        keepLine.textContent = "MUST BUST: every toss sets aside all its scoring dice, so they are chosen for you (" +
          state.keeps[0].points + " points).";
      } else if (!selected.length) {
        keepLine.textContent = "Tap the scoring dice to set them aside.";
      } else if (keep) {
        keepLine.textContent = "Selected: " + keep.dice.join(" ") + " = " + keep.points + " points";
      } else {
        keepLine.textContent = "Those dice don't make a scoring selection.";
      }
    }
  }

  function drawScores(pub) {
    var table = $("scores");
    if (!table) return;
    var body = table.querySelector("tbody");
    body.textContent = "";
    $("goal").textContent = pub.goal ? "(to " + pub.goal.toLocaleString("en") + ")" : "";
    (pub.seats || []).forEach(function (name, seat) {
      var row = el("tr", seat === pub.turn ? "on-turn" : "");
      var who = el("th", "", name);
      who.scope = "row";
      if (seat === state.seat) who.appendChild(el("span", "muted", " (you)"));
      var bot = (state.seats || [])[seat];
      if (bot && bot.bot) who.appendChild(el("span", "muted", " · bot"));
      row.appendChild(who);
      row.appendChild(el("td", "score", (pub.scores[seat] || 0).toLocaleString("en")));
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
    box.textContent = "";
    box.classList.toggle("is-busy", busy);
    if (!myTurn()) return;
    var kinds = [];
    (state.legal_moves || []).forEach(function (move) {
      if (kinds.indexOf(move.kind) === -1) kinds.push(move.kind);
    });
    kinds.forEach(function (kind) {
      if (kind === "keep") {
        var keep = keepFor(selected);
        var node = button(keep ? "Set aside " + keep.dice.join(" ") + " (" + keep.points + ")" : "Set aside", "keep");
        node.disabled = busy || !keep;
        box.appendChild(node);
      } else if (kind === "toss") {
        box.appendChild(button("Toss " + pub.dice_to_toss + " " + (pub.dice_to_toss === 1 ? "die" : "dice"), "toss"));
      } else if (kind === "stop") {
        var atRisk = (pub.pending || 0) + (pub.card_points || 0);
        box.appendChild(button("Stop and bank " + atRisk.toLocaleString("en"), "stop", "button-secondary"));
      } else {
        box.appendChild(button(LABELS[kind] || kind, kind, kind === "decline" || kind === "end" ? "button-secondary" : ""));
      }
    });
    if (state.can_undo) box.appendChild(button("Undo", "undo", "button-secondary undo-button"));
  }

  function say(text) {
    var box = $("move-message");
    if (!box) return;
    box.hidden = !text;
    box.textContent = text || "";
  }

  // --- what the server sends -----------------------------------------------------------------

  function take(payload) {
    // A newer state replaces an older one; the same state again refreshes what the seat may do.
    if (state && payload.moves_made < state.moves_made) return;
    if (state && payload.status !== state.status && (payload.status === "over" || state.status === "seating")) {
      location.reload();
      return;
    }
    state = payload;
    render();
  }

  function moved(data) {
    if (!state || data.move.number <= state.moves_made) return;
    state = Object.assign({}, state, {
      public: data.view, moves_made: data.move.number, said: data.said,
      on_turn: state.seat !== null && data.view.turn === state.seat && state.status === "playing",
      legal_moves: [], keeps: [], can_undo: false, must_bust: false,
    });
    render();
    // The seat on turn asks for its legal moves and keeps (they are on no public channel).
    if (state.on_turn || data.view.turn === null) refresh();
  }

  function refresh() {
    if (!urls.state) return;
    fetch(urls.state, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (payload) { if (payload) take(payload); })
      .catch(function () { /* the next event or poll tries again */ });
  }

  function live(on) {
    var badge = document.querySelector("[data-live-badge]");
    if (!badge) return;
    badge.textContent = on ? "Live" : "Reconnecting…";
    badge.classList.toggle("is-live", on);
  }

  function follow() {
    if (!urls.events || !window.EventSource) return;
    var source = new EventSource(urls.events);
    source.onopen = function () { live(true); };
    source.onerror = function () { live(false); };
    source.onmessage = function (event) {
      var data = JSON.parse(event.data);
      if (data.snapshot) take(data);
    };
    source.addEventListener("moved", function (event) { moved(JSON.parse(event.data)); });
    source.addEventListener("table_state", function (event) {
      var data = JSON.parse(event.data);
      if (!state) return;
      if (data.what === "over" || data.what === "started" || data.what === "clock" || state.status === "seating" ||
          (data.what === "seat_released" && data.seat === undefined)) {
        location.reload();  // the page changes shape (or this phone's seat went): draw it anew
        return;
      }
      refresh();
    });
    source.addEventListener("hand", function () { refresh(); });
  }

  // --- a move ----------------------------------------------------------------------------------

  function sleep(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }

  async function postOnce(body) {
    var controller = new AbortController();
    var timer = setTimeout(function () { controller.abort(); }, TRY_TIMEOUT_MS);
    try {
      var response = await fetch(urls.move, {
        method: "POST", body: body, credentials: "same-origin", signal: controller.signal,
        headers: { "X-CSRFToken": csrf(), "Accept": "application/json" },
      });
      var text = await response.text();
      var answer = {};
      try { answer = JSON.parse(text); } catch (error) { /* a page, not JSON */ }
      return { status: response.status, ok: response.ok, answer: answer };
    } finally {
      clearTimeout(timer);
    }
  }

  async function send(kind, dice) {
    if (busy || !state) return;
    busy = true;
    say("");
    render();
    var body = new FormData();
    body.set("kind", kind);
    (dice || []).forEach(function (face) { body.append("dice", String(face)); });
    body.set("seat", String(state.seat));
    body.set("key", newKey());  // one key per move: sent again as it is, it counts once
    try {
      for (var attempt = 0; attempt < TRIES; attempt++) {
        try {
          var result = await postOnce(body);
          live(true);
          if (result.ok) { take(result.answer); return; }
          if (result.status < 500) {
            say(result.answer.error || "That move wasn't taken (error " + result.status + "). Reload the page.");
            refresh();
            return;
          }
        } catch (error) {
          live(false);
        }
        say("No answer yet: sending the move again…");
        await sleep(Math.min(500 * Math.pow(2, attempt), 3000));
      }
      say("Not sent: no connection. Check the game above, then move again.");
    } finally {
      busy = false;
      render();
    }
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest && event.target.closest("[data-die], [data-move], [data-step]");
    if (!target || !state) {
      stepClick(event);
      return;
    }
    if (target.hasAttribute("data-step")) { stepClick(event); return; }
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

  // --- the replay, step by step ----------------------------------------------------------------

  var shown = 0;

  function showSteps() {
    var items = document.querySelectorAll("[data-step-item]");
    items.forEach(function (item, index) { item.hidden = index >= shown; });
    var count = document.querySelector("[data-step-count]");
    if (count) count.textContent = "Step " + shown + " of " + items.length;
    var last = items[shown - 1];
    if (last) last.scrollIntoView({ block: "nearest" });
  }

  function stepClick(event) {
    var target = event.target.closest && event.target.closest("[data-step]");
    if (!target) return;
    var items = document.querySelectorAll("[data-step-item]");
    var step = target.getAttribute("data-step");
    shown = step === "all" ? items.length : Math.max(1, Math.min(items.length, shown + parseInt(step, 10)));
    showSteps();
  }

  function setUpStepper() {
    var stepper = document.querySelector("[data-stepper]");
    if (!stepper) return;
    stepper.hidden = false;
    shown = 1;
    showSteps();
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUpStepper();
    var data = $("table-data");
    if (!data) return;
    urls = JSON.parse($("table-urls").textContent);
    state = JSON.parse(data.textContent);
    render();
    follow();
    // The safety net: whatever the stream missed, a slow poll brings.
    var pollSeconds = parseFloat($("play") && $("play").getAttribute("data-poll-seconds"));
    if (pollSeconds > 0) POLL_MS = pollSeconds * 1000;
    setInterval(refresh, POLL_MS);
  });
})();
