// The web app's service worker: keeps the app's own files so the app opens offline to its
// shell. The device API is never cached: requests for JSON, and anything not a GET, always
// go to the network. It also shows the pushes the service sends (docs/app-protocol.md §7):
// each says only that a request is waiting, so the notification says nothing personal.
const CACHE = 'scanid-app-v5';
const base = new URL('./', self.location).pathname;
// The shell, its modules (the list in shared/http/src/handlers/app.rs, held to this one by a
// test there), its stylesheet, manifest and icon.
const MODULES = [
  'app.js',
  'device.js',
  'ui.js',
  'i18n.js',
  'signup.js',
  'home.js',
  'keys.js',
  'edit.js',
  'rotate.js',
  'signout.js',
  'delete.js',
  'activity.js',
  'agents.js',
  'waiting.js',
  'push.js',
  'where.js',
  'decision.js',
  'approve.js',
  'scan.js',
];
const SHELL = ['', ...MODULES, 'app.css', 'manifest.webmanifest', 'icon.svg'].map((f) => base + f);

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((c) => c.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== self.location.origin || !url.pathname.startsWith(base))
    return;
  if ((req.headers.get('accept') ?? '').includes('application/json')) return;
  // Pages (the shell at app/ and at the QR's link app/scan?...): the network first, so a scan
  // reaches the service; offline, the cached shell.
  if (req.mode === 'navigate') {
    event.respondWith(fetch(req).catch(() => caches.match(base)));
    return;
  }
  const file = url.pathname.slice(base.length);
  if (file.startsWith('messages-')) {
    // A language's messages, named by their content: the cache first, kept for offline.
    event.respondWith(
      caches.match(url.pathname).then(
        (hit) =>
          hit ??
          fetch(req).then((res) => {
            if (res.ok) {
              const copy = res.clone();
              caches.open(CACHE).then((c) => c.put(url.pathname, copy));
            }
            return res;
          }),
      ),
    );
    return;
  }
  if (SHELL.includes(url.pathname) || file.startsWith('manifest-')) {
    // The app's files: the network (revalidated), falling back to the cache; the cache is
    // refreshed with what the network said.
    event.respondWith(
      fetch(req)
        .then((res) => {
          if (res.ok) {
            const copy = res.clone();
            caches.open(CACHE).then((c) => c.put(url.pathname, copy));
          }
          return res;
        })
        .catch(() => caches.match(url.pathname)),
    );
  }
});

// The words of a notification, in the person's language: the page hands them over each time
// it opens (push.js), and they are kept in the cache for the pushes that come while no page
// is open. Until then, English.
const WORDS = `${base}notification-words`;
const ENGLISH = {
  lang: 'en',
  dir: 'ltr',
  title: 'A request is waiting for you',
  body: 'Open scanid to see who is asking, then approve or deny.',
};

self.addEventListener('message', (event) => {
  const d = event.data;
  if (event.origin !== self.location.origin || d?.type !== 'words') return;
  const words = {
    lang: String(d.lang),
    dir: d.dir === 'rtl' ? 'rtl' : 'ltr',
    title: String(d.title),
    body: String(d.body),
  };
  event.waitUntil(
    caches.open(CACHE).then((c) => c.put(WORDS, new Response(JSON.stringify(words)))),
  );
});

async function words() {
  try {
    const hit = await caches.match(WORDS);
    return hit ? { ...ENGLISH, ...(await hit.json()) } : ENGLISH;
  } catch {
    return ENGLISH;
  }
}

// A push: `{kind: "ciba", request: id}` (decrypted by the browser). Every push shows a
// notification (the subscription is userVisibleOnly); tapping it opens the app at the request.
self.addEventListener('push', (event) => {
  let msg;
  try {
    msg = event.data?.json() ?? {};
  } catch {
    msg = {}; // Not JSON: still a notification, with no request to open.
  }
  const request = msg.kind === 'ciba' && typeof msg.request === 'string' ? msg.request : null;
  event.waitUntil(
    words().then((w) =>
      self.registration.showNotification(w.title, {
        body: w.body,
        lang: w.lang,
        dir: w.dir,
        icon: `${base}icon.svg`,
        tag: request ? `ciba-${request}` : 'scanid',
        data: {
          kind: 'ciba',
          request,
          url: request ? `${base}?request=${encodeURIComponent(request)}` : base,
        },
      }),
    ),
  );
});

// A tap on the notification: the app's window, focused at the request, or a new one.
self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url ?? base, self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then(async (list) => {
      const open = list.find((c) => new URL(c.url).pathname.startsWith(base));
      if (open) {
        const focused = await open.focus().catch(() => open);
        const moved = await focused.navigate?.(url).catch(() => null);
        if (moved) return moved;
      }
      return self.clients.openWindow(url);
    }),
  );
});
