// bitsite's own JavaScript: small behaviours around htmx. The server decides everything else.
(function () {
  "use strict";

  // Reconnect with backoff and jitter: 0.5 s, 1 s, 2 s ... up to 8 s, each randomised.
  function backoff(retry) {
    var ceiling = Math.min(8000, 500 * Math.pow(2, retry));
    return ceiling / 2 + Math.random() * ceiling / 2;
  }

  function version(el) {
    return el ? parseInt(el.getAttribute("data-version") || "-1", 10) : -1;
  }

  // A board older than the one on the page is never swapped in.
  function isStale(html) {
    var found = /id="board"[^>]*data-version="(\d+)"/.exec(html);
    return found !== null && parseInt(found[1], 10) < version(document.getElementById("board"));
  }

  // A share link drawn by a push is a path: make it a whole address.
  function absoluteLinks() {
    document.querySelectorAll("input[data-absolute]").forEach(function (input) {
      if (input.value.charAt(0) === "/") input.value = location.origin + input.value;
    });
  }
  document.addEventListener("DOMContentLoaded", absoluteLinks);
  document.addEventListener("htmx:afterSettle", absoluteLinks);
  document.addEventListener("htmx:wsAfterMessage", absoluteLinks);

  // What a person entered and has not sent (a choice in a list: why they decline a
  // challenge; a name or a move typed in a box) survives a live redraw of its form: a push
  // that lands meanwhile redraws the same select with its first option, the same box
  // empty, and the form would send what they did not pick (or nothing). Kept by element id
  // as they enter it; put back after every swap and push (a box only if it came back
  // empty, a choice only if it is still offered). A form sent, by a request or over the
  // socket, is done with: its entries are forgotten before its answer can be swapped in.
  var entered = {};
  function entry(el) {
    return el && el.id && (el.tagName === "SELECT" || (el.tagName === "INPUT" && el.type === "text"));
  }
  function enter(e) { if (entry(e.target)) entered[e.target.id] = e.target.value; }
  document.addEventListener("input", enter);
  document.addEventListener("change", enter);
  function forget(e) {
    var form = e.target && e.target.closest ? e.target.closest("form") : null;
    if (!form) return;
    form.querySelectorAll("select[id], input[type=text][id]").forEach(function (el) { delete entered[el.id]; });
  }
  document.addEventListener("submit", forget);
  document.addEventListener("htmx:beforeRequest", forget);
  function entriesBack() {
    Object.keys(entered).forEach(function (id) {
      var el = document.getElementById(id), value = entered[id];
      if (!entry(el)) return;
      if (el.tagName === "INPUT") {
        if (!el.value) el.value = value;
      } else if (Array.prototype.some.call(el.options, function (o) { return o.value === value; })) {
        el.value = value;
      }
    });
  }
  document.addEventListener("htmx:afterSwap", entriesBack);
  document.addEventListener("htmx:wsAfterMessage", entriesBack);

  var socket = null;
  var retries = 0;

  function showReconnecting(on) {
    var el = document.getElementById("conn");
    if (el) el.hidden = !on;
    document.documentElement.setAttribute("data-live", on ? "reconnecting" : "open");
  }

  if (window.htmx) htmx.config.wsReconnectDelay = backoff;

  // A form drawn by a push was rendered once for every viewer, so it holds no CSRF token of
  // this browser's: htmx sends the page's own (the body's hx-headers). Should the browser ever
  // send such a form itself, it carries the page's token too, not a "page has expired".
  document.addEventListener("submit", function (e) {
    var form = e.target, token = /"X-CSRFToken": *"([^"]+)"/.exec(document.body.getAttribute("hx-headers") || "");
    if (!token || (form.method || "").toLowerCase() !== "post" || form.querySelector("[name=csrfmiddlewaretoken]")) return;
    var input = document.createElement("input");
    input.type = "hidden";
    input.name = "csrfmiddlewaretoken";
    input.value = token[1];
    form.appendChild(input);
  }, true);
  var hadRematch = !!document.querySelector("#rematch-link");

  // A signed-in player's every page also holds a small inbox socket (the header's badge:
  // people/consumers.py), besides the page's own: what follows is about the page's own.
  function isInbox(e) { return !!(e.detail.elt && e.detail.elt.id === "inbox-socket"); }
  var inboxRetries = 0, inboxSocket = null;

  document.addEventListener("htmx:wsOpen", function (e) {
    if (isInbox(e)) { inboxRetries = 0; inboxSocket = e.detail.socketWrapper; return; }
    socket = e.detail.socketWrapper;
    live = true;
    retries = 0;
    showReconnecting(false);
  });

  // A player's actions over the page's socket. With the socket open, a form of the match
  // marked data-frame (a move, a draw offer, resign, a claim...) is sent as a frame on it,
  // {"type": <data-frame>, <the form's fields>}, instead of as a request: the server runs
  // the same action (games/actions.py) and answers this page with its board, the frame
  // starting "<!--answer-->" (games/consumers.py). Without the socket (no JavaScript, or
  // while it reconnects) the same form is POSTed. An action whose answer had not come when
  // the socket dropped is sent again once the socket is back, if the first board it shows
  // says it did not happen: a move whose position is still on the board (its ply, which the
  // server checks too: a move that did arrive is refused, never played twice), any other
  // action whose board has not changed since.
  var live = false, unanswered = [], lost = [];
  var ANSWER = "<!--answer-->";
  function frameOf(e) {
    var form = e.detail.elt, kind = form && form.getAttribute ? form.getAttribute("data-frame") : null;
    var data = e.detail.requestConfig && e.detail.requestConfig.formData;
    if (!kind || !data || !data.forEach) return null;
    var frame = { type: kind };
    data.forEach(function (value, name) {
      if (name !== "csrfmiddlewaretoken" && typeof value === "string") frame[name] = value;
    });
    return frame;
  }
  function sendAction(frame) {
    var b = document.getElementById("board");
    unanswered.push({ frame: frame, version: version(b), ply: b ? b.getAttribute("data-ply") : null });
    socket.send(JSON.stringify(frame));
  }
  document.addEventListener("htmx:beforeRequest", function (e) {
    var frame = live && socket ? frameOf(e) : null;
    if (!frame) return;
    e.preventDefault(); // not a request: the frame is the action
    sendAction(frame);
  });
  function resendLost() {
    var b = document.getElementById("board"), again = lost;
    lost = [];
    if (!b) return;
    again.forEach(function (sent) {
      var undone = sent.frame.type === "move" ? b.getAttribute("data-ply") === sent.ply : version(b) === sent.version;
      if (undone) sendAction(sent.frame);
    });
  }

  // Why the server closed this page's socket for good (games/consumers.py).
  var refusals = {
    4400: "This page sent something the server does not expect: reload it.",
    4404: "This match no longer exists.",
    4409: "This match (or bitsite) is open in too many tabs of this browser: close some, then reload this page.",
    4413: "This page sent too much at once: reload it.",
    4429: "Too many pages opened, or messages sent, too fast: wait a moment, then reload this page."
  };

  document.addEventListener("htmx:wsClose", function (e) {
    var code = e.detail.event.code;
    if (!isInbox(e)) { live = false; lost = lost.concat(unanswered); unanswered = []; }
    if (isInbox(e)) { // no message on the page; a clean close or 4503 is retried quietly
      if (code < 4000 || code === 4503) {
        if ([1006, 1011, 1012, 1013].indexOf(code) < 0) {
          var inbox = e.detail.socketWrapper;
          setTimeout(function () { inbox.reconnect(); }, backoff(inboxRetries++));
        }
      }
      return;
    }
    if (code >= 4000 && code !== 4503) { // the server refused this page for good
      var el = document.getElementById("conn");
      if (el) {
        el.textContent = refusals[code] || "Live updates stopped: reload this page.";
        el.classList.add("refused");
        el.hidden = false;
      }
      document.documentElement.setAttribute("data-live", "refused-" + code);
      return;
    }
    showReconnecting(true);
    // htmx's ws extension retries 1006/1011/1012/1013 itself; a clean close (1000, 1001,
    // 1005) from a restarting server, and 4503 (its Redis is away), are retried here.
    if ([1006, 1011, 1012, 1013].indexOf(code) < 0) {
      var wrapper = e.detail.socketWrapper;
      setTimeout(function () { wrapper.reconnect(); }, backoff(retries++));
    }
  });

  // A redraw of the board the page already shows (the socket's first board, a presence
  // mark) waits while the person is pressing something on the board or a request of theirs
  // is on its way: replaced between the press and the release, the button they pressed
  // would never see its click. Once they let go, the page asks for what is current.
  var pressing = false, requests = 0, held = false;
  function sameVersion(html) {
    var found = /id="board"[^>]*data-version="(\d+)"/.exec(html);
    return found !== null && parseInt(found[1], 10) === version(document.getElementById("board"));
  }
  function askAgain() {
    if (held && !pressing && requests === 0 && unanswered.length === 0 && socket) {
      held = false;
      socket.send(JSON.stringify({ type: "sync" }));
    }
  }
  document.addEventListener("pointerdown", function (e) {
    var b = document.getElementById("board");
    if (b && b.contains(e.target)) pressing = true;
  }, true);
  ["pointerup", "pointercancel"].forEach(function (kind) {
    document.addEventListener(kind, function () {
      // After the click this release makes (and the request it sends) has begun.
      setTimeout(function () { pressing = false; askAgain(); }, 0);
    }, true);
  });
  document.addEventListener("htmx:beforeRequest", function (e) { if (!e.defaultPrevented) requests++; });
  document.addEventListener("htmx:afterRequest", function () {
    requests = Math.max(0, requests - 1);
    askAgain();
  });

  var answered = false, reopened = false;
  document.addEventListener("htmx:wsOpen", function (e) { if (!isInbox(e) && lost.length) reopened = true; });
  // A push that carries only what changed since the board of version N ("<!--delta:N-->",
  // games/boards.py): its slots are swapped in on a page that shows version N. A page that
  // shows another has missed a version (it asks for the whole board) or has a newer one.
  var DELTA = /^<!--delta:(\d+)-->/, STATE = /id="board-state"[^>]*data-version="(\d+)"/;
  function deltaFits(e) {
    var base = DELTA.exec(e.detail.message);
    if (!base) return true;
    var b = document.getElementById("board"), made = STATE.exec(e.detail.message);
    if (b && version(b) === parseInt(base[1], 10)) return true;
    if (socket && (!b || (made && parseInt(made[1], 10) > version(b)))) socket.send(JSON.stringify({ type: "sync" }));
    return false;
  }
  // After the slots are in: the board's version, ply and last move are those of its state.
  document.addEventListener("htmx:wsAfterMessage", function (e) {
    var state = document.getElementById("board-state"), b = document.getElementById("board");
    if (isInbox(e) || !state || !b || !DELTA.test(e.detail.message)) return;
    ["data-version", "data-ply", "data-last-move"].forEach(function (name) { b.setAttribute(name, state.getAttribute(name) || ""); });
  });
  document.addEventListener("htmx:wsBeforeMessage", function (e) {
    if (isInbox(e)) return;
    if (!deltaFits(e)) { e.preventDefault(); return; }
    // While a request of this page is on its way, what changed waits: swapped in now, it
    // could take away the form that sent the request, whose answer then has nowhere to go.
    // The page asks for the whole board once the answer is in (askAgain).
    if (requests > 0 && DELTA.test(e.detail.message)) { e.preventDefault(); held = true; return; }
    answered = e.detail.message.indexOf(ANSWER) === 0;
    if (answered) unanswered.shift(); // an answer is never held back: it ends the wait
    if (isStale(e.detail.message)) {
      e.preventDefault();
      return;
    }
    if (!answered && (pressing || requests > 0 || unanswered.length > 0) && sameVersion(e.detail.message)) {
      e.preventDefault();
      held = true;
    }
  });
  document.addEventListener("htmx:wsAfterMessage", function (e) {
    if (isInbox(e)) return;
    if (answered) {
      answered = false;
      document.dispatchEvent(new CustomEvent("bitsite:answered"));
      askAgain();
    }
    // The first board after the socket came back: what it shows tells whether the actions
    // sent before it dropped happened.
    if (reopened && /id="board"/.test(e.detail.message)) { reopened = false; resendLost(); }
  });

  // A finished match whose rematch has started takes its players there, once,
  // whether the news came in the answer to their own click or in a push.
  var leaving = false;
  function followRematch() {
    var follow = document.querySelector("#rematch-link[data-follow]");
    if (follow && !hadRematch && !leaving) {
      leaving = true;
      window.location.assign(follow.getAttribute("href"));
    }
  }
  document.addEventListener("htmx:afterSwap", followRematch);

  document.addEventListener("htmx:wsAfterMessage", followRematch);

  // A challenge this player sent, accepted while they wait on the challenges page: the
  // push brings its "Go to the game" (people/), which takes them there once. One shown
  // when the page loaded is only a link, unless it was accepted moments ago (data-fresh:
  // a bot answers before the page is there) and this tab has not followed it yet.
  var known = {};
  function followed(key) {
    try { if (sessionStorage.getItem("followed:" + key)) return true; sessionStorage.setItem("followed:" + key, "1"); } catch (e) {}
    return false;
  }
  var fresh = null;
  document.querySelectorAll("a[data-follow-once]").forEach(function (a) {
    var key = a.getAttribute("data-follow-once");
    known[key] = true;
    if (a.hasAttribute("data-fresh") && !followed(key)) fresh = fresh || a;
  });
  if (fresh) { leaving = true; window.location.assign(fresh.getAttribute("href")); }
  document.addEventListener("htmx:wsAfterMessage", function () {
    var go = null;
    document.querySelectorAll("a[data-follow-once]").forEach(function (a) {
      var key = a.getAttribute("data-follow-once");
      if (!known[key]) { known[key] = true; followed(key); go = go || a; }
    });
    if (go && !leaving) { leaving = true; window.location.assign(go.getAttribute("href")); }
  });

  // Every answer stays until read: a notice (a refusal, the computer's answer, a declined
  // draw offer), the page's messages ("You joined ...") and a "Copied!" stay, whatever
  // boards arrive, until this person acts again: a form of the board sent. A notice comes
  // into #notice (a live region: screen readers say it); the same notice again (an answer
  // and the push of the same change) is not swapped in, so it is said once.
  var copied = null; // the data-copy of the Copy button last pressed
  function showCopied() {
    if (!copied) return;
    document.querySelectorAll("[data-copy]").forEach(function (button) {
      if (button.getAttribute("data-copy") === copied) button.textContent = "Copied!";
    });
  }
  document.addEventListener("htmx:afterSwap", showCopied);
  document.addEventListener("htmx:wsAfterMessage", showCopied);
  document.addEventListener("submit", function (e) {
    var b = document.getElementById("board");
    if (!b || !b.contains(e.target)) return;
    var notice = document.getElementById("notice");
    if (notice) notice.textContent = "";
    document.querySelectorAll(".flash").forEach(function (flash) {
      (flash.closest("[role=status]") || flash).remove();
    });
    copied = null;
  }, true);
  document.addEventListener("htmx:oobBeforeSwap", function (e) {
    var d = e.detail, said = d.target && d.target.id === "notice" && d.target.textContent.trim();
    if (said && d.fragment && d.fragment.textContent.trim() === said) d.shouldSwap = false;
  });

  document.addEventListener("htmx:beforeSwap", function (e) {
    var target = e.detail.target;
    if (target && target.id === "board" && isStale(e.detail.serverResponse || "")) {
      e.detail.shouldSwap = false;
    }
  });

  // Clocks: the server sends each clock's time left with every board; between boards the
  // page counts the running one down. At zero it asks for the board again: the server
  // decides by its own clock (games/clock.py, whose words these are: tenths under 10 s; a
  // correspondence clock [data-long] in days and hours). A clock of the viewer's own
  // [data-mine] that runs under its [data-low] mark plays the low-time sound, once a game.
  var shownAt = 0;
  var asked = false;
  var warned = {};
  function clockText(ms) {
    var s = Math.floor(ms / 100) / 10;
    if (s < 10) return "0:0" + s.toFixed(1);
    var total = Math.floor(s), h = Math.floor(total / 3600), m = Math.floor(total / 60) % 60, r = total % 60;
    var two = function (n) { return (n < 10 ? "0" : "") + n; };
    return h ? h + ":" + two(m) + ":" + two(r) : m + ":" + two(r);
  }
  function longText(ms) {
    var d = Math.floor(ms / 864e5), h = Math.floor(ms / 36e5) % 24, m = Math.floor(ms / 6e4) % 60;
    if (d) return d + (d === 1 ? " day" : " days") + (h ? " " + h + " h" : "");
    if (h) return h + " h" + (m ? " " + m + " min" : "");
    return m ? m + " min" : Math.floor(ms / 1000) % 60 + " s";
  }
  // A correspondence game's due moment, sent as an ISO time, in the viewer's own time.
  function localTimes() {
    document.querySelectorAll("time[data-local]").forEach(function (el) {
      var when = new Date(el.getAttribute("datetime"));
      if (!isNaN(when)) el.textContent = when.toLocaleString([], { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
    });
  }
  function clocksShown() { shownAt = Date.now(); asked = false; localTimes(); tick(); }
  function tick() {
    document.querySelectorAll(".clock[data-running]").forEach(function (el) {
      var left = Math.max(0, parseInt(el.getAttribute("data-ms"), 10) - (Date.now() - shownAt));
      var low = parseInt(el.getAttribute("data-low") || "0", 10), who = el.closest("[data-player]");
      var text = el.hasAttribute("data-long") ? longText(left) : clockText(left);
      if (el.textContent !== text) el.textContent = text; // an unchanged clock is not redrawn
      el.classList.toggle("low", left < low);
      who = who ? who.getAttribute("data-player") : "";
      if (left < low && left > 0 && el.hasAttribute("data-mine") && !warned[who]) {
        warned[who] = true;
        document.dispatchEvent(new CustomEvent("bitsite:lowtime"));
      }
      if (left === 0 && !asked && socket) {
        asked = true;
        socket.send(JSON.stringify({ type: "sync" }));
      }
    });
  }
  document.addEventListener("DOMContentLoaded", clocksShown);
  document.addEventListener("htmx:afterSettle", clocksShown);
  document.addEventListener("htmx:wsAfterMessage", clocksShown);
  setInterval(tick, 100);

  // A page coming back from sleep asks for the current board.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "visible") return;
    [socket, inboxSocket].forEach(function (s) { if (s) s.send(JSON.stringify({ type: "sync" })); });
  });

  // Copy buttons: <button data-copy="#input-id">.
  document.addEventListener("click", function (e) {
    var button = e.target.closest("[data-copy]");
    if (!button) return;
    var input = document.querySelector(button.getAttribute("data-copy"));
    if (!input) return;
    input.select();
    var done = function () { copied = button.getAttribute("data-copy"); button.textContent = "Copied!"; showCopied(); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand("copy"); done(); });
    } else {
      document.execCommand("copy");
      done();
    }
  });
})();

