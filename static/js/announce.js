// What a screen reader hears on a live page (issue 32): one polite live region, #announcer, says
// each change in one sentence, instead of every swapped panel reading itself again.
//
// The page marks what may be said with data-announce="<what>" (the table's state, the tap's
// answer, the bell, the connection); the server writes the sentence, so its words are the page's
// own. When the text a person would see in such an element changes (a tally moved the score, the
// bell arrived, a tap was saved), that text goes to the announcer; what the page was drawn with is
// not said again (a screen reader reads the page as it opens). innerText is the visible text, so a
// banner's lines hidden for this table are not read. The elements themselves are not live regions.
(function () {
  "use strict";

  var said = {};
  var announcer = null;
  var pending = [];
  var flushing = false;

  function visibleText(element) {
    return (element.innerText || element.textContent || "").replace(/\s+/g, " ").trim();
  }

  function flush() {
    flushing = false;
    if (!pending.length) return;
    announcer.textContent = pending.join(" ");
    pending = [];
  }

  function consider(element) {
    var what = element.getAttribute("data-announce");
    var text = visibleText(element);
    if (!text || said[what] === text) return;
    said[what] = text;
    if (pending.indexOf(text) === -1) pending.push(text);
    if (!flushing) {
      flushing = true;
      window.setTimeout(flush, 0); // one update for one batch of changes: a morph and its banner
    }
  }

  function considerAll() {
    document.querySelectorAll("[data-announce]").forEach(consider);
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
    document.querySelectorAll("[data-announce]").forEach(function (element) {
      said[element.getAttribute("data-announce")] = visibleText(element);
    });
    new MutationObserver(considerAll).observe(document.body, {
      childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ["class"],
    });
  });
})();
