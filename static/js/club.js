// The new-club form: its time zone starts as this browser's own (Intl), which the host can change.
// Only a select still on its first value is filled in: an edit keeps the club's zone.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var select = document.querySelector("select[data-browser-zone]");
    if (!select || select.hasAttribute("data-zone-chosen")) return;
    var zone;
    try {
      zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    } catch (e) {
      return;
    }
    if (!zone) return;
    for (var i = 0; i < select.options.length; i++) {
      if (select.options[i].value === zone) {
        select.value = zone;
        return;
      }
    }
  });
})();
