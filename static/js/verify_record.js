// "Check the dice" in the player's own browser (issue 31): the finished game's public record
// (/g/<code>/record.json) is checked here, on the phone, against docs/FAIRNESS.md version 2, the same
// recipe scripts/verify_record.py follows: the seed's SHA-256 is the commitment, and every step's
// dice, shuffles and cards come again from HMAC-SHA256(seed, "{code}/{step}/{part}/{i}").
// Web Crypto does the hashing where the page has it (HTTPS, localhost); a living room that reaches
// the site over plain http at a LAN address has no crypto.subtle, so a small SHA-256 of our own
// (below, checked against the docs/FAIRNESS.md vectors by the browser tests) does it there.
(function () {
  "use strict";

  var K = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2];

  function sha256(bytes) {
    var h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
    var length = bytes.length, padded = new Uint8Array(((length + 9 + 63) >> 6) << 6);
    padded.set(bytes);
    padded[length] = 0x80;
    var bits = length * 8, view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor(bits / 4294967296));
    view.setUint32(padded.length - 4, bits >>> 0);
    var w = new Uint32Array(64);
    for (var block = 0; block < padded.length; block += 64) {
      for (var t = 0; t < 16; t++) w[t] = view.getUint32(block + t * 4);
      for (t = 16; t < 64; t++) {
        var x = w[t - 15], y = w[t - 2];
        var s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
        var s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
        w[t] = (w[t - 16] + s0 + w[t - 7] + s1) >>> 0;
      }
      var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
      for (t = 0; t < 64; t++) {
        var S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
        var t1 = (k + S1 + ((e & f) ^ (~e & g)) + K[t] + w[t]) >>> 0;
        var S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
        var t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
        k = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
      }
      h = [h[0] + a, h[1] + b, h[2] + c, h[3] + d, h[4] + e, h[5] + f, h[6] + g, h[7] + k].map(function (v) { return v >>> 0; });
    }
    var out = new Uint8Array(32), outView = new DataView(out.buffer);
    h.forEach(function (v, i) { outView.setUint32(i * 4, v); });
    return out;
  }

  function concat(a, b) { var out = new Uint8Array(a.length + b.length); out.set(a); out.set(b, a.length); return out; }

  function hmacOwn(key, message) {
    if (key.length > 64) key = sha256(key);
    var inner = new Uint8Array(64), outer = new Uint8Array(64);
    for (var i = 0; i < 64; i++) { inner[i] = (key[i] || 0) ^ 0x36; outer[i] = (key[i] || 0) ^ 0x5c; }
    return sha256(concat(outer, sha256(concat(inner, message))));
  }

  var ascii = function (text) { return new TextEncoder().encode(text); };
  var hex = function (bytes) { return Array.prototype.map.call(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join(""); };
  var subtle = window.crypto && window.crypto.subtle;

  async function hmac(key, message) {  // Web Crypto where it exists, our own elsewhere: the same bytes
    if (!subtle) return hmacOwn(key, message);
    var imported = await subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return new Uint8Array(await subtle.sign("HMAC", imported, message));
  }

  async function sha256Hex(text) {
    if (!subtle) return hex(sha256(ascii(text)));
    return hex(new Uint8Array(await subtle.digest("SHA-256", ascii(text))));
  }

  function Stream(seed, code, step, part) {
    this.key = ascii(seed);
    this.prefix = code + "/" + step + "/" + part + "/";
    this.block = 0; this.bytes = new Uint8Array(0); this.at = 0;
  }
  Stream.prototype.byte = async function () {
    if (this.at === this.bytes.length) {
      this.bytes = await hmac(this.key, ascii(this.prefix + this.block));
      this.block += 1; this.at = 0;
    }
    return this.bytes[this.at++];
  };
  Stream.prototype.die = async function () {
    var b = await this.byte();
    while (b >= 252) b = await this.byte();
    return b % 6 + 1;
  };
  Stream.prototype.below = async function (k) {
    var limit = 4294967296 - (4294967296 % k);
    for (;;) {
      var u = 0;
      for (var i = 0; i < 4; i++) u = u * 256 + await this.byte();
      if (u < limit) return u % k;
    }
  };
  Stream.prototype.shuffled = async function (items) {
    var list = items.slice();
    for (var i = list.length - 1; i > 0; i--) {
      var j = await this.below(i + 1), kept = list[i];
      list[i] = list[j]; list[j] = kept;
    }
    return list;
  };

  var FILL_OR_BUST_DECK = [].concat(
    Array(12).fill("BONUS 300"), Array(10).fill("BONUS 400"), Array(8).fill("BONUS 500"), Array(8).fill("NO DICE"),
    Array(6).fill("FILL 1000"), Array(4).fill("MUST BUST"), Array(4).fill("VENGEANCE 2500"), Array(2).fill("DOUBLE TROUBLE"));
  var same = function (a, b) { return JSON.stringify(a) === JSON.stringify(b); };
  var sorted = function (list) { return list.slice().sort(); };

  // What a step's stream is keyed by (docs/FAIRNESS.md): step 0's the seats' parts joined by commas, a
  // move's its phone's part.
  function stepInput(record, step) {
    return step.number === 0 ? record.seats.map(function (seat) { return seat.contribution || ""; }).join(",") : (step.client || "");
  }

  // One step's chance, re-derived in order; `pile` is what the last shuffle made (drawn from the
  // front), `discards` the Fill or Bust cards turned since. What it derived, in words, or a Differs.
  async function checkStep(record, step, pile, discards) {
    var part = stepInput(record, step);
    var stream = new Stream(record.seed, record.code, step.number, part), said = [];
    var items = step.chance || [];
    for (var n = 0; n < items.length; n++) {
      var item = items[n], where = interpolate(gettext("its chance item %(number)s"), { number: n + 1 }, true);
      if (item.dice) {
        var dice = [];
        for (var d = 0; d < item.dice.length; d++) dice.push(await stream.die());
        if (!same(dice, item.dice)) throw new Error(interpolate(gettext("%(where)s: the dice are %(dice)s, the derivation gives %(derived)s"),
          { where: where, dice: item.dice.join(" "), derived: dice.join(" ") }, true));
        said.push(interpolate(gettext("dice %(dice)s"), { dice: dice.join(" ") }, true));
      } else if (item.shuffle) {
        var before = item.shuffle.before, after = await stream.shuffled(before);
        if (record.game === "fill_or_bust" && !same(before, FILL_OR_BUST_DECK) && !same(before, discards)) {
          throw new Error(interpolate(gettext("%(where)s: a shuffle that starts neither from the full deck in its order nor from the discards in the order they were turned"), { where: where }, true));
        }
        if (!same(sorted(before), sorted(item.shuffle.after)) || !same(after, item.shuffle.after)) {
          throw new Error(interpolate(gettext("%(where)s: the shuffle gives %(cards)s…, the derivation gives %(derived)s…"),
            { where: where, cards: item.shuffle.after.slice(0, 6).join(", "), derived: after.slice(0, 6).join(", ") }, true));
        }
        pile.splice(0, pile.length, ...after);
        discards.splice(0);
        said.push(interpolate(ngettext("shuffled %(count)s card: %(cards)s…", "shuffled %(count)s cards: %(cards)s…", after.length),
          { count: after.length, cards: after.slice(0, 3).join(", ") }, true));
      } else if (item.draw) {
        if (!pile.length || pile[0] !== item.draw.card) throw new Error(interpolate(gettext("%(where)s: drew %(card)s but the pile's front card is %(front)s"),
          { where: where, card: item.draw.card, front: pile[0] || gettext("none") }, true));
        discards.push(pile.shift());
        said.push(interpolate(gettext("card %(card)s"), { card: item.draw.card }, true));
      } else {
        throw new Error(interpolate(gettext("%(where)s: an entry this check does not know"), { where: where }, true));
      }
    }
    return said;
  }

  // The rest of the record, as scripts/verify_record.py checks it: the seed's form, each seat's
  // part, step 0's input X0 (the seats' parts joined by commas: one altered where no die shows it,
  // as in Kismet's deal, is still altered), every move's part and seat. What is wrong, or null.
  function hexText(value, length) { return typeof value === "string" && value.length === length && /^[0-9a-f]*$/.test(value); }
  function fieldsProblem(record) {
    var seats = record.seats;
    if (!hexText(record.seed, 64) || !Array.isArray(seats) || !record.code) return gettext("the seed, the seats or the code are missing or malformed");
    for (var n = 0; n < seats.length; n++) {
      if (seats[n].contribution !== "" && !hexText(seats[n].contribution, 32)) return interpolate(gettext("seat %(number)s's contribution is not 32 lowercase hex characters, nor empty"), { number: n }, true);
    }
    for (var s = 0; s < (record.steps || []).length; s++) {
      var step = record.steps[s];
      if (step.number === 0) {
        if (step.client !== stepInput(record, step) || "seat" in step) return gettext("step 0 differs: its client is not the seats' contributions in seat order, joined by commas");
      } else if (step.client !== "" && !hexText(step.client, 32)) {
        return interpolate(gettext("step %(number)s differs: its client is not 32 lowercase hex characters, nor empty"), { number: step.number }, true);
      } else if (!Number.isInteger(step.seat) || step.seat < 0 || step.seat >= seats.length) {
        return interpolate(gettext("step %(number)s differs: its seat is not one of the table's"), { number: step.number }, true);
      }
    }
    return null;
  }

  // Checks `record`; calls `onStep(number, words)` as each step is derived. Resolves to null when
  // everything holds, else to what differs, in words.
  async function verify(record, onStep) {
    if (record.version !== 2) return interpolate(gettext("this check reads version 2 records, not version %(version)s"), { version: record.version }, true);
    if (await sha256Hex(record.seed || "") !== record.commitment) return gettext("the seed is not the one committed to: its SHA-256 is not the commitment");
    var pile = [], discards = [];
    for (var s = 0; s < record.steps.length; s++) {
      var step = record.steps[s];
      if (step.number !== s) return interpolate(gettext("step %(number)s is missing (the next one is numbered %(next)s)"), { number: s, next: step.number }, true);
      try {
        var said = await checkStep(record, step, pile, discards);
        if (onStep) onStep(step, said);
      } catch (differs) {
        return interpolate(gettext("step %(number)s differs: %(differs)s"), { number: step.number, differs: differs.message }, true);
      }
    }
    return fieldsProblem(record);
  }

  function startPage() {
    var box = document.querySelector("[data-phone-check]");
    if (!box) return;
    var verdict = box.querySelector("[data-phone-verdict]"), list = box.querySelector("[data-phone-steps]");
    var names = [];
    fetch(box.getAttribute("data-phone-check"), { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (answer) { return answer.json(); })
      .then(function (record) {
        names = record.seats.map(function (seat) { return seat.name; });
        return verify(record, function (step, said) {
          var line = document.createElement("li");
          var what = said.length ? said.join(" · ") : gettext("no chance");
          line.textContent = step.number === 0
            ? interpolate(gettext("The deal: %(said)s"), { said: what }, true)
            : interpolate(gettext("Move %(number)s (%(name)s): %(said)s"), { number: step.number, name: names[step.seat] || "", said: what }, true);
          list.appendChild(line);
        }).then(function (problem) {
          verdict.classList.add(problem ? "notice-error" : "verdict-ok");
          var moves = list.children.length - 1;
          verdict.textContent = problem
            ? interpolate(gettext("Not verified on this phone: %(problem)s."), { problem: problem }, true)
            : interpolate(subtle
              ? ngettext("Verified on this phone: every die and card of the %(moves)s move comes from the committed seed and the phones' parts.",
                "Verified on this phone: every die and card of the %(moves)s moves comes from the committed seed and the phones' parts.", moves)
              : ngettext("Verified on this phone: every die and card of the %(moves)s move comes from the committed seed and the phones' parts (checked with this page's own SHA-256: this connection has no Web Crypto).",
                "Verified on this phone: every die and card of the %(moves)s moves comes from the committed seed and the phones' parts (checked with this page's own SHA-256: this connection has no Web Crypto).", moves),
            { moves: moves }, true);
        });
      })
      .catch(function (error) { verdict.textContent = interpolate(gettext("The check could not run here: %(error)s"), { error: error.message }, true); });
  }
  startPage();

  window.RecordCheck = { sha256: function (text) { return hex(sha256(ascii(text))); }, hmacOwn: function (key, text) { return hex(hmacOwn(ascii(key), ascii(text))); },
    Stream: Stream, verify: verify, usesWebCrypto: !!subtle };
})();
