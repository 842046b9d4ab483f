// The device: its P-256 key (WebCrypto, non-extractable, kept in IndexedDB) or its passkey
// (WebAuthn on the platform authenticator, user verification required: issue 26), the signed
// requests of the app protocol (compact JWS, ES256, or the same signed by a passkey's
// assertion, alg webauthn: docs/app-protocol.md §5) and the device API calls.

import * as i18n from './i18n.js';

const DB = 'scanid';
const STORE = 'device';
const SLOT = 'identity';

/** `{issuer}`: this page's origin and the path before `/app/`. */
export const issuer = (() => {
  const p = location.pathname;
  return location.origin + p.slice(0, p.lastIndexOf('/app/'));
})();

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function tx(mode, fn) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const t = db.transaction(STORE, mode);
      const req = fn(t.objectStore(STORE));
      t.oncomplete = () => resolve(req.result);
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error);
    });
  } finally {
    db.close();
  }
}

/** The identity on this device, `{ profile, privateKey }`, or `undefined`. */
export function load() {
  return tx('readonly', (s) => s.get(SLOT));
}

function save(record) {
  return tx('readwrite', (s) => s.put(record, SLOT));
}

/** Forgets the identity and its key. */
export function forget() {
  return tx('readwrite', (s) => s.delete(SLOT));
}

const enc = new TextEncoder();

function b64url(bytes) {
  let s = '';
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function b64(bytes) {
  let s = '';
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s);
}

/** A new device key pair; the private key can sign but never leaves WebCrypto. */
async function newKey() {
  const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
    'sign',
  ]);
  const spki = await crypto.subtle.exportKey('spki', pair.publicKey);
  return { privateKey: pair.privateKey, publicKey: b64(spki) };
}

/** A compact JWS of `claims` (plus aud, iat, exp, jti), typ `typ`, signed with `key`. */
async function sign(key, typ, claims) {
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(enc.encode(JSON.stringify({ alg: 'ES256', typ })));
  const body = { ...claims, aud: issuer, iat: now, exp: now + 120, jti: crypto.randomUUID() };
  const payload = b64url(enc.encode(JSON.stringify(body)));
  const input = `${header}.${payload}`;
  // WebCrypto's ECDSA signature is r || s, exactly what JWS ES256 wants.
  const sig = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key, enc.encode(input));
  return `${input}.${b64url(sig)}`;
}

