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

// A keyed form (an RSVP) is sent once: a second tap while its post is under way is not sent again.
// (The key makes a resend a retry anyway; this keeps a quick second tap from looking like a change.)
document.addEventListener("submit", function (event) {
  var form = event.target.closest && event.target.closest("form[data-lock-while-sending]");
  if (!form) return;
  if (form.getAttribute("data-sending")) {
    event.preventDefault();
    return;
  }
  form.setAttribute("data-sending", "1");
  form.setAttribute("aria-busy", "true");
});
