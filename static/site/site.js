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

  var socket = null;
  var retries = 0;

  function showReconnecting(on) {
    var el = document.getElementById("conn");
    if (el) el.hidden = !on;
    document.documentElement.setAttribute("data-live", on ? "reconnecting" : "open");
  }

  if (window.htmx) htmx.config.wsReconnectDelay = backoff;
  var hadRematch = !!document.querySelector("#rematch-link");

  document.addEventListener("htmx:wsOpen", function (e) {
    socket = e.detail.socketWrapper;
    retries = 0;
    showReconnecting(false);
  });

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

  var shownVersion = -1;
  document.addEventListener("htmx:wsBeforeMessage", function (e) {
    if (isStale(e.detail.message)) {
      e.preventDefault();
      return;
    }
    shownVersion = version(document.getElementById("board"));
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

  document.addEventListener("htmx:wsAfterMessage", function () {
    // A message about an earlier board goes once the board moves on.
    var notice = document.getElementById("notice");
    if (notice && version(document.getElementById("board")) > shownVersion) notice.textContent = "";
    followRematch();
  });

  document.addEventListener("htmx:beforeSwap", function (e) {
    var target = e.detail.target;
    if (target && target.id === "board" && isStale(e.detail.serverResponse || "")) {
      e.detail.shouldSwap = false;
    }
  });

  // Clocks: the server sends each clock's time left with every board; between boards the
  // page counts the running one down. At zero it asks for the board again: the server
  // decides by its own clock (games/clock.py).
  var shownAt = 0;
  var asked = false;
  function clockText(ms) {
    var s = ms / 1000;
    if (s < 10) return "0:" + (s < 10 ? "0" : "") + s.toFixed(1);
    var total = Math.floor(s), h = Math.floor(total / 3600), m = Math.floor(total / 60) % 60, r = total % 60;
    var two = function (n) { return (n < 10 ? "0" : "") + n; };
    return h ? h + ":" + two(m) + ":" + two(r) : m + ":" + two(r);
  }
  function clocksShown() { shownAt = Date.now(); asked = false; }
  document.addEventListener("DOMContentLoaded", clocksShown);
  document.addEventListener("htmx:afterSettle", clocksShown);
  document.addEventListener("htmx:wsAfterMessage", clocksShown);
  setInterval(function () {
    document.querySelectorAll(".clock[data-running]").forEach(function (el) {
      var left = Math.max(0, parseInt(el.getAttribute("data-ms"), 10) - (Date.now() - shownAt));
      el.textContent = clockText(left);
      el.classList.toggle("low", left < 20000);
      if (left === 0 && !asked && socket) {
        asked = true;
        socket.send(JSON.stringify({ type: "sync" }));
      }
    });
  }, 100);

  // A page coming back from sleep asks for the current board.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && socket) {
      socket.send(JSON.stringify({ type: "sync" }));
    }
  });

  // Copy buttons: <button data-copy="#input-id">.
  document.addEventListener("click", function (e) {
    var button = e.target.closest("[data-copy]");
    if (!button) return;
    var input = document.querySelector(button.getAttribute("data-copy"));
    if (!input) return;
    input.select();
    var done = function () { button.textContent = "Copied!"; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand("copy"); done(); });
    } else {
      document.execCommand("copy");
      done();
    }
  });
})();

// Replay: the arrow keys, Home and End press the replay's buttons (which the server draws).
(function () {
  "use strict";
  var keys = { ArrowLeft: "#replay-previous", ArrowRight: "#replay-next", Home: "#replay-first", End: "#replay-last" };
  document.addEventListener("keydown", function (e) {
    var button = keys[e.key] && document.querySelector(keys[e.key]);
    if (!button || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (e.target.closest && e.target.closest("input, select, textarea, [contenteditable]")) return;
    e.preventDefault();
    if (button.getAttribute("aria-disabled") !== "true") button.click();
  });
})();
