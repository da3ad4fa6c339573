// "Play a game": only the chosen game's options and seat notes show. Without this script every
// game's options show, and the server reads only the chosen game's.
(function () {
  "use strict";
  var form = document.querySelector("[data-table-new]");
  if (!form) return;
  var game = form.querySelector("select[name=game]");
  function show() {
    form.querySelectorAll("[data-for-game]").forEach(function (part) {
      part.hidden = part.getAttribute("data-for-game") !== game.value;
    });
  }
  game.addEventListener("change", show);
  show();
})();
