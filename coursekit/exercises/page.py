"""An exercise as a self-contained HTML form: what the website shows where JupyterLab shows the widget.

The exercise cell's output carries this as its text/html (view.py), so `course site` renders it from
the executed notebook like any other output; the site's conf.py prefers text/html to a widget view
(coursekit/app/site/build.py), since no kernel serves the widget there. The script is inline and fetches
nothing; it reads numbers like coursekit/quiz/numbers.py (separators, decimal comma, 1.2e9,
x 10^9, k/M/bn and scale words, the exercise's units) and writes the same comparison sentence as
bank.compare. It lives here, in a .py file, so a change to it re-executes the site's cached lessons
(coursekit/app/site/execute.py fingerprints coursekit's .py files).
"""
from __future__ import annotations

import html
import json

from ..quiz import numbers
from .bank import Exercise

STYLE = """<style>
.course-exercise { border: 1px solid var(--jp-border-color2, #bbb); border-left: 4px solid var(--jp-brand-color1, #1565c0);
  border-radius: 4px; padding: 6px 12px; margin: 8px 0; }
/* the theme may give an output a background of its own (light even in dark mode): the heading keeps the
   output's text colour instead of the theme's heading colour, so it reads on either */
.course-exercise h3 { margin: 0.2em 0; font-size: 1.1em; color: inherit; }
.course-exercise-source { font-size: 0.9em; }
.course-exercise input[type=text] { min-width: 16em; padding: 2px 4px; }
.course-exercise button { margin: 4px 6px 4px 0; padding: 3px 10px; cursor: pointer; }
.course-exercise button:disabled { cursor: not-allowed; opacity: 0.6; }
.course-exercise input:focus-visible, .course-exercise button:focus-visible { outline: 2px solid #1565c0; outline-offset: 1px; }
.course-exercise-feedback:empty { display: none; }
.course-exercise-feedback, .course-exercise-worked { padding: 4px 8px; margin: 4px 0;
  border-left: 4px solid #888; background: rgba(127, 127, 127, 0.08); }
</style>"""

