// The web app's service worker: keeps the app's own files so the app opens offline to its
// shell. The device API is never cached: requests for JSON, and anything not a GET, always
// go to the network.
const CACHE = 'scanid-app-v4';
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
