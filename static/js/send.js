// Sending from a phone: the one place a page posts with an idempotency key and tries again
// (issue 43). Loaded before the scripts that use it (plain script tags, in order): tally.js (a
// Bunco tap, an undo), table_live.js (a move at a game table, a seat's part of the deal) and
// tournament.js (a group's keyed entries, which htmx posts: they take their key from here).
//
// The key: Send.newKey() is 16 random bytes in hex, from crypto.getRandomValues (randomUUID needs
// a secure context, and phones on the living-room Wi-Fi use plain http). The caller puts it in the
// body once; Send.post sends that same body, the same key, on every try, so a request that did
// arrive but whose answer was lost counts once (the server takes the key again as a retry).
//
// The one retry policy, Send.post(url, body, options):
// - each try has TRY_TIMEOUT_MS (5 s; options.tryTimeoutMs to change it) for the whole answer, its
//   body included: a connection can stall without failing (a phone moving from the Wi-Fi to mobile
//   data keeps a socket that nothing passes through), and a try with no answer in time is aborted;
// - tried again: no answer (the network failed, or the time ran out) and a server error (5xx);
//   never a refusal (4xx) nor a success, which are the answer;
// - between tries the wait doubles from FIRST_WAIT_MS (0.5 s) up to LONGEST_WAIT_MS (4 s): 0.5, 1,
//   2, 4 s;
// - after TRIES (5) tries with no answer it gives up and resolves to null (the caller says plainly
//   what was not sent); otherwise it resolves to { status, ok, text } of the answer.
// options: csrf (the token for X-CSRFToken); tryTimeoutMs; answered(result), called on every answer
// (a 5xx included: the connection is there); failed(error), on every try with no answer; and
// retrying(), before each wait for the next try.
(function () {
  "use strict";

  var TRIES = 5;
  var TRY_TIMEOUT_MS = 5000;
  var FIRST_WAIT_MS = 500;
  var LONGEST_WAIT_MS = 4000;

  function newKey() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  }

  function sleep(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }

  // The wait before try number `next` (1 for the second try).
  function waitBefore(next) { return Math.min(FIRST_WAIT_MS * Math.pow(2, next - 1), LONGEST_WAIT_MS); }

  async function postOnce(url, body, options) {
    var controller = new AbortController();
    var timer = setTimeout(function () { controller.abort(); }, options.tryTimeoutMs || TRY_TIMEOUT_MS);
    try {
      var response = await fetch(url, {
        method: "POST",
        // Sent urlencoded, not as multipart FormData: the server reads it in a fraction of the time
        // (docs/PERFORMANCE.md, issue 34), and a tap or a move holds no file.
        body: new URLSearchParams(body),
        credentials: "same-origin",
        headers: { "X-CSRFToken": options.csrf || "", "Accept": "application/json" },
        signal: controller.signal,
      });
      // The body is read within the same time limit: a stall can come after the headers.
      var text = await response.text();
      return { status: response.status, ok: response.ok, text: text };
    } finally {
      clearTimeout(timer);
    }
  }

  async function post(url, body, options) {
    options = options || {};
    for (var attempt = 1; attempt <= TRIES; attempt++) {
      try {
        var result = await postOnce(url, body, options);
        if (options.answered) options.answered(result);
        if (result.ok || result.status < 500) return result;
      } catch (error) {
        // No answer in time: the same body, its key with it, is sent again.
        if (options.failed) options.failed(error);
      }
      if (attempt === TRIES) break;
      if (options.retrying) options.retrying();
      await sleep(waitBefore(attempt));
    }
    return null;
  }

  window.Send = { TRIES: TRIES, newKey: newKey, post: post };
})();