SCRIPT = r"""<script>
(function () {
  if (!window.courseExercises) {
    // coursekit/quiz/numbers.py's own tables, written in when this module is imported
    var SUFFIX = __SUFFIX__, WORDS = __WORDS__, SAME = __SAME__, PER = __PER__;
    function words(text) {
      var out = [];
      text.replace("US$", "$").replace(/per cent/g, "percent").replace(/([\/$%\u00d7])/g, " $1 ").split(/\s+/).forEach(function (w) {
        w = w.replace(/^[.,;:()]+|[.,;:()]+$/g, "").toLowerCase();
        if (!w) { return; }
        if (PER[w]) { out.push.apply(out, PER[w]); return; }
        if (w.length > 3 && /s$/.test(w) && !/ss$/.test(w)) { w = w.slice(0, -1); }
        out.push(SAME.hasOwnProperty(w) ? SAME[w] : w);
      });
      return out;
    }
    function grouped(s, sep) { return new RegExp("^[1-9]\\d{0,2}(?:\\" + sep + "\\d{3})+$").test(s); }
    function plain(body) {
      if (body.indexOf(" ") >= 0) { return body.replace(/ /g, "").replace(",", "."); }
      var commas = (body.match(/,/g) || []).length, dots = (body.match(/\./g) || []).length;
      if (commas && dots) {
        var point = body.lastIndexOf(",") > body.lastIndexOf(".") ? "," : ".", group = point === "," ? "." : ",";
        var at = body.lastIndexOf(point), whole = body.slice(0, at), frac = body.slice(at + 1);
        if (!grouped(whole, group) || !/^\d+$/.test(frac)) { return null; }
        return whole.split(group).join("") + "." + frac;
      }
      if (commas || dots > 1) {
        var sep = commas ? "," : ".";
        if (grouped(body, sep)) { return body.split(sep).join(""); }
        var parts = body.split(",");
        if (commas === 1 && /^\d+$/.test(parts[0]) && /^\d+$/.test(parts[1])) { return parts[0] + "." + parts[1]; }
        return null;
      }
      return body;
    }
    // The number a learner typed, in the exercise's units, or an Error whose message says what to type.
    function read(text, units) {
      var raw = text.trim(), unit = units ? " (in " + units + ")" : "";
      var advice = "Could not read '" + raw + "' as a number" + unit + ". Type digits, e.g. 36500, 36,500, " +
        "1.2e9 or 0.075; a decimal comma works too (0,075).";
      if (!raw) { return new Error("Type your prediction first" + unit + ", then commit it."); }
      var t = raw.replace(/[\u00a0\u202f\u2009\u2007]/g, " ").replace(/\u2212/g, "-").replace(/_/g, "");
      var m = /^([+-]?)\s*((?:US\s?)?\$)?\s*(\d{1,3}(?: \d{3})+(?:[.,]\d+)?(?!\d)|[\d.,]*\d|[.,]\d+)(\s*[eE][+-]?\d+|\s*[x\u00d7*]\s*10\s*\^\s*[+-]?\d+)?(.*)$/.exec(t);
      if (!m) { return new Error(advice); }
      var body = plain(m[3]);
      if (body === null) { return new Error(advice); }
      var exp = m[4] ? /([+-]?\d+)\s*$/.exec(m[4])[1] : "0";
      var value = parseFloat(body) * Math.pow(10, parseInt(exp, 10));
      if (m[1] === "-") { value = -value; }
      var rest = m[5].trim(), allowed = words(units || "");
      // units that carry their own scale ("billion tokens per day"): "47B" is 47 of them
      var scale = allowed.length && WORDS[allowed[0]] ? WORDS[allowed[0]] : 1;
      var head = /^([A-Za-z]+)\b\s*(.*)$/.exec(rest);
      if (head && allowed.indexOf(words(head[1])[0]) < 0) {
        var factor = SUFFIX[head[1]] || WORDS[head[1].toLowerCase().replace(/s$/, "")];
        if (factor) { value *= factor / scale; rest = head[2]; }
      }
      var given = words(rest);
      // numbers.py: a percent where the exercise has no units (a fraction) is that fraction ("12%": 0.12)
      if (!allowed.length && !m[2] && given.length === 1 && given[0] === "%" && isFinite(value)) { return value / 100; }
      if (m[2]) { given.push("$"); }
      // numbers.py's _subsequence: the typed unit words in the units' order; one currency sign, anywhere
      var dollars = given.filter(function (w) { return w === "$"; }).length, at = 0;
      var ok = dollars <= 1 && !(dollars && allowed.length && allowed.indexOf("$") < 0);
      var order = allowed.filter(function (w) { return w !== "$"; });
      given.filter(function (w) { return w !== "$"; }).forEach(function (w) {
        while (at < order.length && order[at] !== w) { at++; }
        if (at >= order.length) { ok = false; } else { at++; }
      });
      if (!ok) {
        return new Error("Could not read '" + raw + "' as a number" + unit + ": type the number alone, or " +
          "with the exercise's units" + (units ? " (" + units + ")" : "") + ".");
      }
      if (!isFinite(value)) { return new Error(advice); }
      return value;
    }
    function pct(x) { return Math.abs(x).toLocaleString("en-US", {minimumFractionDigits: 1, maximumFractionDigits: 1}); }
    function init(box) {
      if (box.getAttribute("data-ready")) { return; }
      box.setAttribute("data-ready", "1");
      var input = box.querySelector("input"), commit = box.querySelector(".course-exercise-commit");
      var reveal = box.querySelector(".course-exercise-reveal"), feedback = box.querySelector(".course-exercise-feedback");
      var worked = box.querySelector(".course-exercise-worked"), result = box.querySelector(".course-exercise-result");
      var units = box.getAttribute("data-units"), answer = parseFloat(box.getAttribute("data-answer"));
      var tolerance = parseFloat(box.getAttribute("data-tolerance")), committed = null, typed = "";
      function doCommit() {
        if (committed !== null) { return; }
        var value = read(input.value, units);
        if (value instanceof Error) { feedback.textContent = value.message + " Nothing was committed."; return; }
        committed = value; typed = input.value.trim();
        input.readOnly = true; commit.disabled = true; reveal.disabled = false;
        feedback.textContent = "Committed: " + typed + ". Now reveal the worked answer.";
        reveal.focus();
      }
      commit.addEventListener("click", doCommit);
      input.addEventListener("keydown", function (e) { if (e.key === "Enter") { e.preventDefault(); doCommit(); } });
      reveal.addEventListener("click", function () {
        if (committed === null) { feedback.textContent = "Commit a prediction first: the worked answer opens after you commit one."; return; }
        var off = (committed - answer) / Math.abs(answer) * 100, close = Math.abs(off) <= tolerance * 100;
        var where = Math.abs(off) < 0.05 ? "matches the worked answer" :
          "is " + pct(off) + "% " + (off > 0 ? "above" : "below") + " the worked answer";
        var tol = Math.round(tolerance * 100) + "%";
        var hundredfold = !close && [100, 0.01].some(function (k) {
          return Math.abs(committed * k - answer) <= tolerance * Math.abs(answer); });
        var verdict = close ? "within the " + tol + " this exercise counts as close." : hundredfold ?
          "outside the " + tol + " this exercise counts as close, but only by a factor of 100: a fraction " +
          "where a percent is asked, or the reverse?" :
          "outside the " + tol + " this exercise counts as close: compare your steps with the worked answer.";
        result.textContent = "Your prediction, " + typed + ", " + where + ", " + box.getAttribute("data-answer-text") + ": " + verdict;
        worked.hidden = false; reveal.disabled = true; feedback.textContent = "";
        worked.setAttribute("tabindex", "-1"); worked.focus();
        box.dispatchEvent(new CustomEvent("course-exercise-revealed", {bubbles: true, detail: {
          id: box.getAttribute("data-exercise"), lesson: box.getAttribute("data-lesson"), prediction: committed,
          answer: answer, off_pct: off, close: close}}));
      });
    }
    window.courseExercises = {read: read, init: init};
  }
  document.querySelectorAll(".course-exercise").forEach(window.courseExercises.init);
})();
</script>"""
SCRIPT = (SCRIPT.replace("__SUFFIX__", json.dumps(numbers.SCALE_SUFFIXES)).replace("__WORDS__", json.dumps(numbers.SCALE_WORDS))
          .replace("__SAME__", json.dumps(numbers.SAME)).replace("__PER__", json.dumps(numbers.PER_WORDS)))