// The analysis board: the arrow keys, Home and End press its step buttons (drawn by the
// server with the replay's ids); "b" its best move, "?" opens its list of keys. After a
// swap, focus goes back where it was: the same control, or the moves (not the page's
// body). Its copy button shows itself. The replay page steps by itself (replay.js).
(function () {
  "use strict";
  var keys = { ArrowLeft: "#replay-previous", ArrowRight: "#replay-next", Home: "#replay-first", End: "#replay-last", b: "#analysis-best" };
  document.addEventListener("keydown", function (e) {
    if (document.getElementById("replay") || !document.getElementById("analysis")) return;
    if (e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return;
    if (e.target.closest && e.target.closest("input, select, textarea, [contenteditable]")) return;
    if (e.key === "?") {
      var list = document.getElementById("analysis-keys");
      if (!list) return;
      e.preventDefault();
      list.open = !list.open;
      list.querySelector("summary").focus();
      return;
    }
    var button = keys[e.key] && !e.shiftKey && document.querySelector(keys[e.key]);
    if (!button) return;
    e.preventDefault();
    if (button.getAttribute("aria-disabled") !== "true") button.click();
  });
  var focused = null; // what had the focus in the analysis when a swap began
  document.addEventListener("htmx:beforeSwap", function (e) {
    var old = document.getElementById("analysis"), el = document.activeElement;
    if (!old || e.detail.target !== old) return;
    focused = { id: el && old.contains(el) ? el.id : "", inside: !!(el && (old.contains(el) || el === document.body)),
                line: !!(el && el.closest && el.closest("#analysis-line")) };
  });
  function settle() {
    document.querySelectorAll("#analysis [data-copy][hidden]").forEach(function (b) { b.hidden = false; });
    var was = focused;
    focused = null;
    if (!was || !was.inside) return;
    var fallback = document.querySelector("#analysis-moves a") || document.querySelector("#analysis-line li.current a");
    var target = (was.id && document.getElementById(was.id)) ||
      (was.line && document.querySelector("#analysis-line li.current a")) || fallback;
    if (!target || target.getAttribute("aria-disabled") === "true") target = fallback;
    if (target) target.focus();
  }
  document.addEventListener("htmx:afterSettle", settle);
  document.addEventListener("DOMContentLoaded", settle);
})();

// The feel of a match: the last move (pop, sound, words for screen readers), focus kept on
// the board across swaps, move keys, and the "?" list of keys. Hooks: #board[data-ply],
// [data-last-move], .last, button[data-key], [role=group], [data-keys-help], #mute, #keys,
// #keys-dialog, #last-move (templates/games/match.html and the board templates).
(function () {
  "use strict";
  var store = { get: function (k) { try { return localStorage.getItem(k); } catch (e) { return null; } },
                set: function (k, v) { try { localStorage.setItem(k, v); } catch (e) { /* private mode */ } } };
  function board() { return document.getElementById("board"); }
  function moveButtons(root) {
    return Array.prototype.slice.call((root || board() || document).querySelectorAll("button[name=move]:not([disabled])"));
  }

  // Sound: a 90 ms blip made by the Web Audio API for a move, a longer low beep when the
  // viewer's clock runs low (counted in <html data-sounds> and data-low-time-sounds); muted
  // by #mute or "m" (remembered), whose label says what pressing it does.
  var audio = null;
  function muted() { return store.get("bitsite-muted") === "1"; }
  function showMute() {
    var button = document.getElementById("mute");
    if (button) button.firstChild.nodeValue = muted() ? "Unmute" : "Mute";  // then its key's hint
  }
  function toggleMute() { store.set("bitsite-muted", muted() ? "0" : "1"); showMute(); }

  // Views of the match page, each remembered: "f" flips the board (the seats above and below
  // change places), "z" is zen mode (the board, the clocks and the player's buttons only).
  // Each is a mark on <html> that site.css reads (data-flip, data-zen), and its button's
  // aria-pressed.
  function showView(name) {
    var on = store.get("bitsite-" + name) === "1", button = document.getElementById(name);
    if (!button) return;
    document.documentElement.toggleAttribute("data-" + name, on);
    button.setAttribute("aria-pressed", on ? "true" : "false");
  }
  function toggleView(name) {
    if (!document.getElementById(name)) return false;
    store.set("bitsite-" + name, store.get("bitsite-" + name) === "1" ? "0" : "1");
    showView(name);
    return true;
  }
  function blip(from, to, length, counter) {
    if (muted()) return;
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    try {
      audio = audio || new Context();
      if (audio.state === "suspended") audio.resume();
      var t = audio.currentTime, osc = audio.createOscillator(), gain = audio.createGain();
      osc.type = "triangle";
      osc.frequency.setValueAtTime(from, t);
      osc.frequency.exponentialRampToValueAtTime(to, t + length);
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.2, t + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + length);
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(t + length + 0.01);
      var html = document.documentElement;
      html.setAttribute(counter, String(1 + parseInt(html.getAttribute(counter) || "0", 10)));
    } catch (e) { /* no sound is fine */ }
  }
  document.addEventListener("bitsite:lowtime", function () { blip(330, 300, 0.35, "data-low-time-sounds"); });

  // Focus: what had it inside the board before a swap gets it back after (or its nearest).
  // A page nobody has touched keeps its focus where it is.
  var shown = null, ply = -1, focusWas = null, inBoard = false;
  document.addEventListener("focusin", function (e) { var b = board(); inBoard = !!b && b.contains(e.target); });
  document.addEventListener("pointerdown", function (e) { var b = board(); inBoard = !!b && b.contains(e.target); });
  // The disclosures a person opened survive a swapped board (what they typed in it is
  // kept with every other entry, at the top of this file).
  // A disclosure the person opened (or closed) stays so on every later board, including
  // after boards that do not have it (the computer thinking, the opponent's turn).
  var opened = {};
  document.addEventListener("toggle", function (e) {
    var d = e.target, b = board();
    if (d.matches && d.matches("details[class]") && b && b.contains(d)) opened[d.className] = d.open;
  }, true);
  function reopen(b) {
    b.querySelectorAll("details[class]").forEach(function (d) {
      if (d.className in opened) d.open = opened[d.className];
    });
  }
  function remember() {
    var el = document.activeElement, b = board();
    focusWas = null;
    if (!b || !el || !(b.contains(el) || (el === document.body && inBoard))) return;
    focusWas = el === document.body || el === b ? { board: true } :
      { id: el.id, name: el.getAttribute("name"), value: el.getAttribute("value"), key: el.getAttribute("data-key"),
        start: el.selectionStart, end: el.selectionEnd };
  }
  function restore(b) {
    var was = focusWas, now = document.activeElement, el = null;
    focusWas = null;
    if (!was || (now && now !== b && b.contains(now))) return; // htmx kept it (same id)
    if (was.id) el = document.getElementById(was.id);
    if (!el && was.name) el = moveButtons(b).filter(function (x) { return x.getAttribute("value") === was.value; })[0];
    if (!el && was.key) el = b.querySelector('button[data-key="' + was.key + '"]');
    if (!el && !was.board) el = moveButtons(b)[0];
    el = el && b.contains(el) ? el : b;
    el.focus({ preventScroll: true });
    if (was.start != null && el.setSelectionRange) try { el.setSelectionRange(was.start, was.end); } catch (e) { /* not text */ }
  }

  // Said once per new move (a push that only changes presence or a clock says nothing).
  function announce(b) {
    var text = b.getAttribute("data-last-move"), out = document.getElementById("last-move");
    if (out && text) out.textContent = "Last move: " + text + ".";
  }

  // Called after every swap and push: acts once per new #board. A move's answer and its
  // push draw the same board twice: the second keeps the first's highlight (no second sound).
  // A push of what changed keeps the #board and gives it a new version.
  var movedAt = 0, shownVersion = null;
  function boardShown() {
    var b = board();
    if (!b || (b === shown && b.getAttribute("data-version") === shownVersion)) return;
    var first = shown === null, newPly = parseInt(b.getAttribute("data-ply") || "-1", 10);
    shown = b;
    shownVersion = b.getAttribute("data-version");
    b.setAttribute("tabindex", "-1");
    reopen(b);
    if (!first) restore(b);
    if (!first && newPly > ply) {
      b.classList.add("moved");
      movedAt = Date.now();
      blip(660, 440, 0.09, "data-sounds");
      announce(b);
    } else if (newPly === ply && Date.now() - movedAt < 1000) {
      b.classList.add("moved");
    }
    ply = newPly;
  }
  document.addEventListener("DOMContentLoaded", function () {
    boardShown();
    showMute();
    showView("flip");
    showView("zen");
    ["mute", "keys", "flip", "zen"].forEach(function (id) { var el = document.getElementById(id); if (el) el.hidden = false; });
  });
  document.addEventListener("htmx:beforeSwap", function (e) {
    if (e.detail.target && e.detail.target.id === "board") remember();
  });
  document.addEventListener("htmx:wsBeforeMessage", remember);
  document.addEventListener("htmx:afterSwap", boardShown);
  document.addEventListener("htmx:wsAfterMessage", boardShown);

  // The "?" list: the general keys in the dialog, the game's own from the board.
  function openKeys() {
    var dialog = document.getElementById("keys-dialog");
    if (!dialog || dialog.open) return;
    var help = document.querySelector("#board [data-keys-help]"), slot = document.getElementById("keys-game");
    if (help && slot) {
      var copy = help.cloneNode(true);
      copy.hidden = false;
      copy.removeAttribute("data-keys-help");
      slot.replaceChildren(copy);
    }
    dialog.showModal();
  }
  document.addEventListener("click", function (e) {
    if (e.target.closest("#keys")) openKeys();
    else if (e.target.closest("#mute")) toggleMute();
    else if (e.target.closest("#flip")) toggleView("flip");
    else if (e.target.closest("#zen")) toggleView("zen");
  });

  // Move keys: "0", "1" and numbers ("1" then "2" is 12) press the button with that data-key;
  // "p" starts a pair's key ("p" then "3": Bit Flip's bits 3 and 4), and shows the pairs.
  var typed = "", timer = null;
  function pressKey(button) {
    typed = "";
    clearTimeout(timer);
    if (button) { button.focus(); button.click(); }
  }
  function digit(d) {
    var buttons = moveButtons().filter(function (x) { return x.hasAttribute("data-key"); });
    var find = function (prefix) {
      return { exact: buttons.filter(function (x) { return x.getAttribute("data-key") === prefix; })[0],
               longer: buttons.some(function (x) { var k = x.getAttribute("data-key"); return k.length > prefix.length && k.indexOf(prefix) === 0; }) };
    };
    var next = typed + d, found = find(next);
    if (!found.exact && !found.longer) { next = d; found = find(d); }
    clearTimeout(timer);
    if (!found.exact && !found.longer) { typed = ""; return false; }
    if (found.exact && !found.longer) { pressKey(found.exact); return true; }
    typed = next;
    if (d === "p") buttons.filter(function (x) { return x.getAttribute("data-key").charAt(0) === "p"; })[0].focus();
    timer = setTimeout(function () { pressKey(found.exact); }, 700);
    return true;
  }
  var arrows = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1, Home: "first", End: "last" };
  function rove(key) {
    var el = document.activeElement, b = board();
    if (!b || !el) return false;
    if (el === b) { var first = moveButtons(b)[0]; if (first) first.focus(); return !!first; }
    var group = b.contains(el) && el.matches("button") && el.closest("[role=group], form");
    if (!group) return false;
    var items = moveButtons(group), i = items.indexOf(el);
    if (i < 0) return false;
    var step = arrows[key];
    i = step === "first" ? 0 : step === "last" ? items.length - 1 : (i + step + items.length) % items.length;
    items[i].focus();
    return true;
  }
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.altKey || e.metaKey || e.defaultPrevented) return;
    if (e.target.closest && e.target.closest("input, textarea, select, [contenteditable], dialog")) return;
    var done = false;
    if (e.key === "?") { openKeys(); done = !!document.getElementById("keys-dialog"); }
    else if (e.key === "m" && document.getElementById("mute")) { toggleMute(); done = true; }
    else if (e.key === "f") done = toggleView("flip");
    else if (e.key === "z") done = toggleView("zen");
    else if (/^[0-9p]$/.test(e.key)) done = digit(e.key);
    else if (e.key in arrows) done = rove(e.key);
    if (done) e.preventDefault();
  });
})();

