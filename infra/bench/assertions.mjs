// Pre-signs the client side of FAPI 2.0 token requests for the `fapi` benchmark, so wrk (which
// cannot sign) sends each request with a client assertion (RFC 7523 private_key_jwt) and a DPoP
// proof (RFC 9449) of its own, both fresh: every jti unique, iat now (both servers accept a
// proof up to 60 s old, so run.sh signs just before each measured run).
//
// usage: node assertions.mjs keys DIR
//          writes DIR/client.jwk and DIR/dpop.jwk (ES256 private keys) and DIR/client-jwks.json
//          (the client's public JWK Set, for both servers' client registrations)
//        node assertions.mjs sign DIR CLIENT_ID AUDIENCE TOKEN_URL N > lines
//          N lines "client_assertion dpop_proof"
import { readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { SignJWT, exportJWK, generateKeyPair, importJWK } from 'jose';

const [mode, dir] = process.argv.slice(2, 4);
if (mode === 'keys') {
  for (const name of ['client', 'dpop']) {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), alg: 'ES256', kid: `bench-${name}` };
    writeFileSync(`${dir}/${name}.jwk`, JSON.stringify(jwk));
    if (name === 'client') {
      const { d: _, ...pub } = jwk;
      writeFileSync(`${dir}/client-jwks.json`, JSON.stringify({ keys: [{ ...pub, use: 'sig' }] }));
    }
  }
} else if (mode === 'sign') {
  const [clientId, audience, tokenUrl, n] = process.argv.slice(4);
  const clientJwk = JSON.parse(readFileSync(`${dir}/client.jwk`, 'utf8'));
  const dpopJwk = JSON.parse(readFileSync(`${dir}/dpop.jwk`, 'utf8'));
  const clientKey = await importJWK(clientJwk, 'ES256');
  const dpopKey = await importJWK(dpopJwk, 'ES256');
  const { d: _, kid: __, alg: ___, ...dpopPublic } = dpopJwk;
  const lines = [];
  const now = Math.floor(Date.now() / 1000);
  for (let i = 0; i < Number(n); i += 1) {
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: clientJwk.kid })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(audience)
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + 120)
      .sign(clientKey);
    const proof = await new SignJWT({ htm: 'POST', htu: tokenUrl })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: dpopPublic })
      .setJti(randomUUID())
      .setIssuedAt(now)
      .sign(dpopKey);
    lines.push(`${assertion} ${proof}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
} else {
  console.error('usage: node assertions.mjs keys DIR | sign DIR CLIENT_ID AUDIENCE TOKEN_URL N');
  process.exit(2);
}
