// Tokenizes files with the TextMate grammar given, line by line as VS Code does, and prints
// {file: [[line, start, end, scopes], ...]} as JSON.  Usage: node tokenize.js GRAMMAR FILE...
"use strict";

const fs = require("fs");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

async function main() {
  const [grammarPath, ...files] = process.argv.slice(2);
  const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async () => vsctm.parseRawGrammar(fs.readFileSync(grammarPath, "utf8"), grammarPath),
  });
  const grammar = await registry.loadGrammar("source.rulecraft");
  const out = {};
  for (const file of files) {
    let state = vsctm.INITIAL;
    const tokens = [];
    fs.readFileSync(file, "utf8").split("\n").forEach((line, number) => {
      const result = grammar.tokenizeLine(line, state);
      for (const token of result.tokens) {
        tokens.push([number, token.startIndex, token.endIndex, token.scopes]);
      }
      state = result.ruleStack;
    });
    out[file] = tokens;
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