// Countdowns (templates/games/match.html): a [data-wait-ms] counts down from when the page
// drew it (with data-wait-from, from when that presence mark's player left): its [data-left]
// shows the seconds to go, and at zero its buttons enable themselves and its [data-wait-text]
// goes. With data-wait-sync, the page asks for the current board at zero: the server decides.
(function () {
  "use strict";
  var drawn = new WeakMap(), asked = new WeakSet(), socket = null;
  document.addEventListener("htmx:wsOpen", function (e) {
    if (!(e.detail.elt && e.detail.elt.id === "inbox-socket")) socket = e.detail.socketWrapper;
  });
  function age(el) {
    if (!drawn.has(el)) drawn.set(el, Date.now());
    return Date.now() - drawn.get(el);
  }
  function number(el, name) { return parseInt(el.getAttribute(name) || "0", 10); }
  function tick() {
    document.querySelectorAll("[data-wait-ms]").forEach(function (el) {
      var left = number(el, "data-wait-ms") - age(el), from = el.getAttribute("data-wait-from");
      if (from) {
        var mark = document.querySelector(from);
        left = number(el, "data-wait-ms");
        if (mark && mark.getAttribute("data-online") === "no") left -= number(mark, "data-away-ms") + age(mark);
      }
      // Only what changed is written: a page that waits is not redrawn four times a second.
      var ready = left <= 0, seconds = String(Math.ceil(left / 1000));
      el.querySelectorAll("button").forEach(function (b) { if (b.disabled !== !ready) b.disabled = !ready; });
      el.querySelectorAll("[data-wait-text]").forEach(function (t) { if (t.hidden !== ready) t.hidden = ready; });
      if (!ready) el.querySelectorAll("[data-left]").forEach(function (n) { if (n.textContent !== seconds) n.textContent = seconds; });
      if (ready && el.hasAttribute("data-wait-sync") && !asked.has(el) && socket) {
        asked.add(el);
        socket.send(JSON.stringify({ type: "sync" }));
      }
    });
  }
  document.addEventListener("DOMContentLoaded", tick);
  document.addEventListener("htmx:afterSettle", tick);
  document.addEventListener("htmx:wsAfterMessage", tick);
  setInterval(tick, 250);
})();
