var init,
  COOKIE = document.body.getAttribute('data-session-state-cookie') || '';
function state() {
  var p = document.cookie.split(';');
  for (var i = 0; i < p.length; i++) {
    var c = p[i].trim();
    if (c.indexOf(COOKIE + '=') === 0) return c.substring(COOKIE.length + 1);
  }
  return '';
}
function check(clientId, origin, sessionState, done) {
  function compare() {
    if (clientId === init.clientId && origin === init.origin) {
      var s = state();
      if (!s) {
        done(sessionState !== '' ? 'changed' : 'unchanged');
      } else {
        done(s === sessionState ? 'unchanged' : 'changed');
      }
    } else {
      done('error');
    }
  }
  if (init) {
    compare();
    return;
  }
  var r = new XMLHttpRequest();
  r.open(
    'GET',
    location.href.split('?')[0] +
      '/init?client_id=' +
      encodeURIComponent(clientId) +
      '&origin=' +
      encodeURIComponent(origin),
    true
  );
  r.onreadystatechange = function () {
    if (r.readyState !== 4) return;
    if (r.status === 204 || r.status === 1223) {
      init = { clientId: clientId, origin: origin };
      compare();
    } else {
      done('error');
    }
  };
  r.send();
}
window.addEventListener(
  'message',
  function (e) {
    if (typeof e.data !== 'string') return;
    var d = e.data.split(' ');
    if (d.length !== 2) return;
    var o = e.origin;
    check(d[0], o, d[1], function (result) {
      e.source.postMessage(result, o);
    });
  },
  false
);
