// Summarise MCP conformance output directories (`conformance server|client ... -o <dir>`).
//
//   node results.mjs [--json] [--expected-failures <yaml>] [--strict] [--requirements <rev>] <dir>...
//
// Every directory below <dir> holding a checks.json is one scenario run:
//   server: <dir>/server-<scenario>-<timestamp>/checks.json
//   client: <dir>/<scenario>-<timestamp>/checks.json   (auth/<name>-<ts> for auth scenarios)
// A run directory without checks.json (the scenario threw) counts as one failed
// check "scenario-crashed", as in the harness's own summary.
// Prints one table per <dir> (scenario, passed, failed, warnings, skipped) plus totals,
// or with --json one machine-readable object.
//
// Verdict (exit code): 1 if any FAILURE check is not excused, or with --strict any
// unexcused WARNING; 0 otherwise; 2 on usage errors or when a <dir> has no runs.
// Excused means: listed in --expected-failures, or (with --requirements <rev>) the
// scenario is not_scored in that frozen requirement set of the pinned conformance
// package. The expected-failures file is a YAML list:
//   - scenario: tools-call-sampling                   # the whole scenario may fail
//     reason: sampling not implemented yet
//   - scenario: server-stateless:sep-2575-server-implements-discover   # just this check
//     reason: ...
// Entries that excused nothing although their scenario ran are reported as stale
// (they do not change the exit code).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const STATUSES = { SUCCESS: 'passed', FAILURE: 'failed', WARNING: 'warnings', SKIPPED: 'skipped', INFO: 'info' };
const TS = /-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)$/;

function usage(msg) {
  console.error(`results.mjs: ${msg}\nusage: node results.mjs [--json] [--expected-failures <yaml>] [--strict] [--requirements <rev>] <dir>...`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { dirs: [], json: false, strict: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') o.json = true;
    else if (a === '--strict') o.strict = true;
    else if (a === '--expected-failures' || a === '--requirements') {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      o[a === '--requirements' ? 'requirements' : 'expectedFailures'] = argv[++i];
    } else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else o.dirs.push(a);
  }
  if (o.dirs.length === 0) usage('no output directory given');
  return o;
}

// Baseline entries: [{scenario, check|undefined, reason, used:false}]
function loadExpected(file) {
  const doc = YAML.parse(fs.readFileSync(file, 'utf8')) ?? [];
  if (!Array.isArray(doc)) throw new Error(`${file}: expected a YAML list of {scenario, reason} entries`);
  return doc.map((e, i) => {
    if (typeof e?.scenario !== 'string' || !e.scenario) throw new Error(`${file}: entry ${i + 1} has no scenario`);
    if (typeof e.reason !== 'string' || !e.reason.trim()) throw new Error(`${file}: entry ${i + 1} (${e.scenario}) has no reason`);
    const at = e.scenario.indexOf(':');
    return at < 0
      ? { scenario: e.scenario, reason: e.reason, used: false }
      : { scenario: e.scenario.slice(0, at), check: e.scenario.slice(at + 1), reason: e.reason, used: false };
  });
}

// not_scored scenarios of a frozen requirement set: Map scenario -> reason
function loadNotScored(rev) {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const file = path.join(here, 'node_modules/@modelcontextprotocol/conformance/requirements', `${rev}.yaml`);
  if (!fs.existsSync(file)) throw new Error(`no requirement set ${rev} (${file})`);
  const doc = YAML.parse(fs.readFileSync(file, 'utf8'));
  return new Map((doc.not_scored ?? []).map((e) => [e.scenario, e.reason]));
}

function findRuns(root) {
  const runs = [];
  const walk = (dir) => {
    for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!ent.isDirectory()) continue;
      const sub = path.join(dir, ent.name);
      if (fs.existsSync(path.join(sub, 'checks.json')) || TS.test(ent.name)) runs.push(sub);
      else walk(sub);
    }
  };
  walk(root);
  return runs.map((dir) => {
    const rel = path.relative(root, dir).split(path.sep).join('/');
    const m = rel.match(TS);
    let name = m ? rel.slice(0, m.index) : rel;
    const mode = !name.includes('/') && name.startsWith('server-') ? 'server' : 'client';
    if (mode === 'server') name = name.slice('server-'.length);
    const file = path.join(dir, 'checks.json');
    // The harness creates the run directory first; a scenario that throws leaves it
    // without checks.json and is counted as one failure in its summary. Do the same.
    const checks = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : [{
      id: 'scenario-crashed', status: 'FAILURE',
      errorMessage: 'no checks.json: the scenario threw before recording checks (see the conformance output)',
    }];
    const counts = { passed: 0, failed: 0, warnings: 0, skipped: 0, info: 0 };
    for (const c of checks) if (STATUSES[c.status]) counts[STATUSES[c.status]]++;
    return { scenario: name, mode, timestamp: m?.[1], dir, checks, ...counts };
  }).sort((a, b) => a.scenario.localeCompare(b.scenario) || String(a.timestamp).localeCompare(String(b.timestamp)));
}

