// Push notifications on this device (the settings page, people/_notifications.html): ask
// the browser's permission, subscribe with the site's VAPID public key, and tell the
// server (or turn it off). Without JavaScript, or in a browser without the Push API, the
// buttons stay hidden and the page says why.
(function () {
  "use strict";
  var box = document.getElementById("push-device");
  if (!box) return;
  var needsScript = document.getElementById("push-needs-js"); // what a page without JavaScript says
  if (needsScript) needsScript.hidden = true;
  var status = box.querySelector("[data-push=status]");
  var on = box.querySelector("[data-push=on]");
  var off = box.querySelector("[data-push=off]");
  box.hidden = false;

  function say(text) { status.textContent = text; }

  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    say("This browser cannot receive push notifications from this site.");
    return;
  }

  function csrf() {
    var found = /"X-CSRFToken": *"([^"]+)"/.exec(document.body.getAttribute("hx-headers") || "");
    return found ? found[1] : "";
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (answer) {
        if (!response.ok) throw new Error(answer.error || "The site refused it (" + response.status + ").");
        return answer;
      });
    });
  }

  // The VAPID public key, base64url, as the bytes applicationServerKey takes.
  function keyBytes(text) {
    var base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(base64 + "===".slice((base64.length + 3) % 4));
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  }

  var ready = navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(function () {
    return navigator.serviceWorker.ready;
  });

  function draw(subscription) {
    on.hidden = !!subscription;
    off.hidden = !subscription;
    if (Notification.permission === "denied") {
      say("Notifications are blocked for this site in this browser's settings.");
    }
  }

  function failed(error) {
    say(error && error.message ? error.message : "Push notifications could not be turned on.");
    on.disabled = off.disabled = false;
  }

  ready.then(function (registration) { return registration.pushManager.getSubscription(); })
    .then(draw, failed);

  on.addEventListener("click", function () {
    on.disabled = true;
    say("Asking this browser…");
    Notification.requestPermission().then(function (permission) {
      if (permission !== "granted") throw new Error("Notifications are blocked for this site in this browser's settings.");
      return ready;
    }).then(function (registration) {
      var options = { userVisibleOnly: true, applicationServerKey: keyBytes(box.getAttribute("data-key")) };
      return registration.pushManager.subscribe(options).catch(function () {
        // Subscribed before for another key: start again.
        return registration.pushManager.getSubscription().then(function (old) {
          return old ? old.unsubscribe() : null;
        }).then(function () { return registration.pushManager.subscribe(options); });
      });
    }).then(function (subscription) {
      return post(box.getAttribute("data-subscribe"), subscription.toJSON());
    }).then(function () {
      location.reload(); // the list of devices and the choices, as the server now has them
    }, failed);
  });

  off.addEventListener("click", function () {
    off.disabled = true;
    ready.then(function (registration) { return registration.pushManager.getSubscription(); })
      .then(function (subscription) {
        if (!subscription) return null;
        var endpoint = subscription.endpoint;
        return subscription.unsubscribe().then(function () {
          return post(box.getAttribute("data-unsubscribe"), { endpoint: endpoint });
        });
      }).then(function () { location.reload(); }, failed);
  });
})();
