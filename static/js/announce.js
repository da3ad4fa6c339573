// What a screen reader hears on a live page (issue 32): one polite live region, #announcer, says
// each change in one sentence, instead of every swapped panel reading itself again.
//
// The page marks what may be said with data-announce="<what>" (the table's state, the tap's
// answer, the bell, the connection); the server writes the sentence, so its words are the page's
// own. When the text a person would see in such an element changes (a tally moved the score, the
// bell arrived, a tap was saved), that text goes to the announcer; what the page was drawn with is
// not said again (a screen reader reads the page as it opens). innerText is the visible text, so a
// banner's lines hidden for this table are not read. The elements themselves are not live regions.
//
// Issue 42 (P6): a score the stream or a tap's answer writes into the page (#r1-t2-a) changes no
// sentence by itself, so the table's sentence was said only at the page's next refresh, or never
// (an opponent's +1, the phone's own total). A sentence's number marked data-echo="<id>" takes
// the text of the element with that id whenever it changes, and so the sentence is said. A marked
// element still in the middle of its change says so with aria-busy="true" (a tap being sent): its
// text then is never said, and a sentence marked data-announce-with="<what>" (the table's, with
// "tap") waits while <what> is busy, to be said with its outcome in one announcement: the tap's
// answer and the total it made, whichever reached the page first. The bell never waits.
(function () {
  "use strict";

  var said = {};
  var announcer = null;
  var pending = {}; // what -> its new text, said at the next flush
  var flushing = false;

  function visibleText(element) {
    return (element.innerText || element.textContent || "").replace(/\s+/g, " ").trim();
  }

  function busy(what) {
    return what !== null && document.querySelector('[data-announce="' + what + '"][aria-busy="true"]') !== null;
  }

  function flush() {
    flushing = false;
    var texts = [];
    // In the page's order, whatever order the changes came in (the stream's total before or
    // after the tap's answer): one announcement reads the same either way. What waits for a busy
    // element stays pending: the busy element's change brings us back here.
    document.querySelectorAll("[data-announce]").forEach(function (element) {
      var what = element.getAttribute("data-announce");
      if (!Object.prototype.hasOwnProperty.call(pending, what)) return;
      if (busy(element.getAttribute("data-announce-with"))) return;
      if (texts.indexOf(pending[what]) === -1) texts.push(pending[what]);
      delete pending[what];
    });
    if (texts.length) announcer.textContent = texts.join(" ");
  }

  function consider(element) {
    var what = element.getAttribute("data-announce");
    var text = visibleText(element);
    if (element.getAttribute("aria-busy") === "true") {
      // Not said, but remembered: the outcome that replaces it is new, even if it reads as the
      // last one did (+5, then +5 again).
      said[what] = text;
      delete pending[what];
      return;
    }
    if (!text || said[what] === text) return;
    said[what] = text;
    pending[what] = text;
  }

  function echo() {
    document.querySelectorAll("[data-echo]").forEach(function (element) {
      var source = document.getElementById(element.getAttribute("data-echo"));
      if (source && source.textContent !== element.textContent) element.textContent = source.textContent;
    });
  }

  function considerAll() {
    echo();
    document.querySelectorAll("[data-announce]").forEach(consider);
    if (!flushing) {
      flushing = true;
      window.setTimeout(flush, 0); // one update for one batch of changes: a morph and its banner
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    announcer = document.getElementById("announcer");
    if (!announcer) {
      announcer = document.createElement("div");
      announcer.id = "announcer";
      announcer.className = "visually-hidden";
      announcer.setAttribute("role", "status");
      announcer.setAttribute("aria-live", "polite");
      document.body.appendChild(announcer);
    }
    echo();
    document.querySelectorAll("[data-announce]").forEach(function (element) {
      said[element.getAttribute("data-announce")] = visibleText(element);
    });
    new MutationObserver(considerAll).observe(document.body, {
      childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ["class", "aria-busy"],
    });
  });
})();
