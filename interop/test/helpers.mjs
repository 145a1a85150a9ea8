// Shared helpers for the interop tests (not a test file itself).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const INTEROP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURES = path.join(INTEROP, 'test', 'fixtures');

// Run a command to completion; resolves {code, stdout, stderr}.
export function run(cmd, args, { cwd = INTEROP, env = process.env, timeout = 60000 } = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    let timedOut = false;
    const t = setTimeout(() => { timedOut = true; p.kill('SIGKILL'); }, timeout);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(t);
      if (timedOut) stderr += `\n[helpers] killed after ${timeout} ms: ${cmd} ${args.join(' ')}`;
      resolve({ code, stdout, stderr });
    });
  });
}

// Start a fixture HTTP server (prints "listening <url>"); resolves {url, stop, stderr()}.
export function startServer(script) {
  return new Promise((resolve, reject) => {
    const p = spawn(path.join(INTEROP, 'node.sh'), [path.join(FIXTURES, script)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('exit', (code) => reject(new Error(`${script} exited with ${code}: ${err}`)));
    p.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening (\S+)/);
      if (m) resolve({ url: m[1], stderr: () => err, stop: () => p.kill() });
    });
  });
}
