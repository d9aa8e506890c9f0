/* What single and multi share in the browser (choice.py's twin): the options as labelled inputs in the
   variant's order, each with its letter, and which of them are checked. */
(function (T) {
  "use strict";
  T.choices = {
    render(view, id, ui, inputType, hint) {
      const list = ui.el("div", { class: "course-quiz-options" });
      if (hint) list.append(ui.el("p", { class: "course-quiz-multi-hint" }, hint));
      view.inputs = view.variant.order.map((index, pos) => {
        const input = ui.el("input", { type: inputType, name: id, id: `${id}-${pos}`, value: index });
        const label = ui.el("label", { class: "course-quiz-option", for: `${id}-${pos}` });
        label.append(input, ui.el("span", {}, `${ui.LETTERS[pos]}. ${ui.toHtml(view.variant.options[index].text)}`));
        list.append(label);
        return input;
      });
      view.box.append(list);
    },
    checked: (view) => view.inputs.filter((i) => i.checked).map((i) => Number(i.value)),
  };
})(globalThis.CourseQuizTypes);
