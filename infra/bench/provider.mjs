// oidc-provider as the benchmark peer, production mode, signing with ALG (RS256 or ES256):
// - client_credentials with a resource indicator: JWT access tokens (the stateless path);
// - the stateful paths: the authorization-code grant and the refresh-token grant (rotating, as
//   scanid always does) answering a JWT access token and an ID token, as scanid does;
//   introspection and userinfo of its default opaque access tokens (it introspects no JWT
//   access token, and its userinfo takes none issued for an API).
//
// Storage is a plain in-process Map (below): oidc-provider's own memory adapter is an LRU of
// 1000 entries, too small to hold a benchmark's codes and tokens. A Map with no persistence is
// the cheapest store the peer could have (scanid's is SQLite on disk), so the comparison leans
// the peer's way.
//
// With SEED_CODES=N and CODES_FILE=path it writes, before it listens, N authorization codes (one
// per line) for the client `bench` (redirect URI https://shop.example/cb, scope "openid profile
// offline_access" and the API resource, so their tokens are a JWT access token and an ID token,
// the two signatures scanid makes), and 64 more in CODES_FILE.opaque without the resource
// (opaque access tokens, for userinfo and introspection): each a Grant plus an
// AuthorizationCode saved through its models, what its endpoints save at the end of a login.
//
// With FAPI_JWKS=path (a public JWK Set) it also has the client `fapi`: FAPI 2.0's client
// authentication, private_key_jwt with those keys (ES256), and DPoP-bound access tokens, for
// run.sh's `fapi` mode (client_credentials with a resource: a JWT access token with cnf.jkt).
//
// usage: [SEED_CODES=N CODES_FILE=path] [FAPI_JWKS=path] node provider.mjs PORT ALG
import { readFileSync, writeFileSync } from 'node:fs';
import Provider from 'oidc-provider';
import { generateKeyPair, exportJWK } from 'jose';

const [port, alg] = [Number(process.argv[2]), process.argv[3] ?? 'RS256'];
const { privateKey } = await generateKeyPair(alg, { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), alg, use: 'sig', kid: `bench-${alg}` };
const issuer = `http://127.0.0.1:${port}`;
const REDIRECT = 'https://shop.example/cb';

const entries = new Map(); // `${model}:${id}` -> { payload, expiresAt }
const byGrant = new Map(); // grantId -> Set of keys
const byUid = new Map(); // `${model}:${uid}` -> id
const byUserCode = new Map(); // `${model}:${userCode}` -> id

class MapAdapter {
  constructor(model) { this.model = model; }

  key(id) { return `${this.model}:${id}`; }

  async upsert(id, payload, expiresIn) {
    const key = this.key(id);
    entries.set(key, { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
    if (payload.grantId) {
      const members = byGrant.get(payload.grantId) ?? new Set();
      members.add(key);
      byGrant.set(payload.grantId, members);
    }
    if (payload.uid) byUid.set(this.key(payload.uid), id);
    if (payload.userCode) byUserCode.set(this.key(payload.userCode), id);
  }

  async find(id) {
    const key = this.key(id);
    const e = entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return e.payload;
  }

  async findByUid(uid) {
    const id = byUid.get(this.key(uid));
    return id === undefined ? undefined : this.find(id);
  }

  async findByUserCode(userCode) {
    const id = byUserCode.get(this.key(userCode));
    return id === undefined ? undefined : this.find(id);
  }

  async consume(id) {
    const e = entries.get(this.key(id));
    if (e) e.payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id) { entries.delete(this.key(id)); }

  async revokeByGrantId(grantId) {
    for (const key of byGrant.get(grantId) ?? []) entries.delete(key);
    byGrant.delete(grantId);
  }
}

const provider = new Provider(issuer, {
  adapter: MapAdapter,
  jwks: { keys: [jwk] },
  clients: [{
    client_id: 'bench',
    client_secret: 'bench-secret',
    grant_types: ['client_credentials', 'authorization_code', 'refresh_token'],
    redirect_uris: [REDIRECT],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    id_token_signed_response_alg: alg,
  }, ...(process.env.FAPI_JWKS ? [{
    client_id: 'fapi',
    grant_types: ['client_credentials'],
    redirect_uris: [],
    response_types: [],
    token_endpoint_auth_method: 'private_key_jwt',
    token_endpoint_auth_signing_alg: 'ES256',
    jwks: JSON.parse(readFileSync(process.env.FAPI_JWKS, 'utf8')),
    dpop_bound_access_tokens: true,
    id_token_signed_response_alg: alg,
  }] : [])],
  ttl: { AuthorizationCode: 600, AccessToken: 3600, RefreshToken: 86400, Grant: 86400 },
  rotateRefreshToken: true,
  features: {
    devInteractions: { enabled: false },
    dPoP: { enabled: true },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    userinfo: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // Only the client_credentials runs (which send resource=) get JWT access tokens; the
      // code flow keeps the default opaque ones, which userinfo and introspection accept.
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope: 'api', audience: 'urn:bench:api', accessTokenTTL: 300,
        accessTokenFormat: 'jwt', jwt: { sign: { alg } },
      }),
    },
  },
});

// A code as the end of a login saves it. `jwt`: the grant includes the API resource, so the
// token endpoint answers a JWT access token (signed with ALG) beside the ID token, as scanid
// does; otherwise an opaque access token (what userinfo and introspection accept).
const client = await provider.Client.find('bench');
async function seedCode(i, jwt) {
  const accountId = `bench-user-${i % 64}`;
  const oidcScope = 'openid profile offline_access';
  const grant = new provider.Grant({ accountId, clientId: 'bench' });
  grant.addOIDCScope(oidcScope);
  if (jwt) grant.addResourceScope('urn:bench:api', 'api');
  const grantId = await grant.save();
  const code = new provider.AuthorizationCode({
    accountId,
    grantId,
    client,
    scope: jwt ? `${oidcScope} api` : oidcScope,
    resource: jwt ? 'urn:bench:api' : undefined,
    redirectUri: REDIRECT,
    nonce: 'n',
    authTime: Math.floor(Date.now() / 1000),
    sessionUid: `bench-session-${i % 64}`,
    sid: `bench-sid-${i % 64}`,
  });
  return code.save();
}

const seed = Number(process.env.SEED_CODES ?? 0);
if (seed > 0) {
  for (const [file, n, jwt] of [[process.env.CODES_FILE, seed, true], [`${process.env.CODES_FILE}.opaque`, 64, false]]) {
    const codes = [];
    for (let i = 0; i < n; i += 1) codes.push(await seedCode(i, jwt));
    writeFileSync(file, `${codes.join('\n')}\n`);
  }
}

provider.listen(port, '127.0.0.1', () => console.log(JSON.stringify({ issuer, alg, seeded: seed })));
