// The phone's scoring buttons. Each tap gets its own key, so a tap retried after a dropped
// connection is counted once by the server; taps are sent one after another, in order, and every
// tap says whether it was taken. No inline script (CSP); htmx does everything else on the page.
// Also loaded on the host's page, for the guard on the buttons that end a step (below). The key and
// the tries are static/js/send.js's (loaded before this script).
(function () {
  "use strict";

  var queue = Promise.resolve();

  // A tap not yet answered is kept on the phone (localStorage) until its answer comes: a phone that
  // loses the Wi-Fi and reloads (the offline page, then its table again) sends it once more, with
  // its own key, when its page is back, so it counts once whether or not its first copy arrived. A
  // tap the phone gave up on (and said so) is forgotten: the player taps it again. Old ones too.
  var PENDING = "bunco-pending-taps";
  var PENDING_MAX_AGE_MS = 15 * 60 * 1000;

  function pendingTaps() {
    try { return JSON.parse(localStorage.getItem(PENDING) || "[]"); } catch (error) { return []; }
  }

  function keepPending(list) {
    try { localStorage.setItem(PENDING, JSON.stringify(list)); } catch (error) { /* private mode: memory only */ }
  }

  function rememberTap(key, url, body, label, place) {
    var fields = [];
    body.forEach(function (value, name) { if (name !== "csrfmiddlewaretoken") fields.push([name, String(value)]); });
    keepPending(pendingTaps().concat([{ key: key, url: url, fields: fields, label: label, place: place, at: Date.now() }]));
  }

  function forgetTap(key) {
    if (key) keepPending(pendingTaps().filter(function (entry) { return entry.key !== key; }));
  }

  // A tap being sent ("Sending…") is busy (aria-busy): a screen reader hears its outcome only, with
  // the total it made (static/js/announce.js), one announcement a tap.
  function sayNow(text, kind) {
    var status = document.getElementById("tap-status");
    if (!status) return;
    if (kind === "pending") status.setAttribute("aria-busy", "true");
    else status.removeAttribute("aria-busy");
    status.textContent = text;
    status.className = "tap-status" + (kind ? " tap-" + kind : "");
  }

  function showTotals(answer) {
    ["a", "b"].forEach(function (team) {
      var cell = document.getElementById("r" + answer.round + "-t" + answer.table + "-" + team);
      if (cell) cell.textContent = answer[team];
    });
  }

  // What to say when a refusal carries no message of its own (a page from a proxy, the CSRF
  // check's page): what happened and what to do, by status. The server's refusals are JSON with
  // their own message ({"error": ...}), which is always shown first.
  var WITHOUT_A_MESSAGE = {
    400: gettext("Not saved: the page is out of date. Reload it and tap again."),
    403: gettext("Not saved: this phone isn't playing at this table now. Reload the page, or scan your table's QR code."),
    404: gettext("Not saved: this game no longer exists. Ask the host for tonight's QR code."),
    409: gettext("Not saved: the round has moved on. Reload the page to see where you are."),
    429: gettext("Not saved: too many taps from this network just now. Wait a moment, then tap again."),
  };

  function refusalMessage(status, answer) {
    if (answer && answer.error) return answer.error;
    return WITHOUT_A_MESSAGE[status] ||
      interpolate(gettext("Not saved (error %(status)s). Reload the page and tap again."), { status: status }, true);
  }

  // The buttons' answers are JSON; anything else (a page) may still carry an alert saying why.
  function readAnswer(text) {
    try { return JSON.parse(text); } catch (error) { /* not JSON: a page */ }
    var alert = new DOMParser().parseFromString(text, "text/html").querySelector("[role=alert]");
    return alert ? { error: alert.textContent.trim() } : {};
  }

  // A tap is sent by Send.post (static/js/send.js: its tries, their time limit, the waits between
  // them): a try that gets no answer is sent again with the same key (a tap that did arrive counts
  // once), and after the last try the phone says plainly which tap was not saved. Later taps wait
  // their turn, and are sent. The page may shorten a try's time limit (data-try-timeout-ms).
  var waiting = 0; // taps queued behind the one being sent
  var notSaved = []; // labels of the taps given up on, said until the player has read them

  function tryTimeout() {
    var form = document.getElementById("tally-form");
    var ms = form && parseInt(form.getAttribute("data-try-timeout-ms") || "", 10);
    return ms > 0 ? ms : undefined;
  }

  function connectionLost(lost) {
    // The live badge can't see a stalled stream; an unanswered tap is proof enough.
    var badge = document.querySelector("[data-live-badge]");
    if (!badge) return;
    if (lost) {
      badge.setAttribute("data-tap-lost", "");
      badge.textContent = gettext("No connection");
      badge.classList.remove("is-live");
    } else if (badge.hasAttribute("data-tap-lost")) {
      badge.removeAttribute("data-tap-lost");
      badge.textContent = gettext("Live");
      badge.classList.add("is-live");
    }
  }

  function sayNotSaved(extra) {
    var earlier = interpolate(ngettext("%(count)s tap was not saved (%(taps)s)", "%(count)s taps were not saved (%(taps)s)",
      notSaved.length), { count: notSaved.length, taps: notSaved.join(", ") }, true);
    sayNow(interpolate(gettext("%(what)s %(earlier)s: check the score above, then tap again what is missing."),
      { what: extra, earlier: earlier }, true), "error");
  }

  // Where the phone is: the round and table its page shows (#phone-state's data-place).
  function currentPlace() {
    var state = document.getElementById("phone-state");
    return state ? state.getAttribute("data-place") : "";
  }

  async function deliver(url, body, tap, place) {
    var label = tap.label;
    // An answer that comes back after the round or the table changed speaks of a round the phone
    // has left: it is not shown over the new one.
    function say(text, kind) { if (currentPlace() === place) sayNow(text, kind); }
    var result = await Send.post(url, body, {
      csrf: body.get("csrfmiddlewaretoken"),
      tryTimeoutMs: tryTimeout(),
      answered: function () { connectionLost(false); },
      failed: function () { connectionLost(true); },
      retrying: function () {
        say(waiting ? interpolate(gettext("No answer yet — sending %(tap)s again… (%(count)s more waiting)"), { tap: label, count: waiting }, true)
          : interpolate(gettext("No answer yet — sending %(tap)s again…"), { tap: label }, true), "warn");
      },
    });
    forgetTap(body.get("key"));
    if (result && result.ok) {
      showTotals(readAnswer(result.text));
      tap.saved = true;
      // The same points tapped again and saved: the earlier copy given up on is made good.
      var same = notSaved.indexOf(label);
      if (same !== -1 && currentPlace() === place) notSaved.splice(same, 1);
      if (notSaved.length) sayNotSaved(interpolate(gettext("✓ %(tap)s saved, but earlier"), { tap: label + tap.note }, true));
      else say("✓ " + label + tap.note, "ok");
      return;
    }
    if (result) {
      say(refusalMessage(result.status, readAnswer(result.text)), "error");
      return;
    }
    if (currentPlace() !== place) return;
    notSaved.push(label);
    sayNotSaved(gettext("Not saved: no connection."));
  }

  // The page is back (after the offline page, a reload, the phone waking): the taps still waiting
  // for an answer from before are sent again, in order, with their own keys.
  function sendPendingAgain() {
    var form = document.getElementById("tally-form");
    if (!form) return;
    var url = form.getAttribute("action"), undoUrl = form.getAttribute("data-undo-url");
    var token = new FormData(form).get("csrfmiddlewaretoken");
    var now = Date.now();
    var fresh = pendingTaps().filter(function (entry) { return now - entry.at < PENDING_MAX_AGE_MS; });
    keepPending(fresh);
    fresh.filter(function (entry) { return entry.url === url || entry.url === undoUrl; }).forEach(function (entry) {
      var body = new FormData();
      entry.fields.forEach(function (field) { body.append(field[0], field[1]); });
      body.set("csrfmiddlewaretoken", token);
      var tap = { label: entry.label, note: " " + gettext("(sent again now the connection is back)"), saved: false };
      sayNow(interpolate(gettext("Sending %(tap)s again…"), { tap: entry.label }, true), "pending");
      queue = queue.then(function () { return deliver(entry.url, body, tap, entry.place); });
    });
  }
  document.addEventListener("DOMContentLoaded", sendPendingAgain);

  // Buttons that end a step (start a round, "our turn is over", "every seat has rolled off", the
  // host's turn over / roll-off done / resume / end) name the step they end, so the other phone's
  // tap on the same step changes nothing. A double tap on one phone is another matter: the first
  // tap's answer puts the next step's button in the same place, and the second tap would end that
  // step before anyone played it. So for a moment after one, step buttons take no tap (and look
  // it). No real second step follows that fast at one table: every seat rolls in between. The
  // lock is per place (data-ends-step="table-2"): the host finishing table 2's turn and then table
  // 3's is two real taps.
  var STEP_LOCK_MS = 1200;
  var lastStepAt = {};

  function lockSteps(place, locked) {
    document.querySelectorAll("[data-ends-step]").forEach(function (button) {
      if (button.getAttribute("data-ends-step") === place) button.classList.toggle("is-locked", locked);
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-ends-step]");
    if (!button) return;
    var place = button.getAttribute("data-ends-step");
    var now = Date.now();
    if (now - (lastStepAt[place] || 0) < STEP_LOCK_MS) {
      event.preventDefault();
      event.stopPropagation();  // capturing on the document: htmx never sees this tap
      return;
    }
    lockStepsFor(place);
  }, true);

  function lockStepsFor(place) {
    lastStepAt[place] = Date.now();
    lockSteps(place, true);
    setTimeout(function () {
      if (Date.now() - lastStepAt[place] >= STEP_LOCK_MS) lockSteps(place, false);
    }, STEP_LOCK_MS);
  }

  // The lock runs from the answer too: on a slow network the next step's button appears late,
  // and the finger's second tap comes right after it appears.
  document.addEventListener("htmx:after:request", function (event) {
    var button = event.target;
    if (button && button.hasAttribute && button.hasAttribute("data-ends-step")) {
      lockStepsFor(button.getAttribute("data-ends-step"));
    }
  });

  // A new round, or a new table: the last tap's answer and the taps not saved belong to the round
  // the phone has left, so they go; and the buttons score for Us again (a morph keeps a radio the
  // player ticked, so "Them" would otherwise carry into the next round).
  function watchPlace() {
    var state = document.getElementById("phone-state");
    if (!state) return;
    var place = state.getAttribute("data-place");
    new MutationObserver(function () {
      if (state.getAttribute("data-place") === place) return;
      place = state.getAttribute("data-place");
      notSaved = [];
      sayNow("", "");
      var us = document.querySelector("#tally-form input[name=team]");
      if (us) us.checked = true;
    }).observe(state, { attributes: true, attributeFilter: ["data-place"] });
  }
  document.addEventListener("DOMContentLoaded", watchPlace);

  // A long message is laid over what is below it (so it never pushes the buttons): a tap on it
  // puts it away.
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("#tap-status")) sayNow("", "");
  });

  // A finger that bounces touches the same button twice within a few dozen milliseconds: that
  // second touch is not a second +2. A bounce is exactly that: a second touch within BOUNCE_MS on
  // the same button for the same team, that the browser counts as the second of a double touch. Anything else is a real tap and counts, however soon (+2
  // then +1; +2 for us, Them, +2 for them; +2, +2 a breath apart). A touch taken for a bounce is
  // never dropped silently: the tap it bounced off says "double touch counted once".
  var BOUNCE_MS = 100;
  var lockedUntil = {};
  var lastTaps = {}; // lock name -> the tap a bounce would be counted into

  function lockName(button, form) {
    var team = "-" + selectedTeam(form);
    if (button.hasAttribute("data-undo")) return "undo";
    if (button.hasAttribute("data-wipeout")) return "wipeout" + team;
    if (button.hasAttribute("data-bunco-player")) return "bunco-" + button.getAttribute("data-bunco-player");
    return "points-" + button.getAttribute("data-points") + team;
  }

  function lockTaps(name, button) {
    if (!button) return;
    lockedUntil[name] = Date.now() + BOUNCE_MS;
    button.classList.add("is-locked");
    setTimeout(function () { button.classList.remove("is-locked"); }, BOUNCE_MS);
  }

  var BOUNCE_NOTE = " " + gettext("(a double touch, counted once)");

  function sayBounce(name) {
    var tap = lastTaps[name];
    if (!tap) return;
    tap.note = BOUNCE_NOTE;
    // Already answered: say it now; otherwise its answer will.
    if (tap.saved) sayNow("✓ " + tap.label + BOUNCE_NOTE, "ok");
  }

  // `clicks` is the event's detail: the browser's own count of quick touches at one spot (2 for
  // the second of a double touch). A touch it counts as a fresh one (1) is a real tap, however soon.
  function isBounce(button, form, clicks) {
    var name = lockName(button, form);
    if (clicks !== 1 && Date.now() < (lockedUntil[name] || 0)) {
      sayBounce(name);
      return true;
    }
    lockTaps(name, button);
    // Choosing a Bunco's roller closes the chooser and Undo moves up under the finger.
    if (button.hasAttribute("data-bunco-player")) lockTaps("undo", form.querySelector("[data-undo]"));
    return false;
  }

  function chooser(form) { return form.querySelector("#bunco-chooser"); }

  // "Who rolled it?" lists the rollers of the team the buttons score for.
  function openChooser(form) {
    var panel = chooser(form);
    var team = selectedTeam(form);
    panel.querySelectorAll(".bunco-team").forEach(function (group) {
      group.hidden = group.getAttribute("data-team") !== team;
    });
    panel.hidden = false;
    form.querySelector("[data-bunco-open]").setAttribute("aria-expanded", "true");
  }

  // A refresh of the page (news from another table, the 10 s poll) morphs the chooser back to
  // how the server drew it, closed: it would vanish under the finger of a player picking who
  // rolled the Bunco. So a chooser the player opened is opened again after a refresh, as long as
  // the phone is still at the same round and table.
  var chooserOpenAt = null;
  document.addEventListener("htmx:after:swap", function () {
    if (chooserOpenAt === null) return;
    var form = document.getElementById("tally-form");
    if (!form || currentPlace() !== chooserOpenAt) { chooserOpenAt = null; return; }
    if (chooser(form).hidden) openChooser(form);
  });

  function selectedTeam(form) {
    var checked = form.querySelector("input[name=team]:checked");
    return checked ? checked.value : "";
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-tap], [data-undo], [data-bunco-open], [data-bunco-cancel]");
    if (!button) return;
    var form = button.closest("#tally-form");
    if (!form) return;
    event.preventDefault();
    var panel = chooser(form);

    if (button.hasAttribute("data-bunco-open")) {
      openChooser(form);
      var first = panel.querySelector(".bunco-team:not([hidden]) button");
      if (first) first.focus();
      chooserOpenAt = currentPlace();
      return;
    }
    if (button.hasAttribute("data-bunco-cancel")) {
      panel.hidden = true;
      chooserOpenAt = null;
      return;
    }

    if (isBounce(button, form, event.detail)) return;
    var name = lockName(button, form);
    var body = new FormData(form);
    var url = form.getAttribute("action");
    var label;
    if (button.hasAttribute("data-undo")) {
      url = form.getAttribute("data-undo-url");
      // An undo carries its own key like a tap: retried after a lost answer, it undoes once.
      body.set("key", Send.newKey());
      label = gettext("Undone");
    } else if (button.hasAttribute("data-bunco-player")) {
      body.set("bunco_player", button.getAttribute("data-bunco-player"));
      body.set("key", Send.newKey());
      // The engine's points for a Bunco, from the page (games.rules.bunco.BUNCO_POINTS).
      label = interpolate(gettext("BUNCO! +%(points)s for %(name)s"),
        { points: panel.getAttribute("data-bunco-points"), name: button.textContent.trim() }, true);
      panel.hidden = true;
      chooserOpenAt = null;
    } else if (button.hasAttribute("data-wipeout")) {
      // Three 1s (house rule): the server clears the team's points for the round.
      body.set("wipeout", "1");
      body.set("key", Send.newKey());
      label = selectedTeam(form) === form.querySelector("input[name=team]").value
        ? gettext("Wipeout: our points are back to 0") : gettext("Wipeout: their points are back to 0");
    } else {
      body.set("points", button.getAttribute("data-points"));
      body.set("key", Send.newKey());
      label = interpolate(selectedTeam(form) === form.querySelector("input[name=team]").value
        ? gettext("+%(points)s for us") : gettext("+%(points)s for them"), { points: button.getAttribute("data-points") }, true);
    }
    button.classList.add("is-tapped");
    setTimeout(function () { button.classList.remove("is-tapped"); }, 250);
    sayNow(waiting ? interpolate(gettext("Sending… (%(count)s waiting)"), { count: waiting }, true) : gettext("Sending…"), "pending");
    waiting++;
    var place = currentPlace();
    var tap = { label: label, note: "", saved: false };
    lastTaps[name] = tap;
    rememberTap(body.get("key"), url, body, label, place);
    queue = queue.then(function () {
      waiting--;
      return deliver(url, body, tap, place);
    });
  });
})();
