if (document.cookie.indexOf('KEYCLOAK_3P_COOKIE') !== -1) {
  document.cookie = 'KEYCLOAK_3P_COOKIE_SAMESITE=; Max-Age=0; SameSite=None; Secure';
  document.cookie = 'KEYCLOAK_3P_COOKIE=; Max-Age=0';
  window.parent.postMessage('supported', '*');
} else {
  window.parent.postMessage('unsupported', '*');
}
