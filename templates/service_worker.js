// Bunco Club's service worker (served at /sw.js by bunco_club/site/views.py, which writes CONFIG).
// What it keeps: the app shell and the static files, in one cache named after their version, and
// the offline page. What it never keeps: any other page (a phone's page holds a person's night), a
// stream (/events/...), anything but a GET. Those go to the network as if there were no worker.
"use strict";

const CONFIG = {{ config|safe }};
const CACHE = "bunco-static-" + CONFIG.version;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(CONFIG.shell.map((url) => new Request(url, { cache: "reload" }))))
      .then(() => self.skipWaiting()), // a new release takes over at once, not when every tab is closed
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(
        names.filter((name) => name.startsWith("bunco-static-") && name !== CACHE).map((name) => caches.delete(name)),
      ))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return; // taps and moves: their scripts resend them with their keys
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    // Always from the server, never kept; the offline page when the server cannot be reached.
    event.respondWith(fetch(request).catch(() => offlinePage()));
  } else if (url.pathname.startsWith(CONFIG.static) && !request.headers.has("range")) {
    // (A range, a video's, is left to the server: a part of a file cannot be kept whole.)
    event.respondWith(staticFile(request));
  }
  // Anything else (a page's live region, a stream, a JSON answer) is left to the network.
});

function offlinePage() {
  return caches.match(CONFIG.offline).then((page) => page || Response.error());
}

// A static file from the cache, else from the server (and kept): within a version they never change.
async function staticFile(request) {
  // A worker of an old version, still finishing a page's request, keeps nothing: its cache is gone.
  if (!(await caches.has(CACHE))) return fetch(request);
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request);
  if (kept) return kept;
  const answer = await fetch(request);
  if (answer.status === 200 && answer.type === "basic") cache.put(request, answer.clone());
  return answer;
}
