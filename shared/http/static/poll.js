(function () {
  // The login page's poll: asks for the status as often as the last answer says (poll_ms: every
  // 3 s until the app scans, then every second; pick_ms once it first shows the number, which the
  // person reads here and picks on the phone; 0 where the server holds each poll until the login
  // changes, `scanid serve` on its embedded store), one request at a time, never while the page is
  // hidden (no one can scan a hidden code), and at once when it shows again. Only a 404 (the
  // login is gone or not this browser's) ends it; a 429 or 5xx (throttling, an outage) is
  // retried after its Retry-After, or with a growing delay.
  // The QR code changes every second: each answer (and the page itself, in #qr-ahead) carries
  // the codes of the next seconds, each with the time it is to be shown, and the page draws
  // them on its own clock, corrected by the server's time. Each poll says which codes the page
  // has (`after`: the second of its last one), and the answer carries only the ones after it,
  // which the page adds to those it has. Once the app has scanned, the page shows the number to
  // pick in the app instead of the code.
  // The page leaves once: the passkey button (static/passkey.js) may learn of the same approval
  // first, and a second navigation would abort the first. Whichever script leaves marks <html>
  // data-leaving, and the other then stays put.
  var root = document.documentElement;
  function leave(url) {
    if (!root.hasAttribute('data-leaving')) {
      root.setAttribute('data-leaving', '');
      window.location.assign(url);
    }
  }
  // The page's words, in its language (the #text data block the server fills from its
  // catalogue).
  var text = Object.create(null);
  try {
    text = JSON.parse(document.getElementById('text').textContent);
  } catch (e) {
    text = Object.create(null);
  }
  function t(id) {
    return text[id] || id;
  }
  var link = document.getElementById('app-link'),
    qr = document.getElementById('qr'),
    state = document.getElementById('state');
  var numberEl = document.getElementById('number'),
    aheadEl = document.getElementById('qr-ahead');
  var statusUrl = state.getAttribute('data-status-url');
  var next = parseInt(state.getAttribute('data-poll-ms'), 10);
  if (isNaN(next)) {
    next = 2000;
  }
  var timer = null,
    busy = false,
    done = false,
    backoff = 2000;
  var codes = [],
    offset = 0,
    ticker = null,
    have = 0;
  function learn(a) {
    if (!a || !a.challenges) {
      return;
    }
    if (a.server_time) {
      var t = Date.parse(a.server_time);
      if (!isNaN(t)) {
        offset = t - Date.now();
      }
    }
    var got = a.challenges.map(function (c) {
      return { at: Date.parse(c.at), link: c.app_link, svg: c.qr_svg };
    });
    var from = got.length ? got[0].at : Infinity,
      now = Date.now() + offset,
      cur = 0;
    codes = codes
      .filter(function (c) {
        return c.at < from;
      })
      .concat(got);
    codes.forEach(function (c, i) {
      if (c.at <= now) {
        cur = i;
      }
    });
    codes = codes.slice(cur);
    if (codes.length) {
      have = Math.max(have, Math.floor(codes[codes.length - 1].at / 1000));
    }
  }
  function draw(payload, svg) {
    if (payload && payload !== link.getAttribute('data-qr-payload')) {
      link.setAttribute('href', payload);
      link.setAttribute('data-qr-payload', payload);
      qr.innerHTML = svg;
      qr.setAttribute('aria-label', t('qr-alt').replace('{link}', payload));
    }
  }
  function tick() {
    ticker = null;
    if (done || document.hidden || !codes.length) {
      return;
    }
    var now = Date.now() + offset,
      show = null;
    codes.forEach(function (c) {
      if (c.at <= now) {
        show = c;
      }
    });
    if (show) {
      draw(show.link, show.svg);
    }
    ticker = setTimeout(tick, 1000 - (now % 1000) + 20);
  }
  function stopTicks() {
    clearTimeout(ticker);
    ticker = null;
  }
  try {
    learn(JSON.parse(aheadEl.textContent));
  } catch (e) {
    codes = [];
  }
  function later(ms) {
    clearTimeout(timer);
    timer = null;
    if (!done && !document.hidden) {
      // (A held poll's answer says 0; a short pause keeps a server that answers at once from
      // being asked in a loop.)
      timer = setTimeout(poll, Math.max(ms, 200));
    }
  }
  function retry(r) {
    var s = r && parseInt(r.headers.get('Retry-After'), 10);
    var ms = s > 0 ? s * 1000 : backoff;
    backoff = Math.min(backoff * 2, 30000);
    later(ms);
  }
  function showNumber(n) {
    stopTicks();
    codes = [];
    qr.innerHTML = '';
    qr.removeAttribute('role');
    qr.removeAttribute('aria-label');
    link.removeAttribute('href');
    // The phone has scanned: "Open the scanid app" has nothing left to do.
    document.getElementById('applink').hidden = true;
    numberEl.hidden = false;
    numberEl.textContent = t('qr-pick').replace('{n}', String(n));
    state.textContent = t('qr-scanned-pick');
  }
  var why = {
    wrong_number: t('qr-wrong-number'),
    second_device: t('qr-second-device'),
  };
  function poll() {
    timer = null;
    if (busy || done) {
      return;
    }
    busy = true;
    // `seen`: what the page shows. A server that can hold the poll answers when that changes
    // (the phone scanned, or decided) and says poll_ms 0: ask again at once.
    var url = statusUrl + '&seen=' + (numberEl.hidden ? 'code' : 'number');
    fetch(have ? url + '&after=' + have : url, {
      credentials: 'same-origin',
      headers: { Accept: 'application/json' },
      cache: 'no-store',
    })
      .then(function (r) {
        if (r.status === 404 || r.status === 410) {
          return { gone: true };
        }
        if (!r.ok) {
          return { retry: r };
        }
        return r.json();
      })
      .then(function (s) {
        busy = false;
        if (done || root.hasAttribute('data-leaving')) {
          return;
        }
        if (s.retry) {
          retry(s.retry);
          return;
        }
        backoff = 2000;
        if (s.gone) {
          done = true;
          stopTicks();
          state.textContent = t('qr-gone');
          return;
        }
        if (s.status === 'pending') {
          var first = false;
          if (typeof s.number === 'number') {
            first = numberEl.hidden;
            showNumber(s.number);
          } else {
            if (s.challenges) {
              learn(s);
            } else if (s.qr_svg) {
              draw(s.app_link, s.qr_svg);
            }
            if (!ticker) {
              tick();
            }
            if (s.scanned) {
              state.textContent = t('qr-scanned');
            }
          }
          next = typeof s.poll_ms === 'number' ? s.poll_ms : next;
          later(first && typeof s.pick_ms === 'number' ? s.pick_ms : next);
          return;
        }
        done = true;
        clearTimeout(timer);
        stopTicks();
        if (s.status === 'expired') {
          qr.innerHTML = '';
          state.textContent = t('qr-expired') + ' ';
          var a = document.createElement('a');
          a.href = s.restart;
          a.id = 'restart';
          a.textContent = t('qr-restart');
          state.appendChild(a);
          return;
        }
        if (s.reason && why[s.reason]) {
          qr.innerHTML = '';
          numberEl.hidden = true;
          state.className = 'error';
          state.setAttribute('data-reason', s.reason);
          state.textContent = why[s.reason];
          if (s.next) {
            setTimeout(function () {
              leave(s.next);
            }, 5000);
          }
          return;
        }
        if (s.next) {
          state.textContent = s.status === 'denied' ? t('qr-denied') : t('qr-approved');
          leave(s.next);
        }
      })
      .catch(function () {
        busy = false;
        retry(null);
      });
  }
  document.addEventListener('visibilitychange', function () {
    if (document.hidden) {
      clearTimeout(timer);
      timer = null;
      stopTicks();
    } else {
      if (!ticker) {
        tick();
      }
      if (!timer && !busy && !done) {
        poll();
      }
    }
  });
  tick();
  later(next);
})();
