/* This browser's progress store: localStorage, in coursekit/progress.py's format, so a file exported
   here is read by `course progress --import` and one from `course progress --export` here. A store
   that cannot be read is kept aside under its own key, never dropped, and a fresh one started (as
   progress.py moves an unreadable file aside). quiz.js records into it; progress.js reports on it. */
(function () {
  "use strict";
  // one store per site: the address of the site's root (Sphinx marks each page's way to it), so two
  // course sites on one web server, or two copies opened from disk, keep their own progress
  const SITE_ROOT = new URL(document.documentElement.dataset.content_root || "./", location.href).pathname;
  const STORE_KEY = `llm-course-progress:${SITE_ROOT}`;
  const SCHEMA = 1;
  const SECTIONS = ["quizzes", "module_tests", "labs"];

  function now() {   // as Python writes it: 2026-11-25T23:24:22+00:00
    return new Date().toISOString().slice(0, 19) + "+00:00";
  }

  function randomHex(n) {
    const bytes = new Uint8Array(n);
    crypto.getRandomValues(bytes);
    return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, n);
  }

  function emptyStore() {
    return { schema: SCHEMA, learner: randomHex(12), quizzes: {}, module_tests: {}, labs: {}, recovered: [] };
  }

  function isStore(data) {
    return data && typeof data === "object" && data.schema === SCHEMA && typeof data.learner === "string"
      && SECTIONS.every((k) => data[k] && typeof data[k] === "object" && !Array.isArray(data[k]))
      && Array.isArray(data.recovered);
  }

  function loadStore() {
    /* This browser's store; one that cannot be read is kept aside (never dropped) and a fresh one started. */
    let text = null;
    try { text = localStorage.getItem(STORE_KEY); } catch (err) { return emptyStore(); }
    if (text === null) { const fresh = emptyStore(); saveStore(fresh); return fresh; }
    let data = null, error = "";
    try { data = JSON.parse(text); if (!isStore(data)) error = "not a progress store of schema 1"; } catch (err) { error = String(err); }
    if (!error) return data;
    const backup = `${STORE_KEY}.corrupt-${Date.now()}`;
    const fresh = emptyStore();
    try { localStorage.setItem(backup, text); } catch (err) { /* full: the note below still says so */ }
    fresh.recovered.push({ time: now(), backup, error });
    saveStore(fresh);
    return fresh;
  }

  function saveStore(data) {
    try { localStorage.setItem(STORE_KEY, JSON.stringify(data)); return ""; }
    catch (err) { return `(Your answer was checked but could not be saved in this browser: ${err.message})`; }
  }

  function update(change) {
    const data = loadStore();
    const result = change(data);
    const problem = saveStore(data);
    return { result, problem };
  }

  window.CourseProgressStore = { load: loadStore, update, now };
})();
