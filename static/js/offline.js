// The offline page (templates/offline.html, shown by the service worker for a page it could not
// reach): it asks the site whether it answers again, backing off from 2 s to 15 s, and as soon as
// the phone says it is back online, and then loads the page the phone wanted (the address bar still
// holds it). "Online" alone is not enough: the Wi-Fi can be back while the host's laptop is not.
(function () {
  "use strict";

  var status = document.querySelector("[data-offline-status]");
  // The words are the page's own (data-trying, data-still), in its language: the page works with
  // no connection, so it loads no catalog.
  var TRYING = status ? status.getAttribute("data-trying") : "";
  var STILL = status ? status.getAttribute("data-still") : "";
  var waitMs = 2000;
  var timer = null;

  function tryAgain() {
    clearTimeout(timer);
    if (status) status.textContent = TRYING;
    fetch("/alive/", { cache: "no-store" }).then(function (answer) {
      if (answer.ok) location.reload();
      else later();
    }, later);
  }

  function later() {
    if (status) status.textContent = STILL.replace("%(seconds)s", String(Math.round(waitMs / 1000)));
    timer = setTimeout(tryAgain, waitMs);
    waitMs = Math.min(waitMs * 2, 15000);
  }

  window.addEventListener("online", tryAgain);
  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-try-again]")) location.reload();
  });
  later();
})();
