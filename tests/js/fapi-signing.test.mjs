// PS256 and EdDSA (Ed25519) signing keys, and FAPI 2.0 clients that use them, from outside: the
// operator adds the keys through the admin API (`POST .../keys/rotate?alg=...&force=true`, twice
// each), discovery then lists them, dynamic registration (RFC 7591) accepts
// `id_token_signed_response_alg: EdDSA` only once a key exists, and openid-client (certified for
// FAPI 2.0) logs in through a real QR login with private_key_jwt, PAR and PKCE for a client
// held to the FAPI 2.0 profile (`--profile fapi2 --token-alg PS256|EdDSA`). jose verifies the
// id_token and the access token with the JWKS alone, with only the expected algorithm allowed;
// the refresh token does not rotate.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import * as oidc from 'openid-client';
import {
  createRemoteJWKSet,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  jwtVerify,
} from 'jose';
import { startServer, startCallback, launchBrowser, cli, enroll, qrLogin } from './helpers.mjs';

let server, rp, browser, dave, privateKey, adminToken;

before(async () => {
  server = await startServer(['--auth-failure-rate-per-minute', '1000']);
  rp = await startCallback();
  browser = await launchBrowser();
  const ops = await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    'Ops',
    '--client-id',
    'ops',
    '--client-credentials',
    '--admin-role',
    'realm-admin',
  ]);
  const r = await fetch(`${server.issuer}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`ops:${ops.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  assert.equal(r.status, 200);
  adminToken = (await r.json()).access_token;
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'rp-1', use: 'sig', alg: 'ES256' };
  writeFileSync(path.join(server.dataDir, 'rp-jwks.json'), JSON.stringify({ keys: [jwk] }));
  dave = await enroll(server, 'dave');
});

after(async () => {
  await browser?.close();
  await rp?.close();
  await server?.stop();
});

async function rotate(alg) {
  const r = await fetch(`${server.base}/admin/realms/scanid/keys/rotate?alg=${alg}&force=true`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}` },
  });
  assert.equal(r.status, 200, await r.clone().text());
  return r.json();
}

async function register(alg) {
  const { initial_access_token: iat } = await cli([
    'client',
    'registration-token',
    'create',
    '--data-dir',
    server.dataDir,
    '--expires-in',
    '600',
    '--uses',
    '1',
  ]);
  return fetch(`${server.issuer}/clients-registrations/openid-connect`, {
    method: 'POST',
    headers: { authorization: `Bearer ${iat}`, 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [rp.url], id_token_signed_response_alg: alg }),
  });
}

/** Logs dave in through the QR login; resolves to the callback URL the RP received. */
const browserLogin = (url) => qrLogin(browser, server, dave, rp.url, url);

test('PS256 and EdDSA keys through the admin API; discovery and registration follow them', async () => {
  const before = await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json();
  assert.deepEqual(before.id_token_signing_alg_values_supported, ['ES256', 'RS256']);
  const refused = await register('EdDSA');
  assert.equal(refused.status, 400);
  assert.equal((await refused.json()).error, 'invalid_client_metadata');

  for (const alg of ['PS256', 'EdDSA']) {
    assert.equal((await rotate(alg)).step, 'published');
    assert.equal((await rotate(alg)).step, 'activated');
  }
  const meta = await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json();
  assert.deepEqual(meta.id_token_signing_alg_values_supported, [
    'ES256',
    'EdDSA',
    'PS256',
    'RS256',
  ]);
  const jwks = await (await fetch(meta.jwks_uri)).json();
  const ed = jwks.keys.find((k) => k.alg === 'EdDSA');
  assert.equal(ed.kty, 'OKP');
  assert.equal(ed.crv, 'Ed25519');
  assert.equal(ed.d, undefined, 'public members only');
  assert.ok(jwks.keys.some((k) => k.alg === 'PS256' && k.kty === 'RSA'));
  const accepted = await register('EdDSA');
  assert.equal(accepted.status, 201, await accepted.clone().text());
  assert.equal((await accepted.json()).id_token_signed_response_alg, 'EdDSA');
});

for (const alg of ['PS256', 'EdDSA']) {
  test(`openid-client: a FAPI 2.0 client's ${alg} tokens from a pushed QR login; jose verifies them`, async () => {
    const clientId = `fapi-${alg.toLowerCase()}`;
    await cli([
      'client',
      'create',
      '--data-dir',
      server.dataDir,
      '--name',
      `FAPI ${alg}`,
      '--client-id',
      clientId,
      '--redirect-uri',
      rp.url,
      '--jwks',
      path.join(server.dataDir, 'rp-jwks.json'),
      '--profile',
      'fapi2',
      '--token-alg',
      alg,
    ]);
    const config = await oidc.discovery(
      new URL(server.issuer),
      clientId,
      { id_token_signed_response_alg: alg },
      oidc.PrivateKeyJwt({ key: privateKey, kid: 'rp-1' }),
      { execute: [oidc.allowInsecureRequests] },
    );
    // The profile's access tokens are DPoP-bound (FAPI 2.0 §5.3.2.1).
    const DPoP = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = await oidc.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: rp.url,
      scope: 'openid profile',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const tokens = await oidc.authorizationCodeGrant(
      config,
      await browserLogin(url),
      {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
        idTokenExpected: true,
      },
      undefined,
      { DPoP },
    );
    assert.equal(tokens.token_type.toLowerCase(), 'dpop');
    const keys = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri));
    const id = await jwtVerify(tokens.id_token, keys, {
      issuer: server.issuer,
      audience: clientId,
      algorithms: [alg],
    });
    assert.equal(id.protectedHeader.alg, alg);
    assert.equal(id.payload.nonce, nonce);
    const at = await jwtVerify(tokens.access_token, keys, {
      issuer: server.issuer,
      algorithms: [alg],
    });
    assert.equal(at.payload.azp, clientId);
    // An RS256-only verifier refuses it: the algorithm is the one asked for, not RS256.
    await assert.rejects(jwtVerify(tokens.id_token, keys, { algorithms: ['RS256'] }));

    // No rotation: the same refresh token back, new tokens signed alike.
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token, undefined, {
      DPoP,
    });
    assert.equal(refreshed.refresh_token, tokens.refresh_token);
    assert.equal(decodeProtectedHeader(refreshed.id_token).alg, alg);
    const again = await oidc.refreshTokenGrant(config, tokens.refresh_token, undefined, { DPoP });
    assert.equal(again.claims().sub, id.payload.sub);
  });
}
