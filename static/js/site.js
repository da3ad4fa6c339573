// Small progressive enhancements. No inline scripts anywhere (CSP with nonces).
(function () {
  "use strict";

  var siteScript = document.currentScript;

  // The installed app (secure contexts only: HTTPS, localhost). On plain HTTP at a LAN address the
  // browser has no service worker: nothing is registered and every page works as it did.
  if (window.isSecureContext && "serviceWorker" in navigator && siteScript && siteScript.dataset.serviceWorker) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register(siteScript.dataset.serviceWorker, { scope: "/" }).catch(function () {
        /* refused (private mode, a policy): the site works without it */
      });
    });
  }

  // Screens that stay on, wherever a phone waits for others: every page with a live stream or a
  // live badge (a night's table, a game table, a group's phone, the host's page, the screens), and
  // any page that asks (data-keep-awake). The Screen Wake Lock where the browser has it; it is let
  // go whenever the page is hidden, so it is asked for again each time the page comes back. Where
  // there is none (plain HTTP at a LAN address is not a secure context) or it is refused, a tiny
  // muted looping video played inline keeps the screen on, as NoSleep.js does: browsers allow its
  // playing once the page has been tapped. Only where neither works does a one-line hint ask the
  // player to keep the screen on. (static/media/keep-awake.*: 2 s of black at 64 px, made with
  // `ffmpeg -f lavfi -i color=c=black:s=64x64:r=5 -t 2` to VP8 WebM and H.264 MP4.)
  var WAITING_PAGE = "[data-keep-awake], [data-live-badge], [hx-sse\\:connect]";
  var wakeLock = null;
  var awakeVideo = null;
  var videoStarted = false;

  function waitsForOthers() {
    return !!document.querySelector(WAITING_PAGE);
  }

  function keepAwake() {
    if (document.visibilityState !== "visible" || !waitsForOthers()) return;
    if (window.isSecureContext && navigator.wakeLock) {
      navigator.wakeLock.request("screen").then(function (lock) {
        var previous = wakeLock;
        wakeLock = lock;
        if (previous && !previous.released) previous.release();
      }, keepAwakeByVideo); // refused (battery saver, a policy): the video instead
    } else {
      keepAwakeByVideo();
    }
  }

  function keepAwakeByVideo() {
    if (awakeVideo) {
      if (videoStarted) awakeVideo.play().catch(function () { /* the next tap starts it */ });
      return;
    }
    awakeVideo = makeAwakeVideo();
    if (!awakeVideo) {
      showKeepAwakeHint();
      return;
    }
    document.body.appendChild(awakeVideo);
    // The first tap (a click, a finished touch: the gestures that allow playing) starts it.
    document.addEventListener("click", startAwakeVideo, true);
    document.addEventListener("touchend", startAwakeVideo, true);
  }

  function startAwakeVideo() {
    if (videoStarted) return;
    awakeVideo.play().then(function () {
      videoStarted = true;
      document.removeEventListener("click", startAwakeVideo, true);
      document.removeEventListener("touchend", startAwakeVideo, true);
    }, showKeepAwakeHint);
  }

  function makeAwakeVideo() {
    var sources = siteScript && siteScript.dataset.keepAwakeVideo ? siteScript.dataset.keepAwakeVideo.split(" ") : [];
    var video = document.createElement("video");
    var types = { mp4: "video/mp4", webm: "video/webm" };
    var playable = sources.filter(function (src) {
      var type = types[src.split(".").pop()];
      return type && video.canPlayType(type);
    });
    if (!playable.length) return null;
    video.muted = true;
    video.setAttribute("muted", "");
    video.setAttribute("playsinline", "");
    video.loop = true;
    video.setAttribute("aria-hidden", "true");
    video.setAttribute("data-keep-awake-video", "");
    video.src = playable[0];
    // Out of sight and out of the way, but displayed: some browsers let a hidden video sleep.
    var style = video.style;
    style.position = "fixed";
    style.left = "0";
    style.bottom = "0";
    style.width = "1px";
    style.height = "1px";
    style.opacity = "0.01";
    style.pointerEvents = "none";
    return video;
  }

  // At the end of the page, so that nothing moves under a finger.
  function showKeepAwakeHint() {
    if (document.querySelector("[data-keep-awake-hint]")) return;
    var hint = document.createElement("p");
    hint.className = "keep-awake-hint";
    hint.setAttribute("data-keep-awake-hint", "");
    hint.textContent = gettext("Keep this screen on: this browser cannot, so set your phone not to lock while you play.");
    (document.getElementById("main") || document.body).appendChild(hint);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", keepAwake);
  else keepAwake();
  document.addEventListener("visibilitychange", keepAwake);

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-print]")) window.print();
  });

  // A form whose refusals show in a slot of its own (data-message-slot, filled by its hx-status
  // swap) clears that slot when it is sent again: an old error must not sit beside a success.
  document.addEventListener("htmx:before:request", function (event) {
    var form = event.target.closest && event.target.closest("[data-message-slot]");
    var slot = form && document.querySelector(form.getAttribute("data-message-slot"));
    if (slot) slot.textContent = "";
  });

  // A form whose answer may be lost (data-unconfirmed: the host's correction) says so when no
  // answer comes (a network failure, its hx-config timeout), in its message slot, and its button
  // offers to send it again: the form keeps its idempotency key, so a second send applies once.
  document.addEventListener("htmx:error", function (event) {
    var form = event.target.closest && event.target.closest("[data-unconfirmed]");
    var slot = form && document.querySelector(form.getAttribute("data-message-slot"));
    if (!slot) return;
    slot.textContent = form.getAttribute("data-unconfirmed");
    var button = form.querySelector("[type=submit]");
    if (button && form.hasAttribute("data-unconfirmed-button")) button.textContent = form.getAttribute("data-unconfirmed-button");
  });

  // Show the state of the live connection, so nobody wonders whether the page is current.
  document.addEventListener("htmx:after:sse:connection", function (event) {
    setLive(event.target, true);
  });
  document.addEventListener("htmx:sse:error", function (event) {
    setLive(event.target, false);
  });
  document.addEventListener("htmx:sse:close", function (event) {
    setLive(event.target, false);
  });

  // A stream's first request is an ordinary htmx request: the SSE extension takes over, and
  // reconnects by itself from then on, only once that request has been answered. A first request
  // that fails (the Wi-Fi dropped while the page loaded, the server was restarting, no answer
  // within the hx-config timeout) would leave the page never live, so it is tried again here,
  // backing off to 15 s, until the stream opens. A refusal (403, 404) is final: it is not retried.
  var firstTries = new WeakMap(); // stream element -> {ctx: the failed request, count}
  function retryFirstConnection(event) {
    var element = event.target;
    if (!element.matches || !element.matches("[hx-sse\\:connect]")) return;
    if (element._htmx && element._htmx.sse) return; // the extension has the stream
    var ctx = event.detail.ctx;
    var tries = firstTries.get(element) || { ctx: null, count: 0 };
    if (ctx && tries.ctx === ctx) return; // one request can report both an error answer and a failure
    var status = ctx && ctx.response ? ctx.response.status : 0;
    if (status >= 400 && status < 500 && status !== 408 && status !== 429) return;
    tries = { ctx: ctx, count: tries.count + 1 };
    firstTries.set(element, tries);
    setLive(element, false);
    setTimeout(function () {
      if (!element.isConnected || (element._htmx && element._htmx.sse)) return;
      htmx.ajax("GET", element.getAttribute("hx-sse:connect"), { source: element });
    }, backoffMs(tries.count));
  }
  // The wait before the `tries`-th try again of a page's request: 1 s, doubling, at most 15 s.
  function backoffMs(tries) {
    return Math.min(1000 * Math.pow(2, tries - 1), 15000);
  }
  document.addEventListener("htmx:error", retryFirstConnection);
  document.addEventListener("htmx:response:error", retryFirstConnection);
  // Numbers the stream pushes into an element by id are absolute (a table's totals), and two taps
  // committed close together can reach the stream in the other order: each action publishes after
  // its own commit, and the second tap's thread may publish first (seen in CI: a phone kept "1 · 0"
  // after "1 · 1", the older totals written last). So each element remembers the id of the event
  // that wrote it last, and an older event's numbers for it are left out. (The message itself goes
  // on, emptied of them: cancelled, its id would not count as seen by the stream's reconnect.)
  var writtenBy = new Map(); // "#r1-t2-a" -> the id of the newest event that wrote into it
  document.addEventListener("htmx:before:sse:message", function (event) {
    var message = event.detail.message;
    var id = message && !message.event && /^\d+$/.test(message.id || "") ? Number(message.id) : null;
    if (id === null) return;
    var frame = document.createElement("template");
    frame.innerHTML = message.data;
    var dropped = 0;
    numberPartials(frame.content).forEach(function (partial) {
      var selector = partial.getAttribute("hx-target");
      if ((writtenBy.get(selector) || 0) > id) {
        partial.remove();
        dropped++;
      } else {
        writtenBy.set(selector, id);
      }
    });
    if (dropped) message.data = frame.innerHTML;
  });
  // The stream's pushes that write a number into one element by id (not a bell, not a region).
  function numberPartials(root) {
    return Array.prototype.filter.call(root.querySelectorAll("hx-partial"), function (partial) {
      return /^#[\w-]+$/.test(partial.getAttribute("hx-target") || "") && partial.getAttribute("hx-swap") === "innerHTML";
    });
  }

  // A live region re-fetched after a "changed" event can come back older than numbers the stream
  // pushed into it while the request was out (a tap at a table meanwhile): swapped in as it is,
  // it would show the old numbers until the next event. So the numbers pushed during the request
  // are written into the response before it is swapped in. Pushed totals are absolute, so writing
  // one that the response already holds changes nothing. (hx-sync="this:queue last" on the regions
  // keeps one request out per region, aimed at the region on the page, and at most one waiting:
  // the request under way always lands, however slow the server and however many events arrive
  // meanwhile. With "replace" each event aborted the one under way, and a phone on a busy server
  // could go on aborting its refreshes and show a round long over.)
  var LIVE_REGIONS = "#phone-state, #host-state, #screen-state, #players-card";
  var refetching = new Map(); // region id -> {ctx, pushed: [message data, ...]}
  var newest = new Map(); // region id -> the ctx of the request issued last for it
  document.addEventListener("htmx:before:request", function (event) {
    var region = event.target;
    if (region.matches && region.matches(LIVE_REGIONS)) {
      refetching.set(region.id, { ctx: event.detail.ctx, pushed: [] });
      newest.set(region.id, event.detail.ctx);
    }
  });
  // Only the request issued last for a region is swapped in. With the queue that is the one under
  // way (the one waiting is issued once it has landed); the check stays as a guard for a request
  // issued outside the queue (htmx.ajax): an older answer swapped after a newer one (the bell)
  // would roll it back, and the newer one brings everything the older had, and more. (The regions
  // swap by morphing, so the element a request was aimed at stays on the page whatever lands first.)
  document.addEventListener("htmx:before:swap", function (event) {
    var region = event.target;
    if (!region.matches || !region.matches(LIVE_REGIONS)) return;
    var latest = newest.get(region.id);
    if (latest && latest !== event.detail.ctx) event.preventDefault();
  });
  document.addEventListener("htmx:after:sse:message", function (event) {
    var message = event.detail.message;
    if (!message || message.event) return; // named events carry no numbers
    refetching.forEach(function (entry) { entry.pushed.push(message.data); });
  });
  document.addEventListener("htmx:after:request", function (event) {
    var ctx = event.detail.ctx;
    var entry = refetching.get(event.target.id);
    if (!entry || entry.ctx !== ctx) return;
    refetching.delete(event.target.id);
    if (!entry.pushed.length || !ctx.text || ctx.response.status !== 200) return;
    var fresh = document.createElement("template");
    fresh.innerHTML = ctx.text;
    var written = 0;
    entry.pushed.forEach(function (data) { written += writeNumbers(data, fresh.content); });
    if (written) ctx.text = fresh.innerHTML;
  });
  document.addEventListener("htmx:finally:request", function (event) {
    var entry = refetching.get(event.target.id);
    if (entry && entry.ctx === event.detail.ctx) refetching.delete(event.target.id); // failed or aborted
    if (newest.get(event.target.id) === event.detail.ctx) newest.delete(event.target.id);
  });
  function writeNumbers(data, root) {
    var message = document.createElement("template");
    message.innerHTML = data;
    var written = 0;
    // Only numbers aimed at one element by id; a bell comes with a "changed" event anyway.
    numberPartials(message.content).forEach(function (partial) {
      var target = root.querySelector(partial.getAttribute("hx-target"));
      if (target) { target.innerHTML = partial.innerHTML; written++; }
    });
    return written;
  }

  // A live region is never replaced by an error page. htmx swaps every answer, a 5xx too: a 500
  // (a bug, logged on the server) or a proxy's 502 while the server restarts, answering the
  // region's own refresh or a button whose answer goes into it, would put "Server Error" where the
  // page was, and the region, gone, would refresh no more (seen in CI: a phone stuck on "Server
  // Error (500)" for the rest of the night). The page keeps what it shows, says it is retrying in
  // its live badge, and fetches the region again, backing off to 15 s, until an answer lands.
  var LIVE_REGION = "[hx-get][hx-trigger^='changed from:']";
  var troubleCount = new Map(); // region id -> server errors in a row
  document.addEventListener("htmx:before:swap", function (event) {
    var ctx = event.detail.ctx;
    var status = ctx && ctx.response ? ctx.response.status : 0;
    var target = ctx && ctx.target;
    if (!target || !target.closest) return;
    var region = target.closest(LIVE_REGION) || target.querySelector(LIVE_REGION);
    if (!region) return;
    if (status < 500) {
      if (troubleCount.delete(region.id)) setLive(null, streamLive);
      return;
    }
    event.preventDefault();
    var count = (troubleCount.get(region.id) || 0) + 1;
    troubleCount.set(region.id, count);
    setBadge(gettext("Server trouble: retrying…"), false);
    setTimeout(function () {
      var now = document.getElementById(region.id);
      if (now) htmx.ajax("GET", now.getAttribute("hx-get"), { source: now });
    }, backoffMs(count));
  });

  var streamLive = false;
  function setLive(element, live) {
    streamLive = live;
    setBadge(live ? gettext("Live") : gettext("Reconnecting…"), live);
  }
  function setBadge(text, live) {
    var badge = document.querySelector("[data-live-badge]");
    if (!badge) return;
    badge.textContent = text;
    badge.classList.toggle("is-live", live);
  }
})();
