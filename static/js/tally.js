// The phone's scoring buttons. Each tap gets its own key, so a tap retried after a dropped
// connection is counted once by the server; taps are sent one after another, in order, and every
// tap says whether it was taken. No inline script (CSP); htmx does everything else on the page.
(function () {
  "use strict";

  var queue = Promise.resolve();

  function newKey() {
    // crypto.randomUUID needs a secure context; phones on the living-room Wi-Fi use plain http.
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }

  function sleep(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }

  function say(text, kind) {
    var status = document.getElementById("tap-status");
    if (!status) return;
    status.textContent = text;
    status.className = "tap-status" + (kind ? " tap-" + kind : "");
  }

  function showTotals(answer) {
    ["a", "b"].forEach(function (team) {
      var cell = document.getElementById("r" + answer.round + "-t" + answer.table + "-" + team);
      if (cell) cell.textContent = answer[team];
    });
  }

  // The buttons' answers are JSON; a refusal before the view runs (a phone whose seat the host
  // handed over, one that never joined) is the 403 page, whose alert says why.
  function readAnswer(text) {
    try { return JSON.parse(text); } catch (error) { /* not JSON: a page */ }
    var alert = new DOMParser().parseFromString(text, "text/html").querySelector("[role=alert]");
    return alert ? { error: alert.textContent.trim() } : {};
  }

  async function deliver(url, body, label) {
    var token = body.get("csrfmiddlewaretoken");
    for (var attempt = 0; attempt < 6; attempt++) {
      try {
        var response = await fetch(url, {
          method: "POST",
          body: body,
          credentials: "same-origin",
          headers: { "X-CSRFToken": token, "Accept": "application/json" },
        });
        var answer = readAnswer(await response.text().catch(function () { return ""; }));
        if (response.ok) {
          showTotals(answer);
          say("✓ " + label, "ok");
          return;
        }
        if (response.status < 500) {
          say(answer.error || "Not saved.", "error");
          return;
        }
      } catch (error) {
        /* no answer: the same key is sent again, so a tap that did arrive counts once */
      }
      say("No connection — trying again…", "warn");
      await sleep(400 * Math.pow(2, attempt));
    }
    say("Not saved: no connection. Check the Wi-Fi and tap again.", "error");
  }

  function chooser(form) { return form.querySelector("#bunco-chooser"); }

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
      var team = selectedTeam(form);
      panel.querySelectorAll(".bunco-team").forEach(function (group) {
        group.hidden = group.getAttribute("data-team") !== team;
      });
      panel.hidden = false;
      button.setAttribute("aria-expanded", "true");
      var first = panel.querySelector(".bunco-team:not([hidden]) button");
      if (first) first.focus();
      return;
    }
    if (button.hasAttribute("data-bunco-cancel")) {
      panel.hidden = true;
      return;
    }

    var body = new FormData(form);
    var url = form.getAttribute("action");
    var label;
    if (button.hasAttribute("data-undo")) {
      url = form.getAttribute("data-undo-url");
      // An undo carries its own key like a tap: retried after a lost answer, it undoes once.
      body.set("key", newKey());
      label = "Undone";
    } else if (button.hasAttribute("data-bunco-player")) {
      body.set("bunco_player", button.getAttribute("data-bunco-player"));
      body.set("key", newKey());
      label = "BUNCO! +21 for " + button.textContent.trim();
      panel.hidden = true;
    } else if (button.hasAttribute("data-wipeout")) {
      // Three 1s (house rule): the server clears the team's points for the round.
      body.set("wipeout", "1");
      body.set("key", newKey());
      label = "Wipeout: " + (selectedTeam(form) === form.querySelector("input[name=team]").value ? "our" : "their") + " points are back to 0";
    } else {
      body.set("points", button.getAttribute("data-points"));
      body.set("key", newKey());
      label = "+" + button.getAttribute("data-points") + (selectedTeam(form) === form.querySelector("input[name=team]").value ? " for us" : " for them");
    }
    button.classList.add("is-tapped");
    setTimeout(function () { button.classList.remove("is-tapped"); }, 250);
    say("Sending…", "pending");
    queue = queue.then(function () { return deliver(url, body, label); });
  });
})();
