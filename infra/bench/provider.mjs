// oidc-provider as the benchmark peer: client_credentials issuing JWT access tokens signed with
// ALG (RS256 or ES256), in-memory storage (its default), production mode.
// usage: node provider.mjs PORT ALG
import Provider from 'oidc-provider';
import { generateKeyPair, exportJWK } from 'jose';

const [port, alg] = [Number(process.argv[2]), process.argv[3] ?? 'RS256'];
const { privateKey } = await generateKeyPair(alg, { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), alg, use: 'sig', kid: `bench-${alg}` };
const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
  jwks: { keys: [jwk] },
  clients: [{
    client_id: 'bench', client_secret: 'bench-secret', grant_types: ['client_credentials'],
    redirect_uris: [], response_types: [], token_endpoint_auth_method: 'client_secret_basic',
    id_token_signed_response_alg: alg,
  }],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => 'urn:bench:api',
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope: 'api', audience: 'urn:bench:api', accessTokenTTL: 300,
        accessTokenFormat: 'jwt', jwt: { sign: { alg } },
      }),
    },
  },
});
provider.listen(port, '127.0.0.1', () => console.log(JSON.stringify({ issuer, alg })));
