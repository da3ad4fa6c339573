// The bell heard and felt (issue 32). A player looking at the dice misses a banner: so when an
// element marked data-chime="<key>" arrives on the page (the bell's banner, a roll-off, "your
// turn"), the page plays a short bell, vibrates where it can and flashes the element, once per key
// in this tab (a refresh or a morph that draws the same banner again stays quiet). The phones, the
// host's page and the projector all load it.
//
// Sound and vibration both wait for a person's touch on the page (or a key): a server's message is
// not one. iOS and Chromium's autoplay rule keep an AudioContext silent until then, and Chromium
// refuses navigator.vibrate until then too (it logs "Blocked call to navigator.vibrate"; iOS has no
// vibration at all). So a bell before the first touch is seen only: it flashes, and no vibration is
// tried. The first touch unlocks both: vibration by itself, sound by making and resuming the
// context. A touch's pointerdown is not yet a gesture in Chromium (it becomes one at pointerup, iOS
// at touchend), and a context started there stays suspended: so the context is started on each of
// pointerdown (a mouse's), pointerup, touchend, click and keydown until it runs. A page opened by a
// tap on the page before it (the phone's name on the join page) has had its touch already: the
// browser says so (navigator.userActivation) and the sound is started as the page opens.
// The bell is Web Audio (decaying sine partials): no audio file to download or cache.
// A switch marked data-sound-switch turns the sound off and on; the choice is kept on the phone.
(function () {
  "use strict";

  var SOUND_KEY = "bunco-sound";
  var RUNG_KEY = "bunco-chimes-rung";
  var audio = null;

  function soundOn() {
    try { return window.localStorage.getItem(SOUND_KEY) !== "off"; } catch (e) { return true; }
  }

  function setSound(on) {
    try { window.localStorage.setItem(SOUND_KEY, on ? "on" : "off"); } catch (e) { /* private mode */ }
    drawSwitches();
  }

  function drawSwitches() {
    var on = soundOn();
    document.querySelectorAll("[data-sound-switch]").forEach(function (button) {
      button.setAttribute("aria-checked", on ? "true" : "false");
      var state = button.querySelector("[data-sound-label]");
      if (state) state.textContent = on ? pgettext("sound", "on") : pgettext("sound", "off");
    });
  }

  // Whether a person has touched the page (or one it was opened from); unknown (older browsers
  // without navigator.userActivation): yes, and the browser decides.
  function touched() {
    return !navigator.userActivation || navigator.userActivation.hasBeenActive;
  }

  function unlockAudio() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context || !touched()) return; // a context made before a gesture is refused (and says so)
    if (audio && audio.state === "running") return;
    if (!audio) {
      try { audio = new Context(); } catch (e) { return; }
    }
    if (audio.state === "suspended") audio.resume();
  }

  function playBell() {
    if (!audio || audio.state !== "running" || !soundOn()) return;
    var now = audio.currentTime;
    [[880, 0.5], [1320, 0.25], [2640, 0.1]].forEach(function (partial) {
      var tone = audio.createOscillator();
      var volume = audio.createGain();
      tone.type = "sine";
      tone.frequency.value = partial[0];
      volume.gain.setValueAtTime(partial[1], now);
      volume.gain.exponentialRampToValueAtTime(0.001, now + 1.2);
      tone.connect(volume).connect(audio.destination);
      tone.start(now);
      tone.stop(now + 1.25);
    });
  }

  function rungKeys() {
    try { return JSON.parse(window.sessionStorage.getItem(RUNG_KEY) || "[]"); } catch (e) { return []; }
  }

  function remember(key) {
    var keys = rungKeys();
    keys.push(key);
    try { window.sessionStorage.setItem(RUNG_KEY, JSON.stringify(keys.slice(-50))); } catch (e) { /* full */ }
  }

  function chime(element) {
    var key = window.location.pathname + "#" + element.getAttribute("data-chime");
    if (rungKeys().indexOf(key) !== -1) return;
    remember(key);
    playBell();
    if (navigator.vibrate && touched()) {
      try { navigator.vibrate([180, 90, 180]); } catch (e) { /* a browser that throws rather than refuses */ }
    }
    if (element.classList.contains("chime-flash")) {
      element.classList.remove("chime-flash");
      void element.offsetWidth; // restart the flash when the same element flashes again
    }
    element.classList.add("chime-flash");
  }

  function chimeWithin(node) {
    if (node.nodeType !== 1) return;
    if (node.hasAttribute("data-chime")) chime(node);
    node.querySelectorAll("[data-chime]").forEach(chime);
  }

  ["pointerdown", "pointerup", "touchend", "click", "keydown"].forEach(function (kind) {
    document.addEventListener(kind, unlockAudio, true);
  });
  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-sound-switch]")) setSound(!soundOn());
  });
  document.addEventListener("DOMContentLoaded", function () {
    // What the page was drawn with has been seen: a bell already showing when the page opened (a
    // refresh during the bell) does not ring again; what arrives from now on does.
    document.querySelectorAll("[data-chime]").forEach(function (element) {
      var key = window.location.pathname + "#" + element.getAttribute("data-chime");
      if (rungKeys().indexOf(key) === -1) remember(key);
    });
    drawSwitches();
    unlockAudio(); // the tap that opened this page (its name on the join page) counts
    new MutationObserver(function (changes) {
      changes.forEach(function (change) {
        if (change.type === "attributes") { // a banner morphed into another key (not one that lost it)
          if (change.target.hasAttribute("data-chime")) chime(change.target);
        } else change.addedNodes.forEach(chimeWithin);
      });
    }).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-chime"] });
  });
})();
