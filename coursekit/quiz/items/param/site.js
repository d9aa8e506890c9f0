/* type: param in the browser: a number, answered and graded as numeric's (its variants carry the drawn
   inputs' answer); loaded after numeric/site.js. */
(function (T) {
  "use strict";
  T.register("param", T.get("numeric"));
})(globalThis.CourseQuizTypes);
