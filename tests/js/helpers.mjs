// Helpers for the browser and interoperability tests: the real `scanid` binary, its CLI, a
// throwaway relying-party callback server, and Debian's Chromium driven by playwright-core.
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import * as oidc from 'openid-client';
import { createRemoteJWKSet } from 'jose';
import { PNG } from 'pngjs';
import jsQR from 'jsqr';

const here = path.dirname(fileURLToPath(import.meta.url));
export const BIN =
  process.env.SCANID_BIN ?? path.join(here, '..', '..', 'target', 'debug', 'scanid');
const run = promisify(execFile);

/** Runs `scanid ARGS`; resolves to its JSON output, rejects with its stderr. */
export async function cli(args) {
  const { stdout } = await run(BIN, args, { env: { ...process.env, RUST_LOG: 'warn' } });
  return JSON.parse(stdout);
}

/** `scanid serve ARGS --data-dir <fresh> EXTRA`, once its banner line is out: the banner, the
 * data dir and `stop()` (which also removes the data dir). */
async function serve(args, extra) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'scanid-js-'));
  const child = spawn(BIN, ['serve', ...args, '--data-dir', dataDir, ...extra], {
    // A QR code is accepted for 3 s by default; here for 6 s (a flag still overrides it), so
    // that on a loaded machine a slow page load or CLI `approve` between reading a code and
    // scanning it does not fail a test. The 3 s refusal itself is held by tests/it/qr_safety.rs.
    env: {
      ...process.env,
      RUST_LOG: 'warn',
      SCANID_QR_CHALLENGE_TTL: process.env.SCANID_QR_CHALLENGE_TTL ?? '6',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', resolve);
    // On any exit, a failed start's or `stop()`'s, the data dir goes.
    child.once('exit', (code) => {
      rmSync(dataDir, { recursive: true, force: true });
      reject(new Error(`scanid serve exited with ${code}`));
    });
  });
  return {
    ...JSON.parse(line),
    dataDir,
    async stop() {
      child.kill('SIGTERM');
      // The exit listener above removes the data dir.
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** Starts `scanid serve` on a free port with a fresh data dir. */
export async function startServer(extra = []) {
  const server = await serve(['--addr', '127.0.0.1:0'], extra);
  return { ...server, base: `http://${server.addr}` };
}

/** A relying party's callback endpoint: records every request URL, answers a small page. */
export async function startCallback() {
  const hits = [];
  const server = http.createServer((req, res) => {
    hits.push(new URL(req.url, 'http://127.0.0.1'));
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>RP</title><h1 id="rp">Relying party callback</h1>');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/cb`,
    hits,
    close: () => new Promise((r) => server.close(r)),
  };
}

/** Debian's Chromium, headless, with the flags this sandbox needs (no network beyond loopback). */
export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

/** The authorization request URL of `server` for a code flow: `params` over the defaults
 * (`response_type=code`, `scope=openid profile`); `undefined` values are left out. */
export function authorizationUrl(server, params) {
  const u = new URL(`${server.issuer}/protocol/openid-connect/auth`);
  const all = { response_type: 'code', scope: 'openid profile', ...params };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) u.searchParams.set(k, v);
  return u.toString();
}

/** Key file path in a fresh temp dir. */
export function keyFile() {
  return path.join(mkdtempSync(path.join(tmpdir(), 'scanid-key-')), 'device.key');
}

/** Enrolls an identity with the reference app. */
export async function enroll(server, name) {
  const file = keyFile();
  const out = await cli([
    'app',
    'enroll',
    '--key-file',
    file,
    '--name',
    name,
    '--display-name',
    `${name} display`,
    '--country',
    'SE',
    '--server',
    server.base,
  ]);
  return { ...out, file };
}

/** The number the login page in `page` shows once the app has scanned: what its status poll
 * (bound to that browser by its cookie) answers, as the person reads it off the screen. Asked
 * with the context's own cookies, beside the page (routes the test sets on the page's polls
 * do not see it). */
export async function numberOnPage(page) {
  const url = await page.locator('#state').getAttribute('data-status-url');
  for (let i = 0; i < 50; i += 1) {
    try {
      const r = await page.context().request.get(url, { headers: { accept: 'application/json' } });
      if (r.ok()) {
        const s = await r.json();
        if (typeof s.number === 'number') return s.number;
      }
    } catch {
      /* retried */
    }
    await new Promise((done) => setTimeout(done, 200));
  }
  return null;
}

/** `scanid app approve [--deny] [--number N]` on a QR payload; resolves to its JSON, or
 * { error } on failure. `opts`: `deny`, `number` (given on the command line), or `page`: the
 * login page, from which the number is read (its status poll) and typed on the app's stdin
 * when it asks; `pick(number, choices)` may pick another one (a wrong number). A boolean
 * `opts` is `deny`. */
export async function approve(server, identity, payload, opts = {}) {
  const { deny = false, number, page, pick } = typeof opts === 'boolean' ? { deny: opts } : opts;
  const args = ['app', 'approve', '--key-file', identity.file, '--server', server.base];
  if (deny) args.push('--deny');
  if (number !== undefined) args.push('--number', String(number));
  args.push(payload);
  const child = spawn(BIN, args, {
    env: { ...process.env, RUST_LOG: 'warn' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let asked = false;
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
    const m = /Which number does the login page show\? ([0-9 ]+)/.exec(err);
    if (m && !asked) {
      asked = true;
      const choices = m[1].trim().split(/\s+/).map(Number);
      (async () => {
        const shown = page ? await numberOnPage(page) : null;
        const n = pick ? pick(shown, choices) : shown;
        child.stdin.end(`${n ?? ''}\n`);
      })().catch(() => child.stdin.end('\n'));
    }
  });
  child.stdin.on('error', () => {});
  const code = await new Promise((resolve) => child.once('close', resolve));
  if (!asked) child.stdin.end();
  if (code !== 0) return { error: err };
  try {
    return JSON.parse(out);
  } catch {
    return { error: `${err} ${out}` };
  }
}

/**
 * A photo of the login page's QR code, as a phone's camera takes it. The code is redrawn every
 * second (the living QR), so a photo taken while the drawing is swapped is taken again.
 */
export async function photographQr(page) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await page.locator('#qr svg').screenshot({ timeout: 2_000 });
    } catch (e) {
      if (attempt >= 5) throw e;
      await new Promise((r) => setTimeout(r, 150));
    }
  }
}

/** What a phone's camera reads from the login page: its QR image, decoded (the app link). */
export async function readQr(page) {
  const png = PNG.sync.read(await photographQr(page));
  const code = jsQR(
    new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length),
    png.width,
    png.height,
  );
  if (!code) throw new Error('the QR image does not decode');
  return code.data;
}

