// Reading a scanned code (a login's QR or a device's user code), then the approval screen.
import * as device from './device.js';
import { showRequest } from './approve.js';
import { showHome } from './home.js';
import { showSignUp } from './signup.js';
import { t } from './i18n.js';
import { h, message, show } from './ui.js';

export async function showScan(me, session, challenge, info) {
  if (!info) {
    show(t('scan-reading'));
    try {
      info = await device.scan(session, challenge, me);
    } catch (e) {
      const cancelled = e.code === 'login_cancelled';
      show(
        t(cancelled ? 'cancelled-title' : 'scan-expired'),
        message(e.status === 404 ? t('scan-gone') : e.message),
        me ? h('button', { type: 'button', onclick: () => showHome(me) }, t('go-home')) : null,
      );
      return;
    }
  }
  if (!me) {
    showSignUp(
      (created) => showRequest(created, session, challenge, info),
      t('scan-new', { client: info.client.name }),
    );
    return;
  }
  showRequest(me, session, challenge, info);
}

/** A device's code (RFC 8628): the service answers a login session to decide as any other. */
export async function showDeviceScan(me, userCode) {
  show(t('scan-reading'));
  let info;
  try {
    info = await device.scanUserCode(userCode);
  } catch (e) {
    show(
      t('code-not-waiting'),
      message(e.status === 404 ? t('code-invalid') : e.message),
      me ? h('button', { type: 'button', onclick: () => showHome(me) }, t('go-home')) : null,
    );
    return;
  }
  await showScan(me, info.session, info.challenge, info);
}
