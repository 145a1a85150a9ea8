// Preload for inspector.sh (node --import), fixing two things in
// @modelcontextprotocol/inspector-cli 1.0.3 build/index.js:
//
// 1. callMethod() checks fs.existsSync("../package.json") relative to the *cwd*
//    but import()s it relative to the *module*; from a cwd whose parent has no
//    package.json it imports node_modules/@modelcontextprotocol/package.json and
//    dies. Relative to the module, "../package.json" is always inspector-cli's
//    own package.json, so we answer that one probe with true. (Changing the cwd
//    instead would break relative stdio targets, which the child inherits.)
//
// 2. build/index.js needs the target before any "--" (commander's <target...>),
//    so `--method tools/list -- bin/everything --stdio` fails with "missing
//    required argument 'target'". When the arguments start with an option and
//    contain "--", we move the first word after "--" to the front:
//    `bin/everything --method tools/list -- --stdio` (index.js appends the rest).
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const existsSync = fs.existsSync;
fs.existsSync = (p) => p === '../package.json' || existsSync(p);
syncBuiltinESMExports(); // build/index.js uses `import * as fs from "fs"`

const argv = process.argv; // [node, build/index.js, ...args]
const sep = argv.indexOf('--', 2);
if (sep > 2 && argv[2].startsWith('-') && sep + 1 < argv.length) {
  const [target] = argv.splice(sep + 1, 1);
  argv.splice(2, 0, target);
}
