// The replay (templates/games/replay.html). Every step is a link the server draws; this
// script takes them over: a step to a ply whose frame the page holds (<template
// data-frame> in #replay-frames, drawn by the server and asked for once the page has
// loaded) is shown at once, by the ids of its parts; any other asks the server for #replay. Presses made meanwhile add up, so none is lost, and holding
// an arrow key walks the game. The address follows, so a reload keeps the place.
(function () {
  "use strict";
  var target = null, mode = "none", busy = false;
  function root() { return document.getElementById("replay"); }
  function num(el, name) { return parseInt(el.getAttribute(name), 10); }
  function urlFor(ply) { return root().getAttribute("data-url") + "?ply=" + ply; }
  function held(ply) { return document.querySelector('#replay-frames template[data-frame="' + ply + '"]'); }

  function mark(ply) { // every marker of the ply shown: buttons, slider, list, strip, links
    var r = root(), last = num(r, "data-last");
    r.setAttribute("data-ply", String(ply));
    document.getElementById("replay-ply").textContent = ply.toLocaleString("en-US");
    var slider = document.getElementById("replay-slider");
    slider.value = String(ply);
    slider.setAttribute("aria-valuetext", "ply " + ply + " of " + last);
    var steps = { first: ply > 0 ? 0 : null, previous: ply > 0 ? ply - 1 : null,
                  next: ply < last ? ply + 1 : null, last: ply < last ? last : null };
    Object.keys(steps).forEach(function (key) {
      var a = document.getElementById("replay-" + key);
      if (!a) return;
      if (steps[key] === null) {
        a.removeAttribute("href");
        a.setAttribute("aria-disabled", "true");
        a.setAttribute("role", "link");
      } else {
        a.setAttribute("href", urlFor(steps[key]));
        a.removeAttribute("aria-disabled");
        a.removeAttribute("role");
      }
    });
    r.querySelectorAll("#replay-moves li").forEach(function (li) {
      var now = num(li, "data-ply") === ply;
      li.classList.toggle("current", now);
      if (now) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
      if (!li.classList.length) li.removeAttribute("class");
    });
    r.querySelectorAll("#strip a").forEach(function (a) {
      var now = num(a, "data-ply") === ply;
      a.classList.toggle("now", now);
      a.setAttribute("tabindex", now ? "0" : "-1");
      if (now) a.setAttribute("aria-current", "step"); else a.removeAttribute("aria-current");
    });
    var analyse = document.getElementById("analyse-here");
    if (analyse) analyse.setAttribute("href", analyse.getAttribute("href").replace(/ply=\d+/, "ply=" + ply));
  }

  function show(ply) { // a held frame: each part's content replaces the part with its id
    var parts = held(ply).content.children;
    for (var i = 0; i < parts.length; i++) {
      var part = parts[i].cloneNode(true), live = document.getElementById(part.id);
      if (!live) continue;
      live.className = part.className;
      live.replaceChildren.apply(live, Array.prototype.slice.call(part.childNodes));
    }
    mark(ply);
  }

  function record(ply) { // the address follows the ply shown
    var url = urlFor(ply);
    if (mode !== "none" && location.pathname + location.search !== url) {
      history[mode === "push" ? "pushState" : "replaceState"]({ replay: ply }, "", url);
    }
    mode = "none";
  }

  function pump() {
    var r = root();
    if (!r || target === null) return;
    var now = num(r, "data-ply");
    if (target !== now && held(target)) { show(target); now = target; }
    if (target === now) { target = null; record(now); return; }
    if (busy) return;
    busy = true;
    var asked = target;
    // The server answers a request marked as htmx's with the #replay partial alone. An
    // answer is drawn only while its ply is still the one wanted: a step shown meanwhile
    // from a held frame (the frames may arrive while the request is out) is not undone.
    get(urlFor(asked), { "HX-Request": "true" }).then(function (html) {
      busy = false;
      var r = root();
      if (r && target === asked) {
        r.outerHTML = html;
        if (num(root(), "data-ply") !== asked) target = null; // no loop on an odd answer
      }
      pump();
    }, function () {
      busy = false;
      if (target === asked) target = null; // no loop on errors
      pump();
    });
  }

  function get(url, headers) {
    return fetch(url, { headers: headers || {}, credentials: "same-origin" }).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.text();
    });
  }

  // Every ply's frame, asked for once the page is there (a match of up to HELD plies).
  function loadFrames() {
    var slot = document.getElementById("replay-frames"), url = slot && slot.getAttribute("data-frames");
    if (!url) return;
    get(url).then(function (html) {
      var now = document.getElementById("replay-frames");
      if (now) now.outerHTML = html;
      pump();
    }, function () { /* without them, each step asks the server */ });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", loadFrames);
  else loadFrames();

  // Go to ``ply``; "push" makes a new history entry, "replace" moves the current one.
  function go(ply, how) {
    var r = root();
    target = Math.max(0, Math.min(num(r, "data-last"), ply));
    if (how === "push" || mode === "none") mode = how;
    pump();
  }
  function from() { return target !== null ? target : num(root(), "data-ply"); }

  var keys = { ArrowLeft: -1, ArrowRight: 1, Home: "first", End: "last" };
  document.addEventListener("keydown", function (e) {
    if (!root() || !(e.key in keys) || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (e.target.closest && e.target.closest("input, select, textarea, [contenteditable], dialog")) return;
    e.preventDefault();
    var step = keys[e.key];
    go(step === "first" ? 0 : step === "last" ? num(root(), "data-last") : from() + step, "replace");
  });

  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest(".replay-page a[href]");
    if (!a || !root() || e.button !== 0 || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    var url = new URL(a.getAttribute("href"), location.href);
    if (url.pathname !== root().getAttribute("data-url") || !/^\?ply=\d+$/.test(url.search)) return;
    e.preventDefault();
    go(parseInt(url.search.slice(5), 10), "push");
  });

  // The slider shows each held ply as it is dragged, and moves the address once let go.
  document.addEventListener("input", function (e) {
    if (e.target.id !== "replay-slider") return;
    var ply = parseInt(e.target.value, 10);
    if (held(ply)) go(ply, "none");
  });
  document.addEventListener("change", function (e) {
    if (e.target.id === "replay-slider") go(parseInt(e.target.value, 10), "push");
  });
  document.addEventListener("submit", function (e) {
    if (e.target.closest(".replay-slider")) {
      e.preventDefault();
      go(parseInt(document.getElementById("replay-slider").value, 10), "push");
    }
  });

  window.addEventListener("popstate", function () {
    if (!root()) return;
    var found = /[?&]ply=(\d+)/.exec(location.search);
    mode = "none";
    target = null;
    go(found ? parseInt(found[1], 10) : num(root(), "data-last"), "none");
  });
})();
