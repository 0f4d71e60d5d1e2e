// bitsite's service worker, served at /sw.js (people/views.py) so that its scope is the
// whole site: it shows each notification pushed to this browser (people/push.py sends
// {"title", "body", "url", "tag"}) and, when it is clicked, opens or focuses its page.
"use strict";

self.addEventListener("push", function (event) {
  var data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (e) {
    data = {};
  }
  var options = { body: data.body || "", data: { url: data.url || "/" } };
  if (data.tag) options.tag = data.tag; // a newer notice about the same thing replaces it
  event.waitUntil(self.registration.showNotification(data.title || "bitsite", options));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var wanted = new URL((event.notification.data && event.notification.data.url) || "/", self.location.origin);
  if (wanted.origin !== self.location.origin) wanted = new URL("/", self.location.origin); // this site's pages only
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (windows) {
      for (var i = 0; i < windows.length; i++) {
        if (windows[i].url === wanted.href && "focus" in windows[i]) return windows[i].focus();
      }
      return self.clients.openWindow(wanted.href);
    })
  );
});
