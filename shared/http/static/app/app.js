// The scanid web app: sign up, approve or deny a scanned login, manage the identity.
// Markup is built with DOM calls and textContent only: nothing from the service or the
// person is ever parsed as HTML.
// Each screen is a module of its own (signup, home, keys, edit, rotate, delete, activity,
// approve, scan); this one picks the first screen from the URL.
import * as device from './device.js';
import { showHome } from './home.js';
import { showDeviceScan, showScan } from './scan.js';
import { showSignUp } from './signup.js';
import * as i18n from './i18n.js';
import { tellWorker } from './push.js';
import { message, show } from './ui.js';

async function start() {
  await i18n.load();
  if (!window.isSecureContext || !crypto.subtle || !window.indexedDB) {
    // WebCrypto and IndexedDB need https (or localhost): the device key cannot be made here.
    show(i18n.t('insecure-title'), message(i18n.t('insecure-text')));
    return;
  }
  if ('serviceWorker' in navigator) {
    navigator.serviceWorker
      .register(`${device.issuer}/app/sw.js`, { scope: `${device.issuer}/app/` })
      .catch(() => {});
    // The words of a notification, in this language, for the service worker to keep.
    tellWorker().catch(() => {});
  }
  const me = await device.load();
  const q = new URLSearchParams(location.search);
  const session = q.get('session');
  const challenge = q.get('challenge');
  const userCode = q.get('user_code');
  if (location.pathname.endsWith('/app/scan') && session && challenge) {
    // Read the code first: the scan is what the service accepts, and challenges rotate.
    await showScan(me, session, challenge);
  } else if (location.pathname.endsWith('/app/scan') && userCode) {
    await showDeviceScan(me, userCode);
  } else if (me) {
    // A notification opens the app at its request: `?request=id`.
    showHome(me, undefined, q.get('request') ?? undefined);
  } else {
    showSignUp((created) => showHome(created, i18n.t('welcome')));
  }
}

start().catch((e) => show(i18n.t('failed'), message(e.message)));
