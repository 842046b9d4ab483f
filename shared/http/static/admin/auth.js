// The console's login: a public client of its own realm (PKCE S256), a fresh scan each time
// (`prompt=login`, `max_age=0`). The code verifier waits in sessionStorage for the redirect
// back (then is removed); the access token lives in this module's memory only.

const meta = (n) => document.querySelector(`meta[name="scanid-${n}"]`)?.content ?? '';
export const config = {
  realm: meta('realm'),
  issuer: meta('issuer'),
  clientId: meta('client-id'),
  redirectUri: meta('redirect-uri'),
  base: meta('base'),
};
const PENDING = 'scanid-console-login';
let token = null;

function b64url(bytes) {
  let s = '';
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function random() {
  return b64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** Sends the browser to the authorization endpoint (the QR page). */
export async function login() {
  const verifier = random();
  const state = random();
  const challenge = b64url(
    await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)),
  );
  sessionStorage.setItem(PENDING, JSON.stringify({ state, verifier }));
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    scope: 'openid profile',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    prompt: 'login',
    max_age: '0',
  });
  location.assign(`${config.issuer}/protocol/openid-connect/auth?${q}`);
}

/** After the redirect back: exchanges the code. Resolves to `null` (no login under way),
 * `{ token }` or `{ error }`. */
export async function finishLogin() {
  const q = new URLSearchParams(location.search);
  if (!q.has('code') && !q.has('error')) return null;
  history.replaceState(null, '', config.redirectUri);
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null');
  sessionStorage.removeItem(PENDING);
  if (q.has('error')) return { error: q.get('error_description') ?? q.get('error') };
  if (!pending || pending.state !== q.get('state'))
    return { error: 'the login answer does not match the request' };
  const res = await fetch(`${config.issuer}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: q.get('code'),
      redirect_uri: config.redirectUri,
      client_id: config.clientId,
      code_verifier: pending.verifier,
    }),
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok || !body.access_token)
    return { error: body.error_description ?? `token endpoint: HTTP ${res.status}` };
  token = {
    access: body.access_token,
    id: body.id_token,
    expires: Date.now() + body.expires_in * 1000,
  };
  return { token };
}

/** The access token, while it lasts. */
export function accessToken() {
  return token && Date.now() < token.expires ? token.access : null;
}

/** Who logged in, from the access token's claims (shown, never trusted). */
export function whoAmI() {
  try {
    const part = token.access.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(atob(part)).preferred_username ?? '';
  } catch {
    return '';
  }
}

/** Forgets the token and ends the scanid session (RP-initiated logout). */
export function logout() {
  const q = new URLSearchParams({
    client_id: config.clientId,
    post_logout_redirect_uri: config.redirectUri,
  });
  if (token?.id) q.set('id_token_hint', token.id);
  token = null;
  location.assign(`${config.issuer}/protocol/openid-connect/logout?${q}`);
}
