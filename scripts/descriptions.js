// Prints the description of every node and credential in a built dist/ as JSON (node scripts/descriptions.js [dist]):
// a refactor that must not change what n8n shows compares this output before and after.
const path = require('path'); const fs = require('fs');
const root = path.resolve(process.argv[2] || 'dist');
const files = [];
(function walk(d) { for (const f of fs.readdirSync(d)) { const p = path.join(d, f); if (fs.statSync(p).isDirectory()) walk(p); else if (/\.(node|credentials)\.js$/.test(f)) files.push(p); } })(root);
const out = {};
for (const f of files.sort()) {
  const mod = require(f);
  for (const [name, Cls] of Object.entries(mod)) {
    if (typeof Cls !== 'function') continue;
    const inst = new Cls();
    const d = inst.description ?? { name: inst.name, displayName: inst.displayName, properties: inst.properties, authenticate: inst.authenticate, test: inst.test, documentationUrl: inst.documentationUrl, icon: inst.icon };
    out[path.relative(root, f).replace(/\\/g, '/').replace(/^.*\//, '') + ':' + name] = { description: d, methods: inst.methods ? Object.fromEntries(Object.entries(inst.methods).map(([k, v]) => [k, Object.keys(v).sort()])) : undefined };
  }
}
process.stdout.write(JSON.stringify(out, (k, v) => typeof v === 'function' ? "[function]" : v, 2));
