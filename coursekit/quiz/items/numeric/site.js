/* type: numeric in the browser: a text box read by quiz-engine.js's readNumber (numbers.py's port),
   graded as model.py grades (tests/app/site/test_site_quiz_parity.py). */
(function (T) {
  "use strict";
  const HUNDREDFOLD = "Off by a factor of 100, the rest is right: check whether the question asks for a percent "
    + "or a fraction (39% is the fraction 0.39).";
  const engine = () => globalThis.CourseQuizEngine;

  T.register("numeric", {
    emptyNote: "Type a number first.",
    grade(item, variant, value) {
      const { within, fmt } = engine();
      const explanation = variant.explanation;
      if (within(value, variant.answer, item.tolerance)) {
        return { correct: true, feedback: variant.feedback.correct || "", explanation, response: value };
      }
      for (const [mistake, feedback] of variant.mistakes) {
        if (within(value, mistake, item.tolerance)) return { correct: false, feedback, explanation, response: value };
      }
      // percent or fraction, as model.py: a fraction where a percent is asked is right; other x100 slips are named
      if (item.units.trim() === "%" && value > 0 && value <= 1 && within(value * 100, variant.answer, item.tolerance)) {
        const read = `Read your answer as the fraction ${fmt(value)}, that is ${fmt(value * 100)}%.`;
        return { correct: true, feedback: `${variant.feedback.correct || ""} ${read}`.trim(), explanation, response: value };
      }
      if ([100, 0.01].some((k) => within(value * k, variant.answer, item.tolerance))) {
        return { correct: false, feedback: HUNDREDFOLD, explanation, response: value };
      }
      return { correct: false, feedback: variant.feedback.incorrect || "", explanation, response: value };
    },
    render(view, id, ui) {
      const item = view.item;
      const units = item.units ? `, in ${item.units}` : "";
      const row = ui.el("div", { class: "course-quiz-number-row" });
      row.append(ui.el("label", { for: `${id}-n` }, ui.escapeHtml(`Answer to question ${view.number}${units}:`)));
      view.input = ui.el("input", { type: "text", id: `${id}-n`, class: "course-quiz-number", inputmode: "decimal",
        autocomplete: "off", spellcheck: "false", placeholder: "e.g. 36500 or 0.075" });
      view.inputs = [view.input];
      row.append(view.input);
      if (item.units) row.append(ui.el("span", { class: "course-quiz-units", "aria-hidden": "true" }, ui.escapeHtml(item.units)));
      view.box.append(row);
    },
    response(view) {
      if (!view.input.value.trim()) return null;
      view.reading = engine().readNumber(view.input.value, view.item.units || "");
      return view.reading.value;
    },
    readAs(view) { return view.reading ? view.reading.how : ""; },
    setResponse(view, response) { view.input.value = engine().formatG(response, 10, true); },
  });
})(globalThis.CourseQuizTypes);
