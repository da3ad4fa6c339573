// First to Ten on a phone: draws the totals and the last roll from what the server sends, and a
// tap on "Roll n dice" sends the roll (TableLive sends it with its key and the phone's part).
(function () {
  "use strict";

  var state = null;
  var busy = false;
  var table = null;
  var $ = TableLive.$;

  function render() {
    if (!state || !$("play")) return;
    $("play").setAttribute("data-moves", String(state.moves_made));
    $("ftt-scores").textContent = state.public.scores.join(" - ");
    $("said").textContent = state.said || "";
    var onTurn = state.on_turn === true && state.status === "playing";
    $("ftt-on-turn").hidden = !onTurn;
    var rolls = $("ftt-rolls");
    if (rolls) rolls.querySelectorAll("button").forEach(function (button) { button.disabled = busy || !onTurn; });
  }

  function moved(old, data) {
    return Object.assign({}, old, { public: data.view, moves_made: data.move.number, said: data.said,
                                    on_turn: data.view.turn === old.seat, legal_moves: [] });
  }

  document.addEventListener("click", function (event) {
    var target = event.target.closest && event.target.closest("[data-roll]");
    if (!target || !state || busy) return;
    event.preventDefault();
    table.send({ kind: "roll", dice: target.getAttribute("data-roll") });
  });

  document.addEventListener("DOMContentLoaded", function () {
    table = TableLive.start({
      render: function (next, nowBusy) { state = next; busy = nowBusy; render(); },
      moved: moved,
      asks: function (next) { return next.on_turn; },
    });
  });
})();
