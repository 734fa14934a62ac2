// Validates rulecraft's JSON Schemas and documents against them with ajv in strict mode
// (draft 2020-12).  Reads one JSON object on stdin:
//   {"schemas": {NAME: SCHEMA, ...}, "documents": [{"schema": NAME, "label": TEXT, "data": DATA}, ...]}
// and prints one JSON object: {"compiled": [NAME, ...], "schema_errors": {NAME: MESSAGE},
// "invalid": [{"label": TEXT, "errors": [...]}], "checked": N}.
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const validators = {};
const schemaErrors = {};
for (const [name, schema] of Object.entries(request.schemas)) {
  // strict: every strict-mode restriction is an error (strictSchema, strictNumbers, strictTypes,
  // strictTuples, strictRequired); union types are not allowed either.
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  try {
    validators[name] = ajv.compile(schema);
  } catch (error) {
    schemaErrors[name] = String(error.message || error);
  }
}

const invalid = [];
let checked = 0;
for (const doc of request.documents) {
  const validate = validators[doc.schema];
  if (!validate) continue;
  checked += 1;
  if (!validate(doc.data)) {
    invalid.push({ label: doc.label, errors: validate.errors.slice(0, 10) });
  }
}
process.stdout.write(
  JSON.stringify({ compiled: Object.keys(validators), schema_errors: schemaErrors, invalid, checked }) + "\n",
);