def exercise_html(ex: Exercise, prompt_html: str, worked_html: str) -> str:
    """The form: prompt, a labelled text box, Commit, Reveal (enabled after a commit) and the hidden answer."""
    key = html.escape(ex.id)
    unit = f", in {ex.units}" if ex.units else ""
    attrs = {"data-exercise": ex.id, "data-lesson": ex.lesson, "data-units": ex.units, "data-answer": repr(ex.answer),
             "data-answer-text": ex.answer_text, "data-tolerance": repr(ex.tolerance)}
    attr_text = " ".join(f'{k}="{html.escape(v)}"' for k, v in attrs.items())
    return (f'{STYLE}<div class="course-exercise mathjax_ignore tex2jax_ignore" {attr_text}>{prompt_html}'
            f'<label for="course-exercise-{key}">Your prediction{html.escape(unit)}:</label> '
            f'<input type="text" id="course-exercise-{key}" autocomplete="off" placeholder="e.g. 36500 or 1.2e9"> '
            '<button type="button" class="course-exercise-commit">Commit my answer</button>'
            '<button type="button" class="course-exercise-reveal" disabled>Reveal the worked answer</button>'
            '<div class="course-exercise-feedback" role="status" aria-live="polite"></div>'
            f'<div class="course-exercise-worked" hidden><p class="course-exercise-result"></p>{worked_html}</div>'
            f'</div>{SCRIPT}')

