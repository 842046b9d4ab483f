(function () {
  // "Sign in with a passkey" on the login page (issue 26): the browser's own WebAuthn flow with
  // a discoverable credential (no user name to type, so a button, not conditional mediation).
  // The server hands out a challenge made for this login (bound to it and to this browser's
  // login cookie), the browser asks the platform authenticator (or, on a computer, offers the
  // phone over FIDO's hybrid transport), and the assertion goes back; then the page goes on to
  // the consent step as after an approval on the phone. Without JavaScript or WebAuthn the
  // button stays hidden: the QR code still works.
  var btn = document.getElementById('passkey'),
    msg = document.getElementById('passkey-state');
  if (!btn || !window.PublicKeyCredential || !navigator.credentials) {
    return;
  }
  var text = Object.create(null);
  try {
    text = JSON.parse(document.getElementById('text').textContent);
  } catch (e) {
    text = Object.create(null);
  }
  function t(id) {
    return text[id] || id;
  }
  var url = btn.getAttribute('data-passkey-url');
  if (!url) {
    return;
  }
  function b64u(buf) {
    var s = '',
      b = new Uint8Array(buf);
    for (var i = 0; i < b.length; i++) {
      s += String.fromCharCode(b[i]);
    }
    return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function unb64u(s) {
    var t = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
    var b = new Uint8Array(t.length);
    for (var i = 0; i < t.length; i++) {
      b[i] = t.charCodeAt(i);
    }
    return b;
  }
  function post(body) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
    }).then(function (r) {
      return r.json().then(function (j) {
        if (!r.ok) {
          throw new Error(j.error_description || j.error || 'refused');
        }
        return j;
      });
    });
  }
  function say(t, err) {
    msg.textContent = t;
    msg.className = err ? 'error' : 'muted';
  }
  btn.hidden = false;
  btn.addEventListener('click', function () {
    btn.disabled = true;
    say(t('passkey-waiting'));
    post({ assertion: null })
      .then(function (o) {
        var pk = o.publicKey;
        return navigator.credentials.get({
          publicKey: {
            challenge: unb64u(pk.challenge),
            rpId: pk.rpId,
            timeout: pk.timeout,
            userVerification: pk.userVerification,
            allowCredentials: [],
          },
        });
      })
      .then(function (c) {
        if (!c) {
          throw new Error('no passkey was chosen');
        }
        return post({
          assertion: {
            id: b64u(c.rawId),
            authenticator_data: b64u(c.response.authenticatorData),
            client_data_json: b64u(c.response.clientDataJSON),
            signature: b64u(c.response.signature),
          },
        });
      })
      .then(function (r) {
        say(t('passkey-signed-in'));
        // Once, like static/poll.js, which may have seen the approval first.
        var root = document.documentElement;
        if (!root.hasAttribute('data-leaving')) {
          root.setAttribute('data-leaving', '');
          window.location.assign(r.next);
        }
      })
      .catch(function (e) {
        btn.disabled = false;
        say(
          t('passkey-failed').replace(
            '{reason}',
            e && e.message ? e.message : t('passkey-cancelled')
          ),
          true
        );
      });
  });
})();