// Classify every FAILURE / WARNING check of a run.
function judge(run, expected, notScored) {
  const out = [];
  for (const c of run.checks) {
    if (c.status !== 'FAILURE' && c.status !== 'WARNING') continue;
    const item = { scenario: run.scenario, check: c.id, status: c.status, message: c.errorMessage ?? c.description };
    const entry = expected.find((e) => e.scenario === run.scenario && (e.check === undefined || e.check === c.id));
    if (entry) {
      entry.used = true;
      out.push({ ...item, verdict: 'expected', reason: entry.reason });
    } else if (notScored.has(run.scenario)) {
      out.push({ ...item, verdict: 'not-scored', reason: notScored.get(run.scenario) });
    } else {
      out.push({ ...item, verdict: 'unexpected' });
    }
  }
  return out;
}

function table(rows) {
  const cols = ['scenario', 'passed', 'failed', 'warnings', 'skipped'];
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (r) => cols.map((c, i) => (i === 0 ? String(r[c]).padEnd(width[i]) : String(r[c]).padStart(width[i]))).join('  ');
  return [line(Object.fromEntries(cols.map((c) => [c, c.toUpperCase()]))), ...rows.map(line)].join('\n');
}

const o = parseArgs(process.argv.slice(2));
let expected = [];
let notScored = new Map();
try {
  if (o.expectedFailures) expected = loadExpected(o.expectedFailures);
  if (o.requirements) notScored = loadNotScored(o.requirements);
} catch (err) {
  usage(err.message);
}

const report = { ok: true, runs: 0, passed: 0, failed: 0, warnings: 0, skipped: 0, info: 0, dirs: [], unexpected: [], otherWarnings: [], expected: [], notScored: [], stale: [] };
for (const dir of o.dirs) {
  if (!fs.existsSync(dir)) usage(`${dir} does not exist`);
  const runs = findRuns(dir);
  if (runs.length === 0) usage(`${dir}: no */checks.json found`);
  const rows = [];
  for (const run of runs) {
    const problems = judge(run, expected, notScored);
    for (const p of problems) {
      if (p.verdict === 'expected') report.expected.push(p);
      else if (p.verdict === 'not-scored') report.notScored.push(p);
      else if (p.status === 'FAILURE' || o.strict) report.unexpected.push(p);
      else report.otherWarnings.push(p);
    }
    const { checks, dir: runDir, ...row } = run;
    rows.push({ ...row, dir: runDir });
    report.runs++;
    for (const k of ['passed', 'failed', 'warnings', 'skipped', 'info']) report[k] += run[k];
  }
  report.dirs.push({ dir, runs: rows });
}
const ranScenarios = new Set(report.dirs.flatMap((d) => d.runs.map((r) => r.scenario)));
report.stale = expected.filter((e) => !e.used && ranScenarios.has(e.scenario))
  .map((e) => ({ scenario: e.check ? `${e.scenario}:${e.check}` : e.scenario, reason: e.reason }));
report.ok = report.unexpected.length === 0;

if (o.json) {
  console.log(JSON.stringify(report, null, 2));
} else {
  for (const d of report.dirs) {
    console.log(`${d.dir} (${d.runs.length} runs)`);
    console.log(table(d.runs));
    console.log('');
  }
  console.log(table([{ scenario: `TOTAL (${report.runs} runs)`, ...report }]));
  const list = (title, items, fmt) => {
    if (items.length === 0) return;
    console.log(`\n${title} (${items.length}):`);
    for (const it of items) console.log(`  ${fmt(it)}`);
  };
  const one = (s) => String(s ?? '').replace(/\s+/g, ' ').slice(0, 160);
  list('Expected failures', report.expected, (p) => `${p.status} ${p.scenario}:${p.check}: ${p.reason}`);
  list('Not scored', report.notScored, (p) => `${p.status} ${p.scenario}:${p.check} (${p.reason})`);
  list('Stale expected-failure entries (nothing to excuse)', report.stale, (e) => `${e.scenario}: ${e.reason}`);
  list('Warnings (fail only with --strict)', report.otherWarnings, (p) => `${p.scenario}:${p.check}: ${one(p.message)}`);
  list(o.strict ? 'UNEXPECTED failures/warnings' : 'UNEXPECTED failures', report.unexpected,
    (p) => `${p.status} ${p.scenario}:${p.check}: ${one(p.message)}`);
  console.log(`\n${report.ok ? 'OK' : 'NOT OK'}`);
}
process.exitCode = report.ok ? 0 : 1; // not process.exit(): it would truncate piped stdout
