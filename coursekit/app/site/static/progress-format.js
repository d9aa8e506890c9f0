/* What makes a file not a progress file, in a learner's words: coursekit/progress.schema.json, compiled
   by ajv at build time (progress-validator.js, CourseProgressValidator), each error told by the nearest
   `problem` the schema gives on its way to it. A port of coursekit/progress_schema.py, rule for rule;
   tests/library/progress/test_progress_schema.py holds the two to the same messages. */
(function (root) {
  "use strict";
  const STEPS = ["properties", "additionalProperties", "items"];   // the schema words that step into the data
  const MISSING = Symbol("missing");
  const isObject = (x) => x !== null && typeof x === "object" && !Array.isArray(x);

  function typeName(x) {   // Python's type(x).__name__ for what JSON holds
    if (x === MISSING) return "nothing";
    if (x === null) return "NoneType";
    if (Array.isArray(x)) return "list";
    if (typeof x === "string") return "str";
    if (typeof x === "boolean") return "bool";
    if (typeof x === "number") return Number.isInteger(x) ? "int" : "float";
    return "dict";
  }

  function valueAt(data, path) {
    for (const step of path) {
      if (typeof step === "number" && Array.isArray(data) && step >= 0 && step < data.length) data = data[step];
      else if (typeof step === "string" && isObject(data) && Object.prototype.hasOwnProperty.call(data, step)) data = data[step];
      else return MISSING;
    }
    return data;
  }

  function where(path) {   // quizzes.m1-l1.attempts[0].shown
    return path.map((s, n) => (typeof s === "number" ? `[${s}]` : `${n ? "." : ""}${s}`)).join("");
  }

  function told(node, path, data) {
    const value = valueAt(data, path);
    const found = value === MISSING ? "null" : JSON.stringify(value);
    return [path, node.problem.replace("{type}", typeName(value)).replace("{json}", found)];
  }

  function explain(schema, error, data) {
    /* The [place, problem] pairs one ajv error tells (progress_schema.explain). */
    const steps = error.schemaPath.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    const keyword = steps.pop();
    const raw = error.instancePath.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
    const dataPath = [];
    let node = schema, depth = 0, best = "problem" in node ? [node, 0] : null;
    while (steps.length && STEPS.includes(steps[0])) {
      const word = steps.shift();
      node = word === "properties" ? node[word][steps.shift()] : node[word];
      dataPath.push(word === "items" ? Number(raw[depth]) : raw[depth]);
      depth += 1;
      if ("problem" in node) best = [node, depth];
    }
    if (best === null) return [];
    const full = dataPath.concat(raw.slice(depth));
    let found = [told(best[0], full.slice(0, best[1]), data)];
    if (keyword === "required") {
      const here = valueAt(data, full);
      const props = node.properties || {};
      const has = (p) => "problem" in (props[p] || {});
      const missing = node.required.filter((p) => isObject(here) && !Object.prototype.hasOwnProperty.call(here, p));
      if (missing.some(has)) found = missing.map((p) => (has(p) ? told(props[p], full.concat([p]), data) : found[0]));
    }
    return found;
  }

  function order(schema, place) {
    /* progress_schema._order: the schema's order of members, then names, array items by number */
    let node = schema;
    return place.map((step) => {
      const members = Object.keys(node.properties || {});
      if (typeof step === "number") { node = node.items || {}; return [0, step, ""]; }
      if (members.includes(step)) { node = node.properties[step]; return [1, members.indexOf(step), ""]; }
      node = node.additionalProperties || {};
      return [2, 0, step];
    });
  }

  function compare(a, b) {   // Python's comparison of lists of tuples, then of strings
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      for (let j = 0; j < 3; j++) if (a[i][j] !== b[i][j]) return a[i][j] < b[i][j] ? -1 : 1;
    }
    return a.length - b.length;
  }

  function problems(data) {
    /* What makes `data` not a progress file, each with where it is ([] when it is one). */
    const V = root.CourseProgressValidator;
    if (V.validate(data)) return [];
    const told = new Map();
    for (const error of V.validate.errors) {
      for (const [place, problem] of explain(V.schema, error, data)) {
        const key = JSON.stringify(place);
        if (!told.has(key)) told.set(key, [place, problem, order(V.schema, place)]);
      }
    }
    let found = [...told.values()].sort((a, b) => compare(a[2], b[2]) || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    if (found.some(([place]) => place.length <= 1)) found = found.filter(([place]) => place.length <= 1);
    return found.map(([place, problem]) => (place.length ? `${where(place)}: ${problem}` : problem));
  }

  const api = { problems };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.CourseProgressFormat = api;
})(globalThis);
