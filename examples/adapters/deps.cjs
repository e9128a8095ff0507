// The exec adapter of the seed's scenario 3: the files each file it is asked about imports (relative
// imports, resolved like TypeScript: .ts, .tsx, .js, .jsx, or an index file), a file a round.
// Usage: node examples/adapters/deps.cjs ROOT   (file arguments are relative to ROOT)
const fs = require('fs');
const path = require('path');
const batch = JSON.parse(fs.readFileSync(0, 'utf8'));
const root = path.resolve(process.argv[2] || '.');
const suffixes = ['', '.ts', '.tsx', '.js', '.jsx', '/index.ts', '/index.tsx', '/index.js'];
function resolve(from, spec) {
  const base = path.join(path.dirname(path.join(root, from)), spec);
  // TypeScript's rule: "./x.js" names x.ts when x.js is not there (likewise .jsx, .mjs, .cjs)
  const typed = base.replace(/\.(m|c)?js(x?)$/, (_, m, x) => `.${m || ''}ts${x}`);
  for (const b of typed === base ? [base] : [base, typed]) {
    for (const s of suffixes) {
      const candidate = b + s;
      if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return path.relative(root, candidate);
    }
  }
  return null;
}
for (const w of batch.wants) {
  const file = path.join(root, w.args.file);
  console.log(`-- reads: ${file}`);
  const text = fs.readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:from|import)\s+['"](\.{1,2}\/[^'"]+)['"]/g)]
    .map(m => resolve(w.args.file, m[1]))
    .filter(f => f !== null);
  for (const f of new Set(found)) console.log(`file_import(${w.key}, ${JSON.stringify(f)}).`);
  console.log(`answered(${w.key}).`);
}
