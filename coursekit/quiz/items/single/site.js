/* type: single in the browser: radio buttons, graded as model.py grades (tests/app/site/test_site_quiz_parity.py). */
(function (T) {
  "use strict";
  T.register("single", {
    emptyNote: "Choose an answer first.",
    grade(item, variant, response) {
      const option = variant.options[response];
      if (!option) throw new Error(`${item.id}: choose one of the ${variant.options.length} options`);
      return { correct: option.correct, feedback: option.feedback, explanation: variant.explanation, response };
    },
    render(view, id, ui) { T.choices.render(view, id, ui, "radio", ""); },
    response(view) { const on = T.choices.checked(view); return on.length ? on[0] : null; },
    readAs() { return ""; },
    setResponse(view, response) { view.inputs.forEach((i) => { i.checked = Number(i.value) === response; }); },
  });
})(globalThis.CourseQuizTypes);
