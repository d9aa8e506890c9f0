/* The site's quizzes, module tests and progress table (coursekit/app/site/quizzes.py puts their data in the
   pages). Answers are checked by quiz-engine.js, the same rules as the JupyterLab widget; progress is
   kept by progress-store.js in the JupyterLab progress store's own format and reported and imported
   by progress.js. Nothing is fetched: everything a page needs is in it. */
(function () {
  "use strict";
  const E = window.CourseQuizEngine;
  const T = window.CourseQuizTypes;      // quiz-types.js: each item type's browser code, by name
  const S = window.CourseProgressStore;   // progress-store.js: this browser's progress store
  const R = window.CourseProgress;        // progress.js: the progress report, merge and module-test attempts
  const loadStore = S.load, update = S.update, now = S.now;
  const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

  // --- seeds: a per-browser learner id, the attempt number, and a small seeded generator ---------------

  function hash32(text) {   // FNV-1a
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193); }
    return h >>> 0;
  }

  function generator(seed) {   // mulberry32
    let a = seed >>> 0;
    return function () {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function drawAttempt(bank, learner, attempt) {
    /* `show` items of the pool and one precomputed variant of each, the same for the same attempt. */
    const random = generator(hash32(`draw|${bank.id}|${learner}|${attempt}`));
    const ids = bank.pool.slice();
    for (let i = 0; i < Math.min(bank.show, ids.length); i++) {
      const j = i + Math.floor(random() * (ids.length - i));
      [ids[i], ids[j]] = [ids[j], ids[i]];
    }
    const shown = ids.slice(0, Math.min(bank.show, ids.length));
    const variants = {};
    for (const id of shown) {
      const item = bank.byId[id];
      variants[id] = hash32(`variant|${id}|${learner}|${attempt}`) % item.variants.length;
    }
    return { shown, variants };
  }

  // --- markup -------------------------------------------------------------------------------------

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" })[c]);
  }

  function toHtml(text) {   // widgets.to_html: `code`, **bold**, line breaks
    return escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>").replace(/\*\*([^*]+)\*\*/g, "<b>$1</b>")
      .replace(/\n/g, "<br>");
  }

  function el(tag, attrs, html) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v; else node.setAttribute(k, v === true ? "" : v);
    }
    if (html !== undefined) node.innerHTML = html;
    return node;
  }

  const UI = { el, toHtml, escapeHtml, LETTERS };     // what an item type's render() builds its controls with

  function feedbackHtml(outcome, { note = "", explain = false, key = "" } = {}) {
    if (!outcome) return `<div class="course-quiz-feedback course-quiz-hint">${toHtml(note)}</div>`;
    const shown = E.shownFeedback(outcome);
    const parts = [`<b>${shown.head}</b> ${toHtml(shown.text)}`];
    if (key) parts.push(`<div class="course-quiz-key"><b>Answer:</b> ${toHtml(key)}</div>`);
    if (explain) parts.push(`<div class="course-quiz-explanation"><b>Why:</b> ${toHtml(outcome.explanation)}</div>`);
    if (note) parts.push(`<div>${toHtml(note)}</div>`);
    return `<div class="course-quiz-feedback ${outcome.correct ? "course-quiz-correct" : "course-quiz-incorrect"}">${parts.join("")}</div>`;
  }

  function pct(x) {   // Python's {x:.0%} and {100 * x:.0f}: halves to even
    const v = 100 * x;
    return (Math.abs(v % 1) === 0.5 ? 2 * Math.round(v / 2) : Math.round(v)) + "%";
  }

  let uid = 0;

  class QuestionView {
    /* One question: stem as the legend of its fieldset, and its type's controls (radio buttons, checkboxes,
       a number box: the type's site.js). */
    constructor(item, variantIndex, number) {
      this.item = item;
      this.variant = item.variants[variantIndex];
      this.number = number;
      const id = `cq${++uid}`;
      this.box = el("fieldset", { class: "course-quiz-item", "data-item": item.id, "data-variant": variantIndex });
      this.box.append(el("legend", { class: "course-quiz-stem" }, `<b>${number}.</b> ${toHtml(this.variant.stem)}`));
      this.type = T.get(item.type);     // its controls, from its site.js
      this.type.render(this, id, UI);
      this.feedback = el("div", { class: "course-quiz-feedback-area", "aria-live": "polite" });
    }

    response() {
      /* The response, null when none; throws UnreadableNumber for a number it will not guess at. */
      return this.type.response(this);
    }

    readAs() { return this.type.readAs(this); }

    setResponse(response) { this.type.setResponse(this, response); }

    disable() { this.inputs.forEach((i) => { i.disabled = true; }); }
  }

  function prepare(bank) {
    bank.byId = {};
    bank.items.forEach((it) => { bank.byId[it.id] = it; });
    return bank;
  }

  // --- a lesson quiz: check each question, retry until right; first tries score ------------------------

  function allAttempts(entry) {
    return (entry && entry.attempts) || [];
  }

  function siteAttempts(entry) {
    return ((entry && entry.attempts) || []).filter((a) => a.source === "site");
  }

  class LessonQuiz {
    constructor(root, bank) {
      this.root = root;
      this.bank = prepare(bank);
      const store = loadStore();
      this.learner = store.learner;
      const all = allAttempts(store.quizzes[bank.id]);
      const latest = all[all.length - 1];
      // the latest attempt comes back after a reload, finished or not; a fresh draw is the learner's choice.
      // One imported from JupyterLab was drawn there (its own variants): a new attempt, numbered after it.
      this.number = !latest ? 1 : latest.source === "site" ? latest.attempt : this.nextNumber(store);
      this.render();
    }

    nextNumber(store) {
      // numbered after every attempt in this browser's store, JupyterLab's imported ones too, as the start page counts
      const all = allAttempts(store.quizzes[this.bank.id]);
      return Math.max(this.number || 0, all.length, ...siteAttempts(store.quizzes[this.bank.id]).map((a) => a.attempt)) + 1;
    }

    attemptRecord(store) {
      return siteAttempts(store.quizzes[this.bank.id]).find((a) => a.attempt === this.number);
    }

    render() {
      const store = loadStore();
      let saved = this.attemptRecord(store);
      if (saved && !saved.shown.every((id) => this.bank.byId[id] && (saved.variants || {})[id] < this.bank.byId[id].variants.length)) {
        // the bank changed since this attempt was drawn: its questions cannot come back, so a new attempt starts
        this.number = this.nextNumber(store);
        saved = undefined;
      }
      const draw = saved ? { shown: saved.shown, variants: saved.variants } : drawAttempt(this.bank, this.learner, this.number);
      this.draw = draw;
      this.seed = `site-${this.learner}-${this.number}`;
      this.first = {};
      this.tries = {};
      const earlier = allAttempts(store.quizzes[this.bank.id]).filter((a) => a !== saved);
      const where = (a) => (a.source === "site" ? "" : " (in JupyterLab)");
      const history = earlier.length
        ? `Attempt ${this.number}. Earlier attempts: ${earlier.map((a, n) => `#${n + 1}${where(a)}: ${a.score || 0}/${a.total || 0}`).join(", ")}.`
        : `Attempt ${this.number}.`;
      const section = el("section", { class: "course-quiz", "aria-label": this.bank.title });
      // focusable by script: a new attempt replaces the questions, and focus goes to their title
      section.append(el("h3", { class: "course-quiz-title", tabindex: "-1" }, escapeHtml(this.bank.title)));
      section.append(el("p", { class: "course-quiz-history" }, escapeHtml(history)));
      this.views = draw.shown.map((id, n) => new QuestionView(this.bank.byId[id], draw.variants[id], n + 1));
      this.views.forEach((view) => {
        const button = el("button", { type: "button", class: "course-quiz-check" }, `Check answer ${view.number}`);
        button.addEventListener("click", () => this.check(view, button));
        if (view.input) view.input.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); this.check(view, button); } });
        view.button = button;
        view.box.append(button, view.feedback);
        section.append(view.box);
      });
      const footer = el("div", { class: "course-quiz-footer" });
      this.score = el("span", { class: "course-quiz-score", "aria-live": "polite" });
      const again = el("button", { type: "button", class: "course-quiz-new", title: "Draw a new set of questions" }, "New attempt");
      again.addEventListener("click", () => this.newAttempt());
      footer.append(this.score, again);
      section.append(footer);
      if (saved) this.restore(saved);
      this.updateScore();
      this.root.replaceChildren(section);
    }

    restore(saved) {
      for (const view of this.views) {
        const record = saved.items[view.item.id];
        if (!record) continue;
        this.first[view.item.id] = Boolean(record.first_correct);
        this.tries[view.item.id] = record.tries || 1;
        const responses = record.responses || [];
        let outcome = null;
        try {
          const last = responses[responses.length - 1];
          if (last !== null && last !== undefined) { outcome = E.grade(view.item, view.variant, last); view.setResponse(last); }
        } catch (err) { outcome = null; }   // a stored answer is the learner's past, never a reason to fail
        let note = "Answered earlier in this attempt, not yet right: try again.";
        if (record.correct) { note = "Answered correctly earlier in this attempt."; view.disable(); view.button.disabled = true; }
        const explain = outcome !== null && (outcome.correct || this.tries[view.item.id] >= 2);
        view.feedback.innerHTML = feedbackHtml(outcome, { note, explain });
      }
    }

    check(view, button) {
      let response;
      try { response = view.response(); } catch (err) {
        if (!(err instanceof E.UnreadableNumber)) throw err;
        view.feedback.innerHTML = feedbackHtml(null, { note: `${err.message} This did not count as a try.` });
        return null;
      }
      if (response === null) {    // a number box is typed in, not chosen from (ItemType.empty_note)
        view.feedback.innerHTML = feedbackHtml(null, { note: view.type.emptyNote });
        return null;
      }
      const outcome = E.grade(view.item, view.variant, response);
      const id = view.item.id;
      this.tries[id] = (this.tries[id] || 0) + 1;
      if (!(id in this.first)) this.first[id] = outcome.correct;
      const problem = this.record(id, outcome);
      let note = [view.readAs(), problem].filter(Boolean).join(" ");
      if (outcome.correct) { view.disable(); button.disabled = true; }
      else {    // from the second try the explanation shows (widgets.py's AFTER_EXPLANATION)
        const again = this.tries[id] < 2 ? "Try again."
          : "The explanation below works it through: enter the answer it leads to, to finish the question.";
        note = (again + (note ? " " + note : "")).trim();
      }
      view.feedback.innerHTML = feedbackHtml(outcome, { explain: outcome.correct || this.tries[id] >= 2, note });
      this.updateScore();
      document.dispatchEvent(new CustomEvent("course-progress-changed"));
      return outcome;
    }

    record(itemId, outcome) {
      /* progress.record_quiz, for this browser's store */
      const { bank, draw, seed, number } = this;
      return update((data) => {
        const entry = data.quizzes[bank.id] || (data.quizzes[bank.id] = { module: bank.module, attempts: [] });
        entry.module = bank.module;
        let attempt = entry.attempts.find((a) => a.seed === seed);
        if (!attempt) {
          attempt = { seed, source: "site", attempt: number, started: now(), shown: draw.shown.slice(),
            variants: { ...draw.variants }, items: {} };
          entry.attempts.push(attempt);
        }
        const rec = attempt.items[itemId] || (attempt.items[itemId] = { tries: 0, first_correct: outcome.correct, correct: false, responses: [] });
        rec.tries += 1;
        rec.correct = outcome.correct;
        rec.responses.push(outcome.response);
        attempt.updated = now();
        attempt.score = attempt.shown.filter((i) => attempt.items[i] && attempt.items[i].first_correct).length;
        attempt.total = attempt.shown.length;
      }).problem;
    }

    updateScore() {
      const n = this.views.length;
      const right = Object.values(this.first).filter(Boolean).length;
      const answered = Object.keys(this.first).length;
      this.score.textContent = `Score: ${right} / ${n} right on the first try (${answered} of ${n} answered)`;
    }

    newAttempt() {
      const store = loadStore();
      this.number = this.nextNumber(store);
      this.render();
      this.root.querySelector(".course-quiz-title").focus();
    }
  }

  // --- a module test: every question answered, submitted once; feedback per question after ----------

  class ModuleTest {
    constructor(root, bank) {
      this.root = root;
      this.bank = prepare(bank);
      const store = loadStore();
      this.learner = store.learner;
      this.student = `site-${store.learner}`;
      const earlier = this.earlier(store);
      this.number = earlier.length + 1;
      if (earlier.length) this.renderHistory(earlier); else this.render();
    }

    earlier(store) {
      return R.moduleTestAttempts(store, this.bank, this.student);   // those under a former id too
    }

    renderHistory(earlier) {
      const section = el("section", { class: "course-quiz course-module-test-attempts", "aria-label": this.bank.title });
      section.append(el("h3", { class: "course-quiz-title" }, escapeHtml(this.bank.title)));
      section.append(el("p", {}, "Your submitted attempts in this browser:"));
      const list = el("ul", { class: "course-quiz-history" });
      earlier.forEach((a, n) => list.append(el("li", {}, escapeHtml(`Attempt ${a.attempt || n + 1}: ${a.score}/${a.total} `
        + `(${a.total ? pct(a.score / a.total) : "0%"}), ${a.passed ? "passed" : "not passed"}`))));
      section.append(list);
      const start = el("button", { type: "button", class: "course-quiz-start" }, `Start attempt ${this.number}`);
      start.addEventListener("click", () => { this.render(); const first = this.root.querySelector("input"); if (first) first.focus(); });
      section.append(start);
      const review = this.review(earlier[earlier.length - 1]);
      if (review) section.append(review);
      this.root.replaceChildren(section);
    }

    review(last) {
      /* The last submitted attempt's questions, answers and feedback, as after Submit (JupyterLab keeps them too). */
      const shown = last.shown || drawAttempt(this.bank, this.learner, `test-${last.attempt}`).shown;
      const variants = last.variants || {};
      if (!shown.every((id) => this.bank.byId[id] && variants[id] < this.bank.byId[id].variants.length)) return null;
      const part = el("div", { class: "course-module-test-review" });
      part.append(el("h4", {}, escapeHtml(`Review of attempt ${last.attempt}: your answers and the feedback`)));
      shown.forEach((id, n) => {
        const view = new QuestionView(this.bank.byId[id], variants[id], n + 1);
        const response = ((last.items || {})[id] || {}).response;
        let outcome = null;
        try {
          if (response !== null && response !== undefined) { view.setResponse(response); outcome = E.grade(view.item, view.variant, response); }
        } catch (err) { outcome = null; }   // a stored answer is the learner's past, never a reason to fail
        if (outcome === null) outcome = { correct: false, feedback: "Not answered.", explanation: view.variant.explanation, response: null };
        view.disable();
        view.feedback.innerHTML = feedbackHtml(outcome, { explain: true, key: view.variant.key });
        view.box.append(view.feedback);
        part.append(view.box);
      });
      return part;
    }

    render() {
      this.draw = drawAttempt(this.bank, this.learner, `test-${this.number}`);
      this.submitted = false;
      this.warned = false;
      const pass = pct(this.bank.pass_mark);
      const section = el("section", { class: "course-quiz course-module-test", "aria-label": this.bank.title });
      section.append(el("h3", { class: "course-quiz-title" }, escapeHtml(this.bank.title)));
      section.append(el("p", {}, escapeHtml(`${this.draw.shown.length} questions; pass mark ${pass}. `
        + `Answer them all, then submit once: feedback follows. Attempt ${this.number}.`)));
      this.views = this.draw.shown.map((id, n) => new QuestionView(this.bank.byId[id], this.draw.variants[id], n + 1));
      this.views.forEach((view) => { view.box.append(view.feedback); section.append(view.box); });
      this.button = el("button", { type: "button", class: "course-quiz-submit" }, "Submit test");
      this.button.addEventListener("click", () => this.submit());
      this.result = el("div", { class: "course-quiz-result", "aria-live": "polite" });
      section.append(this.button, this.result);
      this.root.replaceChildren(section);
    }

    submit() {
      if (this.submitted) return null;
      const unreadable = [];
      this.views.forEach((view, n) => {
        try { view.response(); } catch (err) {
          if (!(err instanceof E.UnreadableNumber)) throw err;
          unreadable.push(`${n + 1}: ${err.message}`);
        }
      });
      if (unreadable.length) {
        this.result.innerHTML = `<div class="course-quiz-feedback course-quiz-hint">Not submitted: fix these answers first.<br>${unreadable.map(toHtml).join("<br>")}</div>`;
        return null;
      }
      const missing = this.views.map((v, n) => (v.response() === null ? n + 1 : 0)).filter(Boolean);
      if (missing.length && !this.warned) {
        this.warned = true;
        this.result.innerHTML = `<div class="course-quiz-feedback course-quiz-hint">Unanswered: ${missing.join(", ")}. `
          + "Click Submit again to submit anyway (unanswered questions score zero).</div>";
        return null;
      }
      this.submitted = true;
      const items = {};
      for (const view of this.views) {
        const response = view.response();
        view.disable();
        const outcome = response === null
          ? { correct: false, feedback: "Not answered.", explanation: view.variant.explanation, response: null }
          : E.grade(view.item, view.variant, response);
        items[view.item.id] = { response: outcome.response, correct: outcome.correct };
        view.feedback.innerHTML = feedbackHtml(outcome, { explain: true, key: view.variant.key, note: response === null ? "" : view.readAs() });
      }
      this.button.disabled = true;
      const total = this.views.length;
      const score = Object.values(items).filter((v) => v.correct).length;
      const passed = E.passed(score, total, this.bank.pass_mark);
      const record = { time: now(), bank: this.bank.id, student: this.student, attempt: this.number,
        seed: `site-${this.learner}-test-${this.number}`, source: "site", shown: this.draw.shown.slice(), variants: { ...this.draw.variants },
        score, total, pass_mark: this.bank.pass_mark, passed, items };
      const problem = update((data) => {
        const entry = data.module_tests[this.bank.module] || (data.module_tests[this.bank.module] = { attempts: [] });
        entry.attempts.push(record);
      }).problem;
      const verdict = passed ? "passed" : `not passed (pass mark ${pct(this.bank.pass_mark)})`;
      this.result.innerHTML = `<div class="course-quiz-feedback ${passed ? "course-quiz-correct" : "course-quiz-incorrect"}">`
        + `<span class="course-quiz-score">Score: ${score} / ${total} (${total ? pct(score / total) : "0%"}): ${verdict}</span> ${toHtml(problem)}</div>`;
      document.dispatchEvent(new CustomEvent("course-progress-changed"));
      return { score, total, passed };
    }
  }

  // --- progress: the report of coursekit/progress_report.py, from this browser's store ----------------

  // An exercise's form (coursekit/exercises/page.py) says when a worked answer is revealed; the store
  // keeps it as the JupyterLab widget does (progress.record_exercise), for the progress table.
  document.addEventListener("course-exercise-revealed", (event) => {
    const r = event.detail || {};
    update((data) => {
      const all = data.exercises || (data.exercises = {});
      const entry = all[r.id] || (all[r.id] = { lesson: r.lesson, reveals: [] });
      entry.reveals.push({ time: now(), prediction: r.prediction, answer: r.answer,
        off_pct: Math.round(r.off_pct * 1000) / 1000, close: r.close });
    });
    document.dispatchEvent(new CustomEvent("course-progress-changed"));
  });

  function progressBlock(root, outline, labModules, withTransfer) {
    const table = el("div", { class: "course-progress" });
    const status = el("p", { class: "course-progress-status", role: "status" });
    const draw = () => {
      const store = loadStore();
      const base = document.documentElement.dataset.content_root || "";   // links relative to this page
      const notes = store.recovered.map((n) => `<p class="course-progress-note">Progress this browser could not read was kept aside as ${escapeHtml(n.backup)} (${escapeHtml(n.error)}).</p>`).join("");
      // localStorage belongs to one address: the site opened from its folder and served over HTTP keep
      // separate progress, and a learner who switched saw zero with no reason why
      const empty = ["quizzes", "module_tests", "labs", "exercises"].every((k) => !Object.keys(store[k] || {}).length);
      const where = `<p class="course-progress-where">${empty ? "Nothing is recorded at this address yet. " : ""}`
        + "Progress is kept in this browser for this site's address only: the site opened from its folder and "
        + "the same site served over HTTP (or from another address) each keep their own. To carry it over, "
        + "export it there and import it here (the buttons on the start page).</p>";
      table.innerHTML = notes + where + R.reportHtml(R.courseReport(outline, store), base);
    };
    root.replaceChildren(table);
    if (withTransfer) {
      const tools = el("div", { class: "course-progress-tools" });
      const save = el("button", { type: "button", class: "course-progress-export" }, "Export progress to a file");
      save.addEventListener("click", () => {
        const blob = new Blob([JSON.stringify(loadStore(), null, 1)], { type: "application/json" });
        const link = el("a", { href: URL.createObjectURL(blob), download: "course-progress.json" });
        document.body.append(link);
        link.click();
        link.remove();
        status.textContent = "Saved course-progress.json: `course progress --import course-progress.json` adds it to JupyterLab's progress.";
      });
      const label = el("label", { for: "course-progress-import", class: "course-progress-import-label" }, "Import progress from a file (from <code>course progress --export</code> or another browser):");
      const input = el("input", { type: "file", id: "course-progress-import", accept: ".json,application/json" });
      input.addEventListener("change", async () => {
        const file = input.files && input.files[0];
        if (!file) return;
        const text = await file.text();
        try {
          const incoming = R.readExport(text, file.name);
          const { result } = update((data) => R.merge(data, incoming, labModules));
          status.textContent = `Imported ${file.name}: ${result.added} attempt(s) and check(s) added, best results kept.`;
          document.dispatchEvent(new CustomEvent("course-progress-changed"));
        } catch (err) {
          status.textContent = err.message;
        }
        input.value = "";
      });
      tools.append(save, label, input);
      root.append(tools);
    }
    root.append(status);
    draw();
    document.addEventListener("course-progress-changed", draw);
  }

  function start() {
    for (const root of document.querySelectorAll(".course-site-quiz")) {
      const data = JSON.parse(root.querySelector("script.course-quiz-data").textContent);
      const mount = el("div", { class: "course-quiz-mount" });
      root.append(mount);
      if (data.kind === "module-test") new ModuleTest(mount, data); else new LessonQuiz(mount, data);
    }
    for (const root of document.querySelectorAll(".course-site-progress")) {
      const outline = JSON.parse(root.querySelector("script.course-outline-data").textContent);
      const labModules = JSON.parse(root.querySelector("script.course-lab-modules").textContent);
      const mount = el("div", { class: "course-progress-mount" });
      root.append(mount);
      progressBlock(mount, outline, labModules, !root.dataset.module);
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();