function unb64url(s) {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** A single-use WebAuthn challenge from the service. */
async function serverChallenge() {
  return (await call('POST', '/app/passkey-challenges', {})).challenge;
}

/** Whether this browser can make a platform passkey with user verification. */
export async function canUsePasskeys() {
  try {
    return (
      !!window.PublicKeyCredential &&
      (await PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable())
    );
  } catch {
    return false;
  }
}

/** `H.P` of a passkey-signed request, and the WebAuthn challenge over it (SHA-256). */
async function passkeyInput(header, claims) {
  const now = Math.floor(Date.now() / 1000);
  const h = b64url(enc.encode(JSON.stringify(header)));
  const body = {
    ...claims,
    aud: issuer,
    iat: now,
    exp: now + 120,
    jti: crypto.randomUUID(),
    webauthn_challenge: claims.webauthn_challenge ?? (await serverChallenge()),
  };
  const p = b64url(enc.encode(JSON.stringify(body)));
  const challenge = new Uint8Array(await crypto.subtle.digest('SHA-256', enc.encode(`${h}.${p}`)));
  return { input: `${h}.${p}`, challenge };
}

/** `claims` signed by the passkey `credentialId`: the phone asks for the person's unlock. */
async function signWithPasskey(credentialId, typ, claims) {
  const { input, challenge } = await passkeyInput(
    { alg: 'webauthn', typ, kid: credentialId },
    claims,
  );
  const cred = await navigator.credentials.get({
    publicKey: {
      challenge,
      rpId: location.hostname,
      allowCredentials: [{ type: 'public-key', id: unb64url(credentialId) }],
      userVerification: 'required',
      timeout: 120000,
    },
  });
  const r = cred.response;
  const proof = {
    clientDataJSON: b64url(r.clientDataJSON),
    authenticatorData: b64url(r.authenticatorData),
    signature: b64url(r.signature),
  };
  return `${input}.${b64url(enc.encode(JSON.stringify(proof)))}`;
}

/** `claims` signed by this device's identity: its passkey when it has one, else its key. */
function signAs(me, typ, claims) {
  return me.passkey ? signWithPasskey(me.passkey, typ, claims) : sign(me.privateKey, typ, claims);
}

/** A new platform passkey (ES256, discoverable, user verification required) over `challenge`. */
async function createPasskey(challenge, user) {
  const cred = await navigator.credentials.create({
    publicKey: {
      challenge,
      rp: { id: location.hostname, name: 'scanid' },
      user: {
        id: crypto.getRandomValues(new Uint8Array(16)),
        name: user.name,
        displayName: user.displayName,
      },
      pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
      authenticatorSelection: {
        authenticatorAttachment: 'platform',
        residentKey: 'required',
        userVerification: 'required',
      },
      attestation: 'none',
      timeout: 120000,
    },
  });
  const r = cred.response;
  return {
    id: b64url(cred.rawId),
    fields: {
      clientDataJSON: b64url(r.clientDataJSON),
      attestationObject: b64url(r.attestationObject),
      transports: r.getTransports ? r.getTransports() : [],
    },
  };
}

/** An API error: the service's `error_description` (or status) as the message. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error_description ?? `the service answered ${status}`);
    this.status = status;
    this.code = body?.error;
  }
}

/** Calls the device API with extra `headers`; cookies are never sent, except where
 * `credentials` says so. */
async function call(method, path, body, headers = {}, credentials = 'omit') {
  let res;
  try {
    res = await fetch(`${issuer}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body ? JSON.stringify(body) : undefined,
      cache: 'no-store',
      credentials,
    });
  } catch {
    throw new ApiError(0, { error_description: i18n.t('offline') });
  }
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, json);
  return json;
}

/** Whether `name` is free: `true`, `false`, or an ApiError (a malformed name). */
export async function nameAvailable(name) {
  return (await call('GET', `/app/names/${encodeURIComponent(name)}`)).available;
}

/** Signs up with a new key (app protocol §1) and keeps the identity on this device. */
export async function signUp({ name, displayName, country }) {
  if (await canUsePasskeys()) {
    // The passkey's registration is made over the registration's own header and claims.
    const { input, challenge } = await passkeyInput(
      { alg: 'webauthn', typ: 'registration+jwt' },
      {
        name,
        display_name: displayName,
        country_code: country,
        passkey_name: i18n.t('passkey-name'),
      },
    );
    let made;
    try {
      made = await createPasskey(challenge, { name, displayName });
    } catch {
      made = null; // No passkey after all (refused, or none here): the device key, as before.
    }
    if (made) {
      const registration = `${input}.${b64url(enc.encode(JSON.stringify(made.fields)))}`;
      const profile = await call('POST', '/app/identities', { registration });
      await save({ profile, passkey: made.id });
      return profile;
    }
  }
  const key = await newKey();
  const registration = await sign(key.privateKey, 'registration+jwt', {
    name,
    display_name: displayName,
    country_code: country,
    public_key: key.publicKey,
  });
  const profile = await call('POST', '/app/identities', { registration });
  await save({ profile, privateKey: key.privateKey });
  return profile;
}

/** What a scanned QR asks (app protocol §3). With an identity on this device the scan proves
 * which identity scans (`Scanid-Proof`, a `scan+jwt`): a second phone then cancels the login. */
export async function scan(session, challenge, me) {
  const q = new URLSearchParams({ session, challenge });
  const headers = me?.privateKey
    ? {
        'scanid-proof': await sign(me.privateKey, 'scan+jwt', {
          sub: me.profile.sub,
          session,
          challenge,
        }),
      }
    : {};
  // With this browser's cookies: a login started here says its number (its page is gone).
  return call('GET', `/app/scan?${q}`, undefined, headers, 'same-origin');
}

/** What a device's code asks (RFC 8628 device grant): a login session scanned already, its
 * challenge, and the user code to compare with the device's screen. */
export function scanUserCode(userCode) {
  const q = new URLSearchParams({ user_code: userCode });
  return call('GET', `/app/scan?${q}`);
}

/** Approves or denies the QR login (app protocol §4): `approved` or `denied`. An approval
 * names the `number` the person picked (the one the login page shows). */
export async function decide(me, session, challenge, approve, number) {
  const approval = await signAs(me, 'approval+jwt', {
    sub: me.profile.sub,
    session,
    challenge,
    decision: approve ? 'approve' : 'deny',
    ...(approve && number !== undefined ? { number } : {}),
  });
  return (await call('POST', `/app/login-sessions/${encodeURIComponent(session)}`, { approval }))
    .status;
}

/** Changes the profile (`display_name`, `profile_photo`) with a signed PATCH. */
export async function update(me, changes) {
  const upd = await signAs(me, 'profile+jwt', { sub: me.profile.sub, ...changes });
  const profile = await call('PATCH', `/app/identities/${me.profile.sub}`, { update: upd });
  await save({ ...me, profile });
  return profile;
}

/**
 * Replaces the device key: the old key signs the new one, the new one proves possession.
 * With `endSessions`, every session and token of the identity ends too (sign out everywhere).
 */
export async function rotateKey(me, endSessions = false) {
  const next = await newKey();
  const proof = await sign(next.privateKey, 'key-proof+jwt', { sub: me.profile.sub });
  const claims = { sub: me.profile.sub, public_key: next.publicKey, proof };
  if (endSessions) claims.end_sessions = true;
  const rotation = await signAs(me, 'key-rotation+jwt', claims);
  const profile = await call('POST', `/app/identities/${me.profile.sub}/key`, { rotation });
  await save({ profile, privateKey: next.privateKey });
  return profile;
}

/** Deletes the identity at the service, then forgets it here. */
export async function deleteIdentity(me) {
  const deletion = await signAs(me, 'deletion+jwt', { sub: me.profile.sub });
  await call('DELETE', `/app/identities/${me.profile.sub}`, { deletion });
  await forget();
}

/** "This wasn't me" on recent login `id`: its tokens are revoked and its session ends. */
export async function reportLogin(me, id) {
  const report = await signAs(me, 'report+jwt', { sub: me.profile.sub, login: id });
  return call('POST', `/app/identities/${me.profile.sub}/logins/${encodeURIComponent(id)}/report`, {
    report,
  });
}

/**
 * "Sign out everywhere": every session and token of the identity ends (its clients are told by
 * back-channel logout), whatever its keys. Answers `{ status, sessions_ended }`.
 */
export async function signOutEverywhere(me) {
  const req = await signAs(me, 'sign-out+jwt', { sub: me.profile.sub });
  return call('POST', `/app/identities/${me.profile.sub}/sign-out`, { sign_out: req });
}

/** The identity's recent logins, newest first. */
export async function recentLogins(me) {
  const activity = await signAs(me, 'activity+jwt', { sub: me.profile.sub });
  return (await call('POST', `/app/identities/${me.profile.sub}/activity`, { activity })).logins;
}

/** The agents acting for the identity (token exchange): `[{ client_id, client_name, scopes,
 * resources, granted_at }]`. */
export async function delegations(me) {
  const req = await signAs(me, 'delegations+jwt', { sub: me.profile.sub });
  return (await call('POST', `/app/identities/${me.profile.sub}/delegations`, { delegations: req }))
    .delegations;
}

/** The backchannel requests (OpenID CIBA) waiting for the identity, oldest first: `[{ id,
 * client: { client_id, name, host, self_registered }, binding_message, scopes, requested_at,
 * expires_at, from: { ip, user_agent, agent } }]`. */
export async function backchannelRequests(me) {
  const requests = await signAs(me, 'backchannel+jwt', { sub: me.profile.sub });
  return (
    await call('POST', `/app/identities/${me.profile.sub}/backchannel-requests`, { requests })
  ).requests;
}

/** Opens waiting request `id`: a scan answer (session, challenge, client, scopes, where from,
 * binding_message) to decide like a scanned login. */
export async function openBackchannel(me, id) {
  const open = await signAs(me, 'backchannel-open+jwt', { sub: me.profile.sub, request: id });
  return call('POST', `/app/identities/${me.profile.sub}/backchannel-requests/open`, { open });
}

/** Registers this browser's push subscription (`PushSubscription.toJSON()`) for the identity
 * (app protocol §7): a new waiting request is pushed to it. */
export async function subscribePush(me, subscription) {
  const subscribe = await signAs(me, 'push-subscribe+jwt', {
    sub: me.profile.sub,
    kind: 'webpush',
    endpoint: subscription.endpoint,
    keys: { p256dh: subscription.keys.p256dh, auth: subscription.keys.auth },
  });
  return call('POST', `/app/identities/${me.profile.sub}/push-subscriptions`, { subscribe });
}

/** Withdraws the push subscription at `endpoint`: nothing is pushed to it any more. */
export async function withdrawPush(me, endpoint) {
  const withdraw = await signAs(me, 'push-withdraw+jwt', { sub: me.profile.sub, endpoint });
  return call('POST', `/app/identities/${me.profile.sub}/push-subscriptions/withdraw`, {
    withdraw,
  });
}

/** Withdraws the delegation to agent `clientId`: its exchanged tokens stop working at once. */
export async function withdrawDelegation(me, clientId) {
  const withdraw = await signAs(me, 'withdraw+jwt', { sub: me.profile.sub, client_id: clientId });
  return call('POST', `/app/identities/${me.profile.sub}/delegations/withdraw`, { withdraw });
}

/** Uploads a photo (JPEG, PNG or WebP, at most 1 MB) and makes it the profile photo. */
export async function uploadPhoto(me, file) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const digest = b64url(await crypto.subtle.digest('SHA-256', bytes));
  const upload = await signAs(me, 'photo+jwt', { sub: me.profile.sub, sha256: digest });
  const profile = await call('POST', `/app/identities/${me.profile.sub}/photo`, {
    upload,
    image: b64(bytes),
  });
  await save({ ...me, profile });
  return profile;
}

/** The identity's keys: `{ device_key, passkeys: [{ credential_id, name, last_used_at, last_used_from, ... }] }`. */
export async function keys(me) {
  const req = await signAs(me, 'keys+jwt', { sub: me.profile.sub });
  return call('POST', `/app/identities/${me.profile.sub}/keys`, { keys: req });
}

/**
 * Adds a passkey on this phone, signed by the identity's current key or passkey. An upgrade
 * (`retire: true`) retires the device key: from then on every request asks for the passkey.
 */
export async function addPasskey(me, { retire = false, name = i18n.t('passkey-name') } = {}) {
  const challenge = await serverChallenge();
  const made = await createPasskey(enc.encode(challenge), {
    name: me.profile.name,
    displayName: me.profile.display_name,
  });
  const claims = {
    sub: me.profile.sub,
    webauthn_challenge: challenge,
    credential: made.fields,
    name,
  };
  if (retire) claims.retire_device_key = true;
  const req = await signAs(me, 'passkey+jwt', claims);
  const added = await call('POST', `/app/identities/${me.profile.sub}/passkeys`, { passkey: req });
  if (retire || !me.passkey) await save({ profile: me.profile, passkey: made.id });
  return added;
}

/** Removes key `keyId` (a credential id, or `device`): never the last (409 last_key). */
export async function removeKey(me, keyId) {
  const removal = await signAs(me, 'key-removal+jwt', { sub: me.profile.sub, key: keyId });
  return call('DELETE', `/app/identities/${me.profile.sub}/keys/${encodeURIComponent(keyId)}`, {
    removal,
  });
}

/** Signs with passkey `credentialId` from now on (another of this identity's passkeys). */
export async function usePasskey(me, credentialId) {
  await save({ profile: me.profile, passkey: credentialId });
  return load();
}
