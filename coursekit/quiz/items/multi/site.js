/* type: multi in the browser: a checkbox per option, graded as model.py grades
   (tests/app/site/test_site_quiz_parity.py). */
(function (T) {
  "use strict";

  function missed(text, feedback) {
    /* model.py's missed(): a right option left out, without its feedback's leading "Correct". */
    const rest = feedback.replace(/^(?:correct|right|yes)\b[\s.,:;!-]*/i, "");
    return `Missed, this one applies too: ${text}` + (rest ? `: ${rest}` : "");
  }

  T.register("multi", {
    emptyNote: "Choose an answer first.",
    grade(item, variant, response) {
      const chosen = new Set(response || []);
      const key = new Set(variant.options.map((o, i) => (o.correct ? i : -1)).filter((i) => i >= 0));
      const shown = variant.order;
      const lines = shown.filter((i) => chosen.has(i)).map((i) => `${variant.options[i].text}: ${variant.options[i].feedback}`);
      shown.filter((i) => key.has(i) && !chosen.has(i))
        .forEach((i) => lines.push(missed(variant.options[i].text, variant.options[i].feedback)));
      if (!chosen.size) lines.unshift("No option selected.");
      const same = chosen.size === key.size && [...chosen].every((i) => key.has(i));
      return { correct: same, feedback: lines.join("\n"), explanation: variant.explanation,
        response: [...chosen].sort((a, b) => a - b) };
    },
    render(view, id, ui) { T.choices.render(view, id, ui, "checkbox", "Select every answer that applies."); },
    response(view) { const on = T.choices.checked(view); return on.length ? on : null; },
    readAs() { return ""; },
    setResponse(view, response) { view.inputs.forEach((i) => { i.checked = response.includes(Number(i.value)); }); },
  });
})(globalThis.CourseQuizTypes);
