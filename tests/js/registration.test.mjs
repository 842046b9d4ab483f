// Dynamic client registration with a library nobody here wrote: openid-client discovers scanid
// through RFC 8414 Authorization Server Metadata (the path-inserted
// /.well-known/oauth-authorization-server/realms/{realm}), registers a client (RFC 7591) with
// the operator's initial access token, and logs a person in with it: the code flow with PKCE,
// the login page in Chromium, approved with the reference app. Then RFC 7592: the client reads
// and deletes its registration. On the embedded store, and on DynamoDB when the test command
// started the emulator (SCANID_TEST_AWS_ENDPOINT, as tests/run does).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { startServer, startCallback, launchBrowser, cli, enroll, qrLogin } from './helpers.mjs';

const emulator = process.env.SCANID_TEST_AWS_ENDPOINT;
if (emulator) {
  // For the child processes (the server and the CLI), as tests/src/lib.rs's aws_env().
  Object.assign(process.env, {
    AWS_ENDPOINT_URL: emulator,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_EC2_METADATA_DISABLED: 'true',
  });
}

/** The flags that select a fresh DynamoDB table and its KMS key in the emulator. */
async function dynamoFlags() {
  const table = `scanid-js-${Math.random().toString(36).slice(2)}`;
  const out = await cli([
    'aws',
    'init',
    '--table',
    table,
    '--signing',
    'kms-envelope',
    '--create-kms-key',
  ]);
  return ['--table', table, '--signing', 'kms-envelope', '--kms-key-id', out.kms_key_id];
}

let server, rp, browser, carol, storeFlags;

before(async () => {
  rp = await startCallback();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await rp?.close();
});

/** An initial access token from the operator's CLI. */
async function initialAccessToken(uses) {
  const out = await cli([
    'client',
    'registration-token',
    'create',
    '--data-dir',
    server.dataDir,
    '--expires-in',
    '600',
    '--uses',
    String(uses),
    ...storeFlags,
  ]);
  assert.equal(out.uses, uses);
  return out.initial_access_token;
}

/** Logs carol in through the QR login; resolves to the callback URL the RP received. */
const browserLogin = (url) => qrLogin(browser, server, carol, rp.url, url);

/** The code flow with PKCE for `config`: the validated token response. */
async function codeFlow(config) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: rp.url,
    scope: 'openid profile',
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const callback = await browserLogin(url);
  return oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    idTokenExpected: true,
  });
}

const options = (extra = {}) => ({
  algorithm: 'oauth2',
  execute: [oidc.allowInsecureRequests],
  ...extra,
});

for (const store of emulator ? ['sqlite', 'dynamodb'] : ['sqlite']) {
  describe(`dynamic registration on ${store}`, () => {
    before(async () => {
      storeFlags = store === 'dynamodb' ? await dynamoFlags() : [];
      server = await startServer(storeFlags);
      carol = await enroll(server, 'carol');
    });
    after(async () => {
      await server?.stop();
    });

    test("openid-client: RFC 8414 discovery and registration need the operator's token", async () => {
      await assert.rejects(
        oidc.dynamicClientRegistration(
          new URL(server.issuer),
          { redirect_uris: [rp.url] },
          undefined,
          options(),
        ),
        (e) =>
          e.status === 401 ||
          e.cause?.status === 401 ||
          /401|invalid_token|bearer/i.test(String(e)),
      );
      await assert.rejects(
        oidc.dynamicClientRegistration(
          new URL(server.issuer),
          { redirect_uris: [rp.url] },
          undefined,
          options({ initialAccessToken: 'not-a-token' }),
        ),
      );
    });

    test('openid-client: a confidential client registers with an initial access token and logs carol in', async () => {
      const token = await initialAccessToken(1);
      const config = await oidc.dynamicClientRegistration(
        new URL(server.issuer),
        {
          redirect_uris: [rp.url],
          client_name: 'MCP tool',
          token_endpoint_auth_method: 'client_secret_post',
          logo_uri: 'https://tool.example/logo.png',
        },
        undefined,
        options({ initialAccessToken: token }),
      );
      const meta = config.serverMetadata();
      assert.equal(meta.issuer, server.issuer);
      assert.equal(
        meta.registration_endpoint,
        `${server.issuer}/clients-registrations/openid-connect`,
      );
      const client = config.clientMetadata();
      assert.equal(typeof client.client_id, 'string');
      assert.equal(typeof client.client_secret, 'string');
      assert.equal(client.client_secret_expires_at, 0);
      assert.equal(client.client_name, 'MCP tool');
      assert.equal(client.logo_uri, undefined, 'scanid does not keep logos');

      const tokens = await codeFlow(config);
      const claims = tokens.claims();
      assert.equal(claims.iss, server.issuer);
      // Before its deletion below, the client refreshes like any other.
      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token);
      assert.equal(refreshed.claims().sub, claims.sub);
      assert.equal(claims.aud, client.client_id);
      assert.equal(claims.preferred_username, 'carol');
      const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      assert.equal(info.sub, claims.sub);

      // The token's one use is spent.
      await assert.rejects(
        oidc.dynamicClientRegistration(
          new URL(server.issuer),
          { redirect_uris: [rp.url] },
          undefined,
          options({ initialAccessToken: token }),
        ),
      );

      // RFC 7592: the registration access token reads (and is replaced), then deletes.
      const auth = (t) => ({ authorization: `Bearer ${t}` });
      const read = await fetch(client.registration_client_uri, {
        headers: auth(client.registration_access_token),
      });
      assert.equal(read.status, 200);
      const current = await read.json();
      assert.equal(current.client_id, client.client_id);
      assert.equal(current.client_secret, undefined);
      const stale = await fetch(client.registration_client_uri, {
        headers: auth(client.registration_access_token),
      });
      assert.equal(stale.status, 401);
      const gone = await fetch(client.registration_client_uri, {
        method: 'DELETE',
        headers: auth(current.registration_access_token),
      });
      assert.equal(gone.status, 204);
      // A deleted client's refresh token no longer works.
      await assert.rejects(oidc.refreshTokenGrant(config, refreshed.refresh_token));
    });

    test('openid-client: a public client (none) registers and logs in with PKCE', async () => {
      const token = await initialAccessToken(1);
      const config = await oidc.dynamicClientRegistration(
        new URL(server.issuer),
        {
          redirect_uris: [rp.url],
          token_endpoint_auth_method: 'none',
          client_name: 'CLI agent',
        },
        oidc.None(),
        options({ initialAccessToken: token }),
      );
      const client = config.clientMetadata();
      assert.equal(client.client_secret, undefined);
      assert.equal(client.token_endpoint_auth_method, 'none');
      const tokens = await codeFlow(config);
      assert.equal(tokens.claims().aud, client.client_id);
    });
  });
}
