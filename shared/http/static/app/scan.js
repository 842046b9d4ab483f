// Reading a scanned code (a login's QR or a device's user code), then the approval screen.
import * as device from './device.js';
import { showRequest } from './approve.js';
import { showHome } from './home.js';
import { showSignUp } from './signup.js';
import { h, message, show } from './ui.js';

export async function showScan(me, session, challenge, info) {
  if (!info) {
    show('Reading the code…');
    try {
      info = await device.scan(session, challenge, me);
    } catch (e) {
      show(
        e.code === 'login_cancelled' ? 'Login cancelled' : 'This code has expired',
        message(
          e.status === 404
            ? 'The login is no longer waiting, or the code was old. Scan the code on the login page again.'
            : e.message,
        ),
        me ? h('button', { type: 'button', onclick: () => showHome(me) }, 'Go to my scanid') : null,
      );
      return;
    }
  }
  if (!me) {
    showSignUp(
      (created) => showRequest(created, session, challenge, info),
      `${info.client.name} asks you to log in with scanid. You have no scanid on this phone yet: create one, then approve.`,
    );
    return;
  }
  showRequest(me, session, challenge, info);
}

/** A device's code (RFC 8628): the service answers a login session to decide as any other. */
export async function showDeviceScan(me, userCode) {
  show('Reading the code…');
  let info;
  try {
    info = await device.scanUserCode(userCode);
  } catch (e) {
    show(
      'This code is not waiting',
      message(
        e.status === 404
          ? 'The code is not valid, has expired or was used. Start again on the device.'
          : e.message,
      ),
      me ? h('button', { type: 'button', onclick: () => showHome(me) }, 'Go to my scanid') : null,
    );
    return;
  }
  await showScan(me, info.session, info.challenge, info);
}
