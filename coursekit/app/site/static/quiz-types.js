/* The website's table of quiz item types, as coursekit/quiz/items/registry.py is Python's: each type's
   browser code (coursekit/quiz/items/<type>/site.js, assembled into quiz-item-types.js when the site is
   built) registers itself here, and the engine and the pages call the type they look up, never
   compare its name. A type's entry:
     grade(item, variant, response)   -> {correct, feedback, explanation, response}, as its model grades
     render(view, id, ui)             the controls under the stem: set view.inputs, append to view.box
     response(view)                   the response in the controls, null when none (may throw UnreadableNumber)
     readAs(view)                     how a typed response was read ("" when nothing was typed)
     setResponse(view, response)      set the controls as a learner would
     emptyNote                        what a Check with nothing answered says (its WidgetView.empty_note) */
(function (root) {
  "use strict";
  const types = {};

  function register(name, type) {
    const missing = ["grade", "render", "response", "readAs", "setResponse", "emptyNote"].filter((k) => !(k in type));
    if (!name || name in types || missing.length) {
      throw new Error(`item type ${JSON.stringify(name)}: already registered, unnamed or missing ${missing.join(", ")}`);
    }
    types[name] = type;
  }

  function get(name) {
    if (!(name in types)) throw new Error(`no browser code for item type ${JSON.stringify(name)} (its site.js)`);
    return types[name];
  }

  const api = { register, get, names: () => Object.keys(types) };
  root.CourseQuizTypes = api;
  if (typeof module === "object" && module.exports) module.exports = api;
})(globalThis);
