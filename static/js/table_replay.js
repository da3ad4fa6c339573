// A finished game's replay (every game's: templates/games/table/replay.html): the steps shown one
// at a time, Back / Next / Show all. Without a script every step stays visible and the stepper
// hidden, so the replay reads whole. No inline script (CSP).
(function () {
  "use strict";

  var shown = 0;

  function showSteps() {
    var items = document.querySelectorAll("[data-step-item]");
    items.forEach(function (item, index) { item.hidden = index >= shown; });
    var count = document.querySelector("[data-step-count]");
    if (count) count.textContent = interpolate(gettext("Step %(shown)s of %(steps)s"), { shown: shown, steps: items.length }, true);
    var last = items[shown - 1];
    if (last) last.scrollIntoView({ block: "nearest" });
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest && event.target.closest("[data-step]");
    if (!target) return;
    var items = document.querySelectorAll("[data-step-item]");
    var step = target.getAttribute("data-step");
    shown = step === "all" ? items.length : Math.max(1, Math.min(items.length, shown + parseInt(step, 10)));
    showSteps();
  });

  document.addEventListener("DOMContentLoaded", function () {
    var stepper = document.querySelector("[data-stepper]");
    if (!stepper) return;
    stepper.hidden = false;
    shown = 1;
    showSteps();
  });
})();
