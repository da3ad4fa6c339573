// The tournament's countdowns: every [data-countdown] counts down to its data-ends-at, corrected
// for the phone's clock by the server's time at render (data-server-now). At one minute and at ten
// seconds, and when time is up, the page says so ([data-clock-warning], read out by screen readers)
// and rings as the bell does (chime.js). No inline script (CSP); htmx re-renders the markup, this only ticks it.
(function () {
  "use strict";

  var warned = {}; // ends-at -> the warnings already given

  // A warning heard and felt as the bell is (static/js/chime.js: a short bell once a tap has
  // unlocked the phone's sound and its Sound switch is on, a vibration, a flash): the warning line
  // is marked with the warning's own key, and chime.js rings each key once.
  function ring(key) {
    document.querySelectorAll("[data-clock-warning]").forEach(function (line) { line.setAttribute("data-chime", key); });
  }

  function say(text, level) {
    document.querySelectorAll("[data-clock-warning]").forEach(function (line) {
      if (line.textContent === text) return;
      line.textContent = text;
      line.className = line.className.replace(/ ?warn-\w+/g, "") + (level ? " warn-" + level : "");
    });
  }

  function format(seconds) {
    var m = Math.floor(seconds / 60);
    var s = seconds % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  function tick() {
    var now = Date.now();
    // The warning line says what is true now: the clock is paused, or no clock runs any more
    // (the round is over, a champion is crowned): then it says nothing, never "Time is up".
    if (document.querySelector("[data-paused]")) {
      say(gettext("The clock is paused."), "paused");
      return;
    }
    // The director ended the round ("End round now", the event re-rendered the page): say so,
    // never that time is up.
    if (document.querySelector("[data-ended-now]")) {
      say(gettext("The director ended the round: its scores are final."), "up");
      return;
    }
    if (!document.querySelector("[data-countdown]")) {
      say("", "");
      return;
    }
    if (document.querySelector("[data-clock-warning].warn-paused")) say("", "");
    document.querySelectorAll("[data-countdown]").forEach(function (clock) {
      var ends = Date.parse(clock.getAttribute("data-ends-at"));
      var serverNow = Date.parse(clock.getAttribute("data-server-now"));
      if (isNaN(ends)) return;
      if (!clock._offset && !isNaN(serverNow)) clock._offset = serverNow - now;
      var left = Math.max(0, Math.ceil((ends - (now + (clock._offset || 0))) / 1000));
      clock.textContent = left > 0 ? format(left) : gettext("Time!");
      clock.classList.toggle("warn-minute", left <= 60 && left > 10);
      clock.classList.toggle("warn-seconds", left <= 10 && left > 0);
      clock.classList.toggle("is-up", left === 0);
      var key = clock.getAttribute("data-ends-at");
      var given = warned[key] || (warned[key] = {});
      if (left <= 60 && left > 10 && !given.minute) {
        given.minute = true;
        say(gettext("One minute left."), "minute");
        ring("clock-" + key + "-minute");
      } else if (left <= 10 && left > 0 && !given.seconds) {
        given.seconds = true;
        say(gettext("Ten seconds left!"), "seconds");
        ring("clock-" + key + "-seconds");
      } else if (left === 0 && !given.up) {
        given.up = true;
        say(gettext("Time is up: finish the turn under way. No new turn starts."), "up");
        ring("clock-" + key + "-up");
      }
    });
  }

  // Keyed entry forms ([data-keyed]: a group's turn and its undo). Each new entry gets a fresh
  // idempotency key, kept until the server answers, so that sending the same entry again after a
  // lost answer is a retry (the server counts it once) while the next entry is never taken for
  // one. The form is locked while its post is under way, and a turn's form starts empty for the
  // next player once the turn is in ([data-reset-after]): morphing the page never resets it. The key
  // is static/js/send.js's (loaded before this script); htmx posts the form, and the player sends it
  // again after a lost answer.
  function keyedForm(event) {
    var elt = event.target;
    return elt && elt.closest ? elt.closest("form[data-keyed]") : null;
  }

  function sendNote(text) {
    document.querySelectorAll("[data-send-note]").forEach(function (note) {
      note.textContent = text;
      note.hidden = !text;
    });
  }

  function lock(form, locked) {
    Array.prototype.forEach.call(form.elements, function (control) { control.disabled = locked; });
    form.setAttribute("aria-busy", locked ? "true" : "false");
  }

  document.addEventListener("htmx:config:request", function (event) {
    var form = keyedForm(event);
    if (!form) return;
    if (form._sending) { // a tap while the post is under way (the form is locked): not sent twice
      event.preventDefault();
      return;
    }
    form._key = form._key || Send.newKey();
    event.detail.ctx.request.body.set("key", form._key);
    form._sending = true;
    lock(form, true); // htmx has read the form already: locked controls are still sent
  });

  // A swap while a post is under way (the page's own refresh) must not unlock its form.
  document.addEventListener("htmx:after:swap", function () {
    document.querySelectorAll("form[data-keyed]").forEach(function (form) {
      if (form._sending) lock(form, true);
    });
  });

  document.addEventListener("htmx:finally:request", function (event) {
    var form = keyedForm(event);
    if (!form || !form._sending) return;
    form._sending = false;
    var response = event.detail.ctx && event.detail.ctx.response;
    var status = response ? response.status : 0;
    if (status && status < 500) form._key = null; // answered: whatever comes next is a new entry
    // A refusal comes back inside the live region, which the next turn entered at another table
    // redraws a moment later: its message moves to the note above the region, and stays there
    // until this phone sends its next entry.
    var refusal = status >= 400 && status < 500 ? document.querySelector("#group-state [role=alert]") : null;
    if (refusal) {
      sendNote(refusal.textContent.trim());
      refusal.remove();
    } else {
      sendNote(status ? "" : gettext(
        "That entry may not have reached the site (no answer): check the scoresheet, then send it again if it is missing. The same entry sent again is counted once."));
    }
    if (status >= 200 && status < 300 && form.hasAttribute("data-reset-after")) form.reset();
    lock(form, false);
  });

  // The desk (issue 46): [data-flag-at] is when the next table's silence reaches the director's
  // minutes, on the server's clock ([data-server-now] at render). Then the board is asked for again,
  // as the stream's news would ask it, so the table is flagged and the desk rings at that moment, not
  // at the next safety-net poll; asked again every few seconds should the server not flag it yet.
  function watchQuiet() {
    var board = document.querySelector("[data-flag-at]");
    var stream = document.getElementById("t-stream");
    if (!board || !stream) return;
    var due = Date.parse(board.getAttribute("data-flag-at"));
    var rendered = Date.parse(board.getAttribute("data-server-now"));
    if (isNaN(due) || isNaN(rendered)) return;
    var now = Date.now();
    if (board._rendered !== rendered) {
      board._rendered = rendered;
      board._offset = rendered - now;
    }
    if (now + board._offset < due + 1000 || (board._askedAt && now - board._askedAt < 5000)) return;
    board._askedAt = now;
    stream.dispatchEvent(new CustomEvent("changed"));
  }

  setInterval(tick, 250);
  setInterval(watchQuiet, 250);
  document.addEventListener("DOMContentLoaded", tick);
})();
