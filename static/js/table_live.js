// What every game table's page (a phone's, or the table screen's) does the same way, whatever the
// game: it follows the table's stream (its snapshot, "moved" and "table_state" events, and a game's
// "hand" when it has one), asks for the state again when the stream says so, polls slowly as a
// safety net, reloads when the page changes shape, and sends a move with a random key, reused
// when it is sent again (so it counts once), with the buttons locked while it is under way (the key
// and the tries are static/js/send.js's, loaded before this script).
// A game's script (static/js/games/<game>/table.js, loaded by the game's _head.html) keeps only its drawing and
// its moves: TableLive.start(game) calls game.render(state, busy) after every change.
(function () {
  "use strict";

  var POLL_MS = 10000;    // the page's data-poll-seconds (settings.PHONE_POLL_SECONDS) when it has one
  var STILL_HERE_MS = 20000;  // well inside the shortest patience a table may have (1 minute)
  var RELOAD_ON = ["over", "started"];  // the table_state events that change every game's page

  function $(id) { return document.getElementById(id); }
  function isScreen() { var play = $("play"); return play && play.hasAttribute("data-screen"); }

  // Draws `box` anew: `draw` fills an empty copy of it, and the page takes from the copy only what
  // differs, keeping every element that stays (a button whose label changes stays the same button).
  // A refresh (the poll, an event bringing the same state again, a die tapped beside) so leaves the
  // buttons under a finger where they are: replaced, a button pressed on the old one and released on
  // its copy gets no click at all, and the tap is lost (CI saw it on a busy machine: a box to score in,
  // or a die to hold, tapped while the page refreshed, never taken).
  function redraw(box, draw) {
    var copy = box.cloneNode(false);
    draw(copy);
    if (!copy.isEqualNode(box)) morph(box, copy);
  }
  function morph(element, like) {
    Array.prototype.slice.call(element.attributes).forEach(function (attribute) {
      if (!like.hasAttribute(attribute.name)) element.removeAttribute(attribute.name);
    });
    Array.prototype.forEach.call(like.attributes, function (attribute) {
      if (element.getAttribute(attribute.name) !== attribute.value) element.setAttribute(attribute.name, attribute.value);
    });
    if ("disabled" in like) element.disabled = like.disabled;
    var old = Array.prototype.slice.call(element.childNodes);
    var kept = Array.prototype.map.call(like.childNodes, function (node, index) {
      var was = old[index];
      if (!was) return node;
      if (was.isEqualNode(node)) return was;
      if (was.nodeType === 1 && node.nodeType === 1 && was.tagName === node.tagName) {
        morph(was, node);
        return was;
      }
      return node;
    });
    // Node by node: a kept element is never taken out and put back (that too loses the click).
    kept.forEach(function (node, index) {
      if (node === old[index]) return;
      if (old[index]) element.replaceChild(node, old[index]);
      else element.appendChild(node);
    });
    old.slice(kept.length).forEach(function (node) { element.removeChild(node); });
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function csrf() {
    var match = document.cookie.match(/(?:^|; )csrftoken=([^;]*)/);
    if (match) return decodeURIComponent(match[1]);
    var field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  // Whose turn it is, in words, on the turn line: the winners once the game is over, "Your turn"
  // on the phone whose turn it is, else the player's name. (A game whose turn says more, the deal or the card
  // to play, writes its own turn line.)
  // "Ada", "Ada and Bea", "Ada and Bea and Cy", in the page's language.
  function namesAnd(names) {
    return names.slice(1).reduce(function (said, name) {
      return interpolate(gettext("%(names)s and %(name)s"), { names: said, name: name }, true);
    }, names[0] || "");
  }

  function sayTurn(state, yourTurn) {
    var pub = state.public;
    var seats = pub.seats || [];
    var line = $("turn-line");
    if (state.status === "over" || pub.turn === null) {
      var winners = pub.winners || [];
      line.textContent = winners.length
        ? interpolate(ngettext("%(names)s wins!", "%(names)s win!", winners.length), { names: namesAnd(winners) }, true)
        : gettext("The game is over");
    } else if (state.status === "seating") {
      line.textContent = gettext("Waiting for the start");
    } else if (yourTurn) {
      line.textContent = gettext("Your turn");
    } else {
      line.textContent = interpolate(gettext("%(name)s's turn"), { name: seats[pub.turn] }, true);
    }
    line.classList.toggle("is-mine", yourTurn);
  }

  function say(text) {
    var box = $("move-message");
    if (!box) return;
    box.hidden = !text;
    box.textContent = text || "";
  }

  // A form of this page is on its way (a seat tapped, Start, a seat freed): its answer draws the
  // page. A reload now would cancel it, and with it the answer's cookie and the page it leads to
  // (a claim's own live event arrives before its answer: the phone lost the seat it had just taken).
  var leaving = false;
  // (On the window, so that a form a script sends itself, its default prevented, does not count.)
  window.addEventListener("submit", function (event) { if (!event.defaultPrevented) leaving = true; });
  window.addEventListener("pageshow", function () { leaving = false; });  // back from the cache
  function reload() {
    if (leaving) return;
    leaving = true;  // once: a burst of events (a reconnect's replay) asks many times
    location.reload();
  }

  // The seats the game waits on that nobody plays (no phone, no bot): say so, and open the seats,
  // where the seat's own button is (and the opener's "Hand … to a bot").
  function sayUnheld(state) {
    var line = $("unheld");
    if (!line) return;
    var seats = state.seats || [];
    var names = (state.unheld || []).map(function (number) {
      var seat = seats.filter(function (s) { return s.number === number; })[0];
      return seat ? seat.name : "";
    }).filter(Boolean);
    var text = "";
    if (names.length) {
      var who = namesAnd(names);
      var opener = line.hasAttribute("data-opener");
      text = interpolate(opener
        ? ngettext("Waiting for %(who)s: no phone plays this seat. %(who)s, tap your name under Seats; or hand the seat to a bot there.",
          "Waiting for %(who)s: no phone plays these seats. %(who)s, tap your name under Seats; or hand the seat to a bot there.",
          names.length)
        : ngettext("Waiting for %(who)s: no phone plays this seat. %(who)s, tap your name under Seats.",
          "Waiting for %(who)s: no phone plays these seats. %(who)s, tap your name under Seats.", names.length),
      { who: who }, true);
      var panel = document.querySelector(".seats-panel");
      if (panel && line.hidden) panel.open = true;  // once, as the notice appears
    }
    line.hidden = !text;
    line.textContent = text;
  }

  // Mid-game, who plays which seat changes rarely, and the Seats list is the server's (its forms,
  // the opener's buttons): when it changes, the list is read again from the page and put in place,
  // the rest of the page (a die being picked, faces being typed) left as it is.
  var SEAT_CHANGES = ["seat_claimed", "seat_released", "seat_to_bot", "seat_to_person"];
  function redrawSeats() {
    redrawFromPage(".seats-panel ul.seats", partsInTheLobby);  // the seats' parts, ticked again where this phone sent one
  }

  // The clock the table plays against (a tournament round's) was set, paused or started: only its
  // line changes, read again from the page and put in place. A reload would lose what the page
  // holds, the sound its first touch unlocked among it (chime.js), and the clock's warnings with it.
  function redrawClock() {
    if (!document.querySelector(".table-clock")) { reload(); return; }  // the page has no clock line yet
    redrawFromPage(".table-clock");
  }

  // One part of the page (`selector`), read again from the server's page and put in place; `then`
  // runs after it. A part the page does not show is left alone.
  function redrawFromPage(selector, then) {
    if (!document.querySelector(selector)) return;
    fetch(location.href, { credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        var part = document.querySelector(selector);
        if (!html || !part) return;
        var fresh = new DOMParser().parseFromString(html, "text/html").querySelector(selector);
        if (fresh) part.replaceWith(document.importNode(fresh, true));
        if (then) then();
      })
      .catch(function () { /* the next change or a reload draws it */ });
  }

  function live(on) {
    var badge = document.querySelector("[data-live-badge]");
    if (!badge) return;
    badge.textContent = on ? gettext("Live") : gettext("Reconnecting…");
    badge.classList.toggle("is-live", on);
  }

  // game: {
  //   render(state, busy)  draws the page; called after every change of the state or of busy,
  //   moved(state, data)   the state after a "moved" event, from the one before (the game's rules
  //                        for whose turn it now is and what to forget),
  //   asks(state, data)    after a "moved" event, whether to ask for the state (the seat on turn's
  //                        legal moves are on no public channel),
  //   taking(payload, state)  optional: a newer or the same state is about to replace this one,
  //   reloadOn             optional: the table_state events ("what") that reload the page,
  //                        ["over", "started"] unless given,
  //   hand(event)          optional: a listener for the stream's "hand" events,
  // }
  // Returns null when the page has no table (no #table-data), else { refresh, send, set }.
  // "Your turn" heard and felt (static/js/chime.js rings an element marked data-chime once per key):
  // only the phone whose turn it now is gets the marker, keyed by the move that gave it the turn,
  // so the moves of its own turn (a toss, a keep) do not ring it again. The screen never rings.
  var turnCameAt = null;

  function markTurn(state) {
    var marker = $("turn-chime");
    if (isScreen() || state.on_turn !== true || state.status !== "playing") {
      turnCameAt = null;
      if (marker) marker.remove();
      return;
    }
    if (turnCameAt === null) turnCameAt = state.moves_made;
    var key = "turn-" + turnCameAt;
    if (marker && marker.getAttribute("data-chime") === key) return;
    if (marker) marker.remove();
    marker = document.createElement("span");
    marker.id = "turn-chime";
    marker.hidden = true;
    marker.setAttribute("data-chime", key);
    document.body.appendChild(marker);
  }

  function start(game) {
    var data = $("table-data");
    if (!data) return null;
    var urls = JSON.parse($("table-urls").textContent);
    var state = JSON.parse(data.textContent);
    var busy = false;
    var reloadOn = game.reloadOn || RELOAD_ON;

    function show() { game.render(state, busy); sayUnheld(state); markTurn(state); }

    // The badge says "Live" while the stream is open and no move is failing to go through: a move
    // whose tries fail says "Reconnecting…" while it tries, and once it is given up (or goes
    // through) the badge says again what the stream says, not the last try's failure for ever.
    var streamOpen = false, moveFailing = false;
    function badge() { live(streamOpen && !moveFailing); }

    // "Still here": while this page is shown, the phone holding a seat tells the server so every
    // 20 s (and as soon as it is shown again), which keeps its seat. A phone asleep, its page
    // hidden, says nothing: past the table's patience a bot plays the seat until it is back
    // (games/table/actions.py cover_quiet_seats). urls.here is given only where patience can run out.
    function stillHere() {
      if (!urls.here || document.visibilityState !== "visible") return;
      fetch(urls.here, { method: "POST", credentials: "same-origin", headers: { "X-CSRFToken": csrf() } })
        .catch(function () { /* the next one, or a move, is heard */ });
    }
    if (urls.here) {
      setInterval(stillHere, STILL_HERE_MS);
      document.addEventListener("visibilitychange", stillHere);
    }

    function set(next) {
      state = next;
      show();
    }

    function take(payload) {
      // A newer state replaces an older one; the same state again refreshes what the seat may do.
      if (state && payload.moves_made < state.moves_made) return;
      if (state && payload.status !== state.status && (payload.status === "over" || state.status === "seating")) {
        reload();
        return;
      }
      if (state && !isScreen() && payload.seat !== state.seat) {
        reload();  // this phone's seat changed (a bot gave it back, the opener freed it): draw anew
        return;
      }
      if (game.taking) game.taking(payload, state);
      set(payload);
    }

    function moved(data) {
      if (!state || data.move.number <= state.moves_made) return;
      set(game.moved(state, data));
      if (game.asks(state, data)) refresh();
    }

    function refresh() {
      if (!urls.state) return;
      fetch(urls.state, { credentials: "same-origin", headers: { "Accept": "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (payload) { if (payload) take(payload); })
        .catch(function () { /* the next event or poll tries again */ });
    }

    // A reconnect's replay sends the last few events again (live/streams.py REPLAY_OVERLAP_IDS, so
    // that none committed out of order is lost): an event already taken is skipped, so a table's
    // "started" or "over" taken once does not reload the page again.
    var seen = new Set();
    function firstTime(event) {
      var id = event.lastEventId;
      if (!id) return true;
      if (seen.has(id)) return false;
      seen.add(id);
      if (seen.size > 1000) seen.delete(seen.values().next().value);
      return true;
    }

    function follow() {
      if (!urls.events || !window.EventSource) return;
      var source = new EventSource(urls.events);
      // Anything the stream brings says it is open (an event can outrun the open's own callback).
      function heard() { if (!streamOpen) { streamOpen = true; badge(); } }
      source.onopen = function () { streamOpen = true; badge(); };
      source.onerror = function () { streamOpen = false; badge(); };
      source.onmessage = function (event) {
        heard();
        var data = JSON.parse(event.data);
        if (data.snapshot) take(data);
      };
      source.addEventListener("moved", function (event) {
        heard();
        if (firstTime(event)) moved(JSON.parse(event.data));
      });
      source.addEventListener("table_state", function (event) {
        heard();
        if (!firstTime(event)) return;
        var data = JSON.parse(event.data);
        if (!state) return;
        if (reloadOn.indexOf(data.what) !== -1 || state.status === "seating" ||
            (data.what === "seat_released" && data.seat === undefined)) {
          reload();  // the page changes shape (or this phone's seat went): draw it anew
          return;
        }
        if (SEAT_CHANGES.indexOf(data.what) !== -1) redrawSeats();
        if (data.what === "clock") redrawClock();
        refresh();
      });
      if (game.hand) source.addEventListener("hand", function (event) { if (firstTime(event)) game.hand(event); });
    }

    // The answer's JSON ({} when it is a page, not JSON).
    function answerOf(result) {
      try { return JSON.parse(result.text); } catch (error) { return {}; }
    }

    // fields: the move's form fields in order; a list is sent as one field a value, undefined not at all.
    async function send(fields) {
      if (busy || !state) return;
      busy = true;
      say("");
      show();
      var body = new FormData();
      Object.keys(fields).forEach(function (name) {
        var value = fields[name];
        if (value === undefined) return;
        if (Array.isArray(value)) value.forEach(function (v) { body.append(name, String(v)); });
        else body.set(name, String(value));
      });
      body.set("seat", String(state.seat));
      body.set("key", Send.newKey());  // one key per move: sent again as it is, it counts once
      // This phone's part of the move's chance (docs/FAIRNESS.md): fresh for every move, sent again
      // with its key on a retry (the same key with another part is refused).
      body.set("client", Send.newKey());
      try {
        var result = await Send.post(urls.move, body, {
          csrf: csrf(),
          answered: function () { moveFailing = false; badge(); },  // an answer came: the connection is there
          failed: function () { moveFailing = true; badge(); },
          retrying: function () { say(gettext("No answer yet: sending the move again…")); },
        });
        if (result && result.ok) {
          say("");
          take(answerOf(result));
        } else if (result) {
          say(answerOf(result).error ||
            interpolate(gettext("That move wasn't taken (error %(status)s). Reload the page."), { status: result.status }, true));
          refresh();
        } else {
          say(gettext("Not sent: no connection. Check the game above, then move again."));
        }
      } finally {
        busy = false;
        moveFailing = false;  // given up (or through): the badge follows the stream again
        badge();
        show();
      }
    }

    show();
    follow();
    // The safety net: whatever the stream missed, a slow poll brings.
    var pollMs = POLL_MS;
    var pollSeconds = parseFloat($("play") && $("play").getAttribute("data-poll-seconds"));
    if (pollSeconds > 0) pollMs = pollSeconds * 1000;
    setInterval(refresh, pollMs);
    return { refresh: refresh, send: send, set: set };
  }

  // The lobby: a seat's claim brings this phone's part of the deal (docs/FAIRNESS.md: 16 random bytes,
  // Send.newKey's, which plain http has too). The phone keeps what it sent, and the seat's
  // line says so when the fingerprint the server shows is that part's.
  function partsInTheLobby() {
    Array.prototype.forEach.call(document.querySelectorAll("input[data-contribution]"), function (input) {
      input.value = Send.newKey();
      input.form.addEventListener("submit", function () {
        try { sessionStorage.setItem("part:" + input.getAttribute("data-contribution"), input.value); } catch (error) { /* private mode */ }
      });
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-part]"), function (shown) {
      var sent = null;
      try { sent = sessionStorage.getItem("part:" + shown.getAttribute("data-part-table")); } catch (error) { /* private mode */ }
      if (sent && sent.slice(0, shown.getAttribute("data-part").length) === shown.getAttribute("data-part")) {
        shown.appendChild(document.createTextNode(" ✓ " + gettext("from this phone")));
      }
    });
  }
  partsInTheLobby();

  // A refused form of the page (a seat tapped, the opener's buttons) is answered with the page
  // itself, the refusal said on it, at the form's address: the table's goes back in the address
  // bar, so that a reload (or a return to the tab) shows the table, not the form's 405.
  (function () {
    var urls = $("table-urls");
    var page = urls && JSON.parse(urls.textContent).page;
    if (page && location.pathname !== page && window.history && history.replaceState) {
      history.replaceState(null, "", page + location.hash);
    }
  })();

  // What a score line says after a seat's name when a bot plays it (the payload's seats[n]): a
  // bot of the table's, or one that keeps the seat for a phone gone quiet (games/table/actions.py).
  function botTag(seat) {
    if (!seat || !seat.bot) return "";
    return " · " + (seat.kept ? gettext("a bot until the phone is back") : gettext("bot"));
  }

  window.TableLive = { $: $, el: el, redraw: redraw, isScreen: isScreen, sayTurn: sayTurn, start: start,
                       partsInTheLobby: partsInTheLobby, botTag: botTag };
})();