/** The test command's AWS emulator, if it started one: its endpoint, with the AWS SDK's
 * environment pointed at it (for `scanid aws init` and `serve --table`). */
export function useEmulator() {
  const emulator = process.env.SCANID_TEST_AWS_ENDPOINT;
  if (!emulator) return undefined;
  Object.assign(process.env, {
    AWS_ENDPOINT_URL: emulator,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_EC2_METADATA_DISABLED: 'true',
  });
  return emulator;
}

/** A fresh table and KMS key in the emulator, as `serve` flags. */
export async function dynamoFlags() {
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

export async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/** `scanid serve` on 127.0.0.1 with its public URL on localhost (WebAuthn needs a host name).
 * `storeFlags`: more flags, or a function of the port that gives them. */
export async function startLocalhostServer(storeFlags) {
  // The port is found free, then bound by scanid: in between, something else may take it (an
  // outgoing connection's ephemeral port), so a start that fails is tried on another. The demo
  // takes any free port (by default it takes the next one, which nobody checked).
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    try {
      const server = await serve(
        [
          '--addr',
          `127.0.0.1:${port}`,
          '--demo-addr',
          '127.0.0.1:0',
          '--public-url',
          `http://localhost:${port}`,
        ],
        [
          '--signup-rate-per-hour',
          '100',
          ...(typeof storeFlags === 'function' ? storeFlags(port) : storeFlags),
        ],
      );
      return { ...server, storeFlags, port };
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
}

/**
 * Logs `identity` in through the QR login in a fresh context of `browser`: the reference app
 * approves with the number the page shows, the consent page is allowed when it comes. Resolves
 * to the URL the relying party at `rpUrl` received.
 */
export async function qrLogin(browser, server, identity, rpUrl, url) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await page.goto(url.toString());
  const payload = await page.locator('#app-link').getAttribute('data-qr-payload');
  const approved = await approve(server, identity, payload, { page });
  if (approved.status !== 'approved') throw new Error(`not approved: ${JSON.stringify(approved)}`);
  await page.waitForURL(
    (u) => u.toString().startsWith(rpUrl) || /login-actions\/consent/.test(u.toString()),
    { timeout: 10_000 },
  );
  if (!page.url().startsWith(rpUrl)) {
    await page.click('button[name="consent"][value="allow"]');
    await page.waitForURL((u) => u.toString().startsWith(rpUrl), { timeout: 10_000 });
  }
  const landed = new URL(page.url());
  await ctx.close();
  return landed;
}

/** A CIBA client made by the CLI (`--grant ciba` and `extra` flags) as openid-client sees it:
 * its discovered configuration (client_secret_basic) and the service's JWKS for jose. */
export async function cibaClient(server, clientId, name, extra = []) {
  const c = await cli([
    'client',
    'create',
    '--data-dir',
    server.dataDir,
    '--name',
    name,
    '--client-id',
    clientId,
    '--grant',
    'ciba',
    ...extra,
  ]);
  const config = await oidc.discovery(
    new URL(server.issuer),
    clientId,
    undefined,
    oidc.ClientSecretBasic(c.client_secret),
    { execute: [oidc.allowInsecureRequests] },
  );
  return { config, jwks: createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri)) };
}

/** Signs `name` up in the web app open in `page` (Sweden), and waits for its identity. */
export async function signUpInWebApp(page, server, name, displayName) {
  await page.goto(`${server.issuer}/app/`);
  await page.locator('#signup-form').waitFor();
  await page.fill('#name', name);
  await page.locator('#name-hint.ok').waitFor();
  await page.fill('#display-name', displayName);
  await page.fill('#country', 'SE');
  await page.tap('#signup');
  await page.locator('#identity').waitFor();
}
