// Helpers for the browser and interoperability tests: the real `scanid` binary, its CLI, a
// throwaway relying-party callback server, and Debian's Chromium driven by playwright-core.
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const BIN = process.env.SCANID_BIN ?? path.join(here, '..', '..', 'target', 'debug', 'scanid');
const run = promisify(execFile);

/** Runs `scanid ARGS`; resolves to its JSON output, rejects with its stderr. */
export async function cli(args) {
  const { stdout } = await run(BIN, args, { env: { ...process.env, RUST_LOG: 'warn' } });
  return JSON.parse(stdout);
}

/** Starts `scanid serve` on a free port with a fresh data dir. */
export async function startServer(extra = []) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'scanid-js-'));
  const child = spawn(BIN, ['serve', '--addr', '127.0.0.1:0', '--data-dir', dataDir, ...extra], {
    env: { ...process.env, RUST_LOG: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`scanid serve exited with ${code}`)));
  });
  const banner = JSON.parse(line);
  return {
    ...banner,
    base: `http://${banner.addr}`,
    dataDir,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
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
  return { url: `http://127.0.0.1:${port}/cb`, hits, close: () => new Promise((r) => server.close(r)) };
}

/** Debian's Chromium, headless, with the flags this sandbox needs (no network beyond loopback). */
export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking',
      '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}

/** Key file path in a fresh temp dir. */
export function keyFile() {
  return path.join(mkdtempSync(path.join(tmpdir(), 'scanid-key-')), 'device.key');
}

/** Enrolls an identity with the reference app. */
export async function enroll(server, name) {
  const file = keyFile();
  const out = await cli(['app', 'enroll', '--key-file', file, '--name', name, '--display-name', `${name} display`,
    '--country', 'SE', '--server', server.base]);
  return { ...out, file };
}

/** `scanid app approve [--deny]` on a QR payload; resolves to its JSON, or { error } on failure. */
export async function approve(server, identity, payload, deny = false) {
  const args = ['app', 'approve', '--key-file', identity.file, '--server', server.base, payload];
  if (deny) args.splice(2, 0, '--deny');
  try {
    return await cli(args);
  } catch (e) {
    return { error: String(e.stderr ?? e) };
  }
}
