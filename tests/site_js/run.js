// Runs the site's quiz and progress code in node for the parity tests (tests/site_js.py): reads one
// JSON request on stdin, writes the answers as JSON on stdout.
"use strict";
const path = require("path");
const fs = require("fs");
const STATIC = path.join(__dirname, "..", "..", "coursekit", "app", "site", "static");
require(path.join(STATIC, "quiz-types.js"));
const E = require(path.join(STATIC, "quiz-engine.js"));
// the item types' browser code, assembled as a site build does (tests/site_js.py names the file)
require(process.env.COURSE_QUIZ_TYPES);
// the progress file's validator is compiled at build time (coursekit/app/site/progress_validator.py):
// tests/site_js.py makes it once per test run and names it here
globalThis.CourseProgressValidator = require(process.env.COURSE_PROGRESS_VALIDATOR);
const P = require(path.join(STATIC, "progress.js"));
const F = require(path.join(STATIC, "progress-format.js"));

function read(text, units) {
  try {
    const r = E.readNumber(text, units);
    return { ok: true, value: r.value, how: r.how };
  } catch (err) {
    if (!(err instanceof E.UnreadableNumber)) throw err;
    return { ok: false, message: err.message };
  }
}

const request = JSON.parse(fs.readFileSync(0, "utf8"));
let out;
if (request.op === "read") {
  out = request.cases.map(([text, units]) => read(text, units));
} else if (request.op === "grade") {
  out = request.cases.map(([itemIndex, variant, kind, response]) => {
    const item = request.items[itemIndex];
    const v = item.variants[variant];
    let value = response;
    let how = "";
    if (kind === "text") {
      const r = read(response, item.units || "");
      if (!r.ok) return { unreadable: r.message };
      value = r.value;
      how = r.how;
    }
    const outcome = E.grade(item, v, value);
    const shown = E.shownFeedback(outcome);
    return { correct: outcome.correct, feedback: outcome.feedback, explanation: outcome.explanation, how,
      shown: `${shown.head} ${shown.text}` };
  });
} else if (request.op === "report") {
  out = P.courseReport(request.outline, request.data).map((m) => ({
    title: m.title, items: m.items.map((i) => [i.title, i.state, i.detail, i.next]) }));
} else if (request.op === "merge") {
  const data = request.data;
  const { added } = P.merge(data, request.incoming, request.lab_modules);
  out = { added, data };
} else if (request.op === "problems") {
  out = request.files.map(([text, name]) => { try { P.readExport(text, name); return ""; } catch (err) { return err.message; } });
} else if (request.op === "problems-of") {
  out = request.cases.map((data) => F.problems(data));
} else if (request.op === "module-test-attempts") {
  out = P.moduleTestAttempts(request.data, request.bank, request.student);
} else if (request.op === "format") {
  out = request.cases.map(([x, p, comma]) => E.formatG(x, p, comma));
} else {
  throw new Error(`unknown op ${request.op}`);
}
process.stdout.write(JSON.stringify(out));
