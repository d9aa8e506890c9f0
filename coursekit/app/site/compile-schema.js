// Compiles a JSON Schema with ajv into a standalone validator for the browser (no ajv, no eval at view
// time) and prints it as a script that sets `CourseProgressValidator` (or module.exports in node).
// Run by coursekit/app/site/progress_validator.py at build time: node compile-schema.js SCHEMA.json
"use strict";
const fs = require("fs");
const Ajv = require("ajv");
const standalone = require("ajv/dist/standalone").default;
const { _ } = require("ajv");

const schema = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, code: { source: true, esm: false } });
ajv.addKeyword({ keyword: "problem", schemaType: "string" });   // what a learner is told: read by progress-format.js
ajv.addKeyword({   // atMost: [a, b]: data[a] <= data[b] when both are numbers (coursekit/progress_schema.py's _at_most)
  keyword: "atMost",
  type: "object",
  schemaType: "array",
  code(cxt) {
    const [a, b] = cxt.schema;
    const { data } = cxt;
    cxt.fail(_`typeof ${data}[${a}] == "number" && typeof ${data}[${b}] == "number" && ${data}[${a}] > ${data}[${b}]`);
  },
});
const code = standalone(ajv, ajv.compile(schema));
if (/\brequire\(/.test(code)) throw new Error("the compiled validator needs ajv's runtime: keep the schema to keywords that compile alone");
const version = require("ajv/package.json").version;
process.stdout.write(`/* Generated at build time by coursekit/app/site/progress_validator.py: ${process.argv[2].split(/[\\/]/).pop()}
   compiled by ajv ${version} (standalone code, MIT licence: https://github.com/ajv-validator/ajv). */
(function (root, outer) {
  const module = { exports: {} };
${code}
  const api = { validate: module.exports, schema: ${JSON.stringify(schema)} };
  if (outer) outer.exports = api; else root.CourseProgressValidator = api;
})(globalThis, typeof module === "object" && module.exports ? module : null);
`);
