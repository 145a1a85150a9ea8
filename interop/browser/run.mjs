// run.mjs drives mcpgen's MCP Apps browser test.
//
//   node run.mjs bundle OUTDIR
//       writes OUTDIR/host.html and OUTDIR/host.js (host.mjs bundled for
//       the browser with esbuild: the TypeScript client and the
//       extension's AppBridge);
//   node run.mjs open URL [--chromium PATH] [--screenshot FILE] [--timeout MS]
//       loads URL in headless Chromium (Debian's chromium, driven over the
//       DevTools protocol with Node's own WebSocket: no other package),
//       waits for body[data-state] to leave "loading", saves a screenshot
//       and prints {"state", "host", "app"}: the host's log and, through
//       it, what the app said.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile, copyFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

async function bundle(out) {
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [path.join(here, 'host.mjs')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outfile: path.join(out, 'host.js'),
    logLevel: 'error',
  });
  await copyFile(path.join(here, 'host.html'), path.join(out, 'host.html'));
}

// launch starts Chromium headless and returns it with its DevTools
// WebSocket URL (from its stderr).
async function launch(chromium, profile) {
  const proc = spawn(chromium, [
    '--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check',
    '--disable-background-networking', '--disable-extensions', '--window-size=900,900',
    `--user-data-dir=${profile}`, '--remote-debugging-port=0', 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  const ws = await new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`chromium did not start in 30 s: ${err}`)), 30000);
    proc.on('exit', (code) => reject(new Error(`chromium exited ${code}: ${err}`)));
    proc.stderr.on('data', (d) => {
      err += d;
      const m = /DevTools listening on (ws:\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  return { proc, ws };
}

// cdp is a DevTools protocol connection: send(method, params, sessionId).
async function cdp(url) {
  const sock = new WebSocket(url);
  await new Promise((resolve, reject) => {
    sock.onopen = resolve;
    sock.onerror = () => reject(new Error(`connecting to ${url}`));
  });
  let id = 0;
  const waiting = new Map();
  sock.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.id && waiting.has(m.id)) {
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.error) w.reject(new Error(`${w.method}: ${m.error.message}`));
      else w.resolve(m.result);
    }
  };
  return {
    send(method, params = {}, sessionId) {
      return new Promise((resolve, reject) => {
        const n = ++id;
        waiting.set(n, { resolve, reject, method });
        sock.send(JSON.stringify({ id: n, method, params, sessionId }));
      });
    },
    close() { sock.close(); },
  };
}

async function open(url, o) {
  const profile = await mkdtemp(path.join(tmpdir(), 'mcpgen-chromium-'));
  const { proc, ws } = await launch(o.chromium, profile);
  try {
    const c = await cdp(ws);
    const { targetId } = await c.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await c.send('Target.attachToTarget', { targetId, flatten: true });
    await c.send('Page.enable', {}, sessionId);
    await c.send('Page.navigate', { url }, sessionId);
    const evaluate = async (expression) => (await c.send('Runtime.evaluate', { expression, returnByValue: true }, sessionId)).result.value;
    const deadline = Date.now() + o.timeout;
    let state = 'loading';
    while (Date.now() < deadline) {
      state = await evaluate("document.body ? document.body.dataset.state : 'loading'");
      if (state && state !== 'loading') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const host = await evaluate("[...document.querySelectorAll('#log li')].map((li) => li.textContent)");
    if (o.screenshot) {
      const shot = await c.send('Page.captureScreenshot', { format: 'png' }, sessionId);
      await writeFile(o.screenshot, Buffer.from(shot.data, 'base64'));
    }
    c.close();
    return { state: state === 'loading' ? `timeout after ${o.timeout} ms` : state, host };
  } finally {
    proc.kill('SIGKILL');
    await rm(profile, { recursive: true, force: true }).catch(() => {});
  }
}

const [cmd, arg, ...rest] = process.argv.slice(2);
const o = { chromium: process.env.CHROMIUM || 'chromium', screenshot: '', timeout: 30000 };
for (let i = 0; i < rest.length; i += 2) {
  const k = rest[i].replace(/^--/, '');
  if (!(k in o)) throw new Error(`unknown flag ${rest[i]}`);
  o[k] = k === 'timeout' ? Number(rest[i + 1]) : rest[i + 1];
}
try {
  if (cmd === 'bundle' && arg) {
    await bundle(arg);
  } else if (cmd === 'open' && arg) {
    console.log(JSON.stringify(await open(arg, o), null, 2));
  } else {
    throw new Error('usage: run.mjs bundle OUTDIR | open URL [--chromium PATH] [--screenshot FILE] [--timeout MS]');
  }
} catch (err) {
  console.error(`run.mjs: ${err?.stack ?? err}`);
  process.exit(1);
}
