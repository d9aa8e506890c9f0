/* Progress in the browser: the report of coursekit/progress_report.py (states and details word for
   word) and the file reading and merge of coursekit/app/progress_transfer.py, over a store in
   coursekit/progress.py's format (checked by progress-format.js; kept by progress-store.js). No page
   code, so node runs it: tests/app/site/test_site_quiz_parity.py holds it to the Python report and merge. */
(function (root) {
  "use strict";
  const NOT_STARTED = "not started", IN_PROGRESS = "in progress", DONE = "done";
  const MEANING = "What the scores mean: a lesson quiz counts the questions right on the first try (you may try "
    + "again until right); a module test counts the answers right when you submitted it, against its "
    + "pass mark; a lab counts the tasks passing their visible tests at your best check (`course check` or `check_here()`; "
    + "in a class, your instructor grades with hidden tests as well; on your own, the visible tests are "
    + "your check).";
  const MAX_PROBLEMS = 5;
  const F = typeof module === "object" && module.exports ? require("./progress-format.js") : root.CourseProgressFormat;

  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const ratio = (a) => (a.total ? a.score / a.total : 0);

  function pyRound(v) { return Math.abs(v % 1) === 0.5 ? 2 * Math.round(v / 2) : Math.round(v); }

  function maxBy(list, key) {   // Python's max(): the first of the largest
    let best = list[0];
    for (const x of list.slice(1)) if (key(x) > key(best)) best = x;
    return best;
  }

  function attemptFinished(a) {
    const shown = a.shown || [];
    return shown.length > 0 && shown.every((i) => a.items[i] && a.items[i].correct);
  }

  function exercisesDetail(ids, revealed) {
    /* progress_report.exercises_detail: said beside the quiz, never deciding the lesson's state */
    if (!ids || !ids.length) return "";
    const done = ids.filter((i) => ((revealed[i] || {}).reveals || []).length).length;
    return `; exercises: ${done} of ${ids.length} answered and revealed`;
  }

  function lessonItem(title, path, attempts, exercises) {
    const item = quizItem(title, path, attempts);
    return { ...item, detail: item.detail + (exercises || "") };
  }

  function quizItem(title, path, attempts) {
    if (!attempts.length) return { title, path, state: NOT_STARTED, detail: "quiz not answered yet" };
    const latest = attempts[attempts.length - 1];
    const answered = Object.values(latest.items || {}).filter((v) => v.correct).length;
    const soFar = `quiz: ${answered} of ${(latest.shown || []).length} questions answered right`;
    const finished = attempts.filter(attemptFinished);
    if (!finished.length) return { title, path, state: IN_PROGRESS, detail: soFar };
    const best = maxBy(finished, (a) => a.score || 0);
    let detail = `quiz: all answered right; ${best.score || 0} of ${best.total || 0} on the first try (best of ${plural(attempts.length, "attempt")})`;
    if (!attemptFinished(latest)) detail += `; a new attempt is under way (${soFar.slice("quiz: ".length)})`;
    return { title, path, state: DONE, detail };
  }

  function testItem(title, path, attempts) {
    if (!attempts.length) return { title, path, state: NOT_STARTED, detail: "not taken yet" };
    const best = maxBy(attempts, ratio);
    const mark = `pass mark ${pyRound(100 * (best.pass_mark || 0))}%`;
    const state = attempts.some((a) => a.passed) ? DONE : IN_PROGRESS;
    const verdict = state === DONE ? "passed" : "not passed yet";
    return { title, path, state, detail: `${verdict}: best ${best.score}/${best.total} right, ${mark} (${plural(attempts.length, "attempt")})` };
  }

  function labItem(title, path, checks) {
    if (!checks.length) return { title, path, state: NOT_STARTED, detail: "not checked yet" };
    const last = checks[checks.length - 1];
    const best = maxBy(checks, (c) => (c.total ? c.passed / c.total : 0));
    const latest = last.passed === best.passed && last.total === best.total ? ""
      : `; your latest check: ${last.passed} of ${last.total}`;
    if (best.total && best.passed === best.total) {
      return { title, path, state: DONE, detail: `all ${best.total} tasks passed their visible tests at your best check${latest}` };
    }
    return { title, path, state: IN_PROGRESS, detail: `${best.passed} of ${best.total} tasks pass their visible tests at your best check${latest}` };
  }

  function courseReport(outline, data) {
    /* progress_report.course_report over an outline exported at build time (coursekit/app/site/quizzes.py). */
    const modules = outline.map((m) => ({
      title: m.title,
      items: m.steps.map((s) => {
        const item = s.kind === "lesson" ? lessonItem(s.title, s.path, ((data.quizzes[s.key] || {}).attempts) || [],
          exercisesDetail(s.exercises, data.exercises || {}))
          : s.kind === "lab" ? labItem(s.title, s.path, ((data.labs[s.key] || {}).checks) || [])
            : testItem(s.title, s.path, ((data.module_tests[s.key] || {}).attempts) || []);
        return { ...item, href: s.href, next: false };
      }),
    }));
    const first = modules.flatMap((m) => m.items).find((i) => i.state !== DONE);
    if (first) first.next = true;
    return modules;
  }

  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" })[c]);
  }

  function reportHtml(modules, base) {
    /* progress_report.report_html, with links into the site (`base`: the way to the site's root). */
    const rows = ["<thead><tr><th scope='col'>State</th><th scope='col'>Lesson, lab or test</th>"
      + "<th scope='col'>Result</th></tr></thead>"];
    for (const m of modules) {
      const done = m.items.filter((i) => i.state === DONE).length;
      const share = m.items.length ? done / m.items.length : 0;
      rows.push(`<tbody><tr><th colspan='3' scope='rowgroup' style='text-align:left'>${esc(m.title)}: `
        + `${done} of ${m.items.length} done (${pyRound(100 * share)}%)</th></tr>`);
      for (const i of m.items) {
        const state = i.next ? `<strong>${i.state}, next</strong>` : i.state;
        rows.push(`<tr class='course-progress-${i.state.replace(" ", "-")}${i.next ? " course-progress-next" : ""}'>`
          + `<td>${state}</td><td><a href='${esc(base + i.href)}'>${esc(i.title)}</a></td><td>${esc(i.detail)}</td></tr>`);
      }
      rows.push("</tbody>");
    }
    return `<table class='course-progress-table'>${rows.join("")}</table><p class='course-progress-meaning'>${esc(MEANING)}</p>`;
  }

  // --- progress_transfer.py ------------------------------------------------------------------------

  function readExport(text, name) {
    let data;
    try { data = JSON.parse(text); } catch (err) {
      throw new Error(`${name}: not a course progress file: not valid JSON (${err.message})`);
    }
    const found = F.problems(data);
    if (found.length) {
      const more = found.length > MAX_PROBLEMS ? ` (and ${found.length - MAX_PROBLEMS} more)` : "";
      throw new Error(`${name}: not a course progress file: ${found.slice(0, MAX_PROBLEMS).join("; ")}${more}`);
    }
    return data;
  }

  const copy = (x) => JSON.parse(JSON.stringify(x));
  const sortBy = (list, key) => list.sort((a, b) => { const x = a[key] || "", y = b[key] || ""; return x < y ? -1 : x > y ? 1 : 0; });
  const testKey = (a) => JSON.stringify([a.bank ?? null, a.student ?? null, a.attempt ?? null, String(a.seed ?? "None"), a.time ?? null]);
  const revealKey = (r) => JSON.stringify([r.time ?? null, r.prediction ?? null]);
  const checkKey = (c) => JSON.stringify([c.time ?? null, c.passed ?? null, c.total ?? null]);

  // of two records of one question in one attempt, the further along: right now, then more tries
  const better = (r, h) => (Number(Boolean(r.correct)) - Number(Boolean(h.correct)) || (r.tries || 0) - (h.tries || 0)) > 0;

  function labModule(lab, labModules) {
    /* progress.lab_module: the module the outline lists the lab under (exported at build time), failing that
       its name's number */
    if (Object.prototype.hasOwnProperty.call(labModules || {}, lab)) return labModules[lab];
    const m = /^lab(\d+)/.exec(lab);
    return m ? `m${m[1]}` : "other";
  }

  function merge(data, incoming, labModules) {
    /* progress_transfer.merge: add incoming's attempts and checks to data; returns {added}. `labModules`:
       lab id -> module id, from the outline (coursekit/app/site/quizzes.py's lab_modules). */
    let added = 0;
    for (const [bank, entry] of Object.entries(incoming.quizzes)) {
      const mine = data.quizzes[bank] || (data.quizzes[bank] = { module: entry.module || "other", attempts: [] });
      if (!("module" in mine)) mine.module = entry.module || "other";
      const bySeed = new Map(mine.attempts.map((a) => [String(a.seed), a]));
      for (const attempt of entry.attempts) {
        const same = bySeed.get(String(attempt.seed));
        if (!same) { const c = copy(attempt); mine.attempts.push(c); bySeed.set(String(c.seed), c); added++; continue; }
        for (const [item, record] of Object.entries(attempt.items)) {
          const here = same.items[item];
          const further = !here || better(record, here) ? record : here;
          same.items[item] = copy(further);
        }
        same.score = same.shown.filter((i) => same.items[i] && same.items[i].first_correct).length;
        same.total = same.shown.length;
      }
      sortBy(mine.attempts, "started");
    }
    for (const [module, entry] of Object.entries(incoming.module_tests)) {
      const mine = data.module_tests[module] || (data.module_tests[module] = { attempts: [] });
      const seen = new Set(mine.attempts.map(testKey));
      for (const a of entry.attempts) if (!seen.has(testKey(a))) { mine.attempts.push(copy(a)); seen.add(testKey(a)); added++; }
      sortBy(mine.attempts, "time");
    }
    for (const [lab, entry] of Object.entries(incoming.labs)) {
      const mine = data.labs[lab] || (data.labs[lab] = { module: entry.module || labModule(lab, labModules), checks: [] });
      const seen = new Set(mine.checks.map(checkKey));
      for (const c of entry.checks) if (!seen.has(checkKey(c))) { mine.checks.push({ ...c }); seen.add(checkKey(c)); added++; }
      sortBy(mine.checks, "time");
    }
    for (const [exercise, entry] of Object.entries(incoming.exercises || {})) {
      const all = data.exercises || (data.exercises = {});
      const mine = all[exercise] || (all[exercise] = { lesson: entry.lesson, reveals: [] });
      const seen = new Set(mine.reveals.map(revealKey));
      for (const r of entry.reveals) if (!seen.has(revealKey(r))) { mine.reveals.push({ ...r }); seen.add(revealKey(r)); added++; }
      sortBy(mine.reveals, "time");
    }
    return { added };
  }

  function moduleTestAttempts(data, bank, student) {
    /* progress.module_test_attempts: one student's submitted attempts at a module test, oldest first, those
       recorded under the bank's former ids (bank.formerly, exported by quizzes.py) included */
    const ids = new Set([bank.id, ...(bank.formerly || [])]);
    const entry = data.module_tests[bank.module];
    return ((entry && entry.attempts) || []).filter((a) => ids.has(a.bank) && a.student === student);
  }

  const api = { courseReport, reportHtml, problems: F.problems, readExport, merge, moduleTestAttempts, MEANING };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.CourseProgress = api;
})(typeof self !== "undefined" ? self : this);
