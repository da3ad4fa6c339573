// The tournament's countdowns: every [data-countdown] counts down to its data-ends-at, corrected
// for the phone's clock by the server's time at render (data-server-now). At one minute and at ten
// seconds the page says so ([data-clock-warning], read out by screen readers) and beeps where the
// browser allows sound. No inline script (CSP); htmx re-renders the markup, this only ticks it.
(function () {
  "use strict";

  var warned = {}; // ends-at -> the warnings already given
  var audio = null;

  function beep(times) {
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      for (var i = 0; i < times; i++) {
        var osc = audio.createOscillator();
        var gain = audio.createGain();
        osc.frequency.value = 880;
        osc.connect(gain);
        gain.connect(audio.destination);
        var start = audio.currentTime + i * 0.3;
        gain.gain.setValueAtTime(0.2, start);
        osc.start(start);
        osc.stop(start + 0.15);
      }
    } catch (error) {
      /* no sound allowed yet (no tap on the page): the visible warning is enough */
    }
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
      say("The clock is paused.", "paused");
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
      clock.textContent = left > 0 ? format(left) : "Time!";
      clock.classList.toggle("warn-minute", left <= 60 && left > 10);
      clock.classList.toggle("warn-seconds", left <= 10 && left > 0);
      clock.classList.toggle("is-up", left === 0);
      var key = clock.getAttribute("data-ends-at");
      var given = warned[key] || (warned[key] = {});
      if (left <= 60 && left > 10 && !given.minute) {
        given.minute = true;
        say("One minute left.", "minute");
        beep(1);
      } else if (left <= 10 && left > 0 && !given.seconds) {
        given.seconds = true;
        say("Ten seconds left!", "seconds");
        beep(2);
      } else if (left === 0 && !given.up) {
        given.up = true;
        say("Time is up: finish the turn under way. No new turn starts.", "up");
        beep(3);
      }
    });
  }

  // A first tap anywhere unlocks sound on phones that need a gesture for it.
  document.addEventListener("click", function () {
    if (!audio) { try { audio = new (window.AudioContext || window.webkitAudioContext)(); } catch (e) { /* none */ } }
  }, { once: true });
  setInterval(tick, 250);
  document.addEventListener("DOMContentLoaded", tick);
})();
