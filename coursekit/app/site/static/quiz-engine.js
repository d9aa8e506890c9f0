/* The course's quiz rules in the browser: a port of coursekit/quiz/numbers.py (read_number) and of
   coursekit/quiz/engine.py (grade, handed to the item's type: quiz-types.js; within) and the widget's feedback, with no page code, so node runs it
   too: tests/app/site/test_site_quiz_parity.py holds it to the Python engine's verdict, feedback and messages
   for every item of every bank. Keep the two in step: a change to one is a change to the other. */
(function (root) {
  "use strict";

  const MAX_CHARS = 100;
  const SCALE_WORDS = { thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };
  const SCALE_SUFFIXES = { k: 1e3, K: 1e3, M: 1e6, MM: 1e6, mn: 1e6, B: 1e9, bn: 1e9, Bn: 1e9, BN: 1e9,
    T: 1e12, tn: 1e12 };
  const SAME = { dollar: "$", usd: "$", "us$": "$", buck: "$", "/": "per", a: "per", an: "per", each: "per",
    percent: "%", pct: "%", times: "x", "\u00d7": "x", fold: "x",
    second: "s", sec: "s", millisecond: "ms", msec: "ms", minute: "min", hour: "h", hr: "h",
    yr: "year", annum: "year", d: "day", gigabyte: "gb", terabyte: "tb", megabyte: "mb",
    kilobyte: "kb", gibibyte: "gib", kibibyte: "kib", tok: "token", param: "parameter",
    hrs: "h", secs: "s", mins: "min", yrs: "year", k: "thousand", m: "million", mn: "million",
    bn: "billion", b: "byte" };
  const PER_WORDS = { daily: ["per", "day"], yearly: ["per", "year"], annually: ["per", "year"],
    hourly: ["per", "h"], monthly: ["per", "month"], weekly: ["per", "week"] };
  // str.isspace() in Python: what str.strip() and str.split() take away (JavaScript's \s differs)
  const PY_WS = "[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
  const PY_SPACE = new RegExp("^" + PY_WS + "+|" + PY_WS + "+$", "g");
  const PY_SPLIT = new RegExp(PY_WS + "+");
  const has = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);

  class UnreadableNumber extends Error {}

  // --- Python's str and float formatting, as the messages use them --------------------------------

  const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

  function pyRepr(text) {
    /* repr() of a str: quotes chosen as Python does, escapes for what str.isprintable() refuses. */
    const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
    let out = "";
    for (const ch of text) {
      const cp = ch.codePointAt(0);
      if (ch === quote || ch === "\\") out += "\\" + ch;
      else if (ch === "\t") out += "\\t";
      else if (ch === "\n") out += "\\n";
      else if (ch === "\r") out += "\\r";
      else if (ch !== " " && NOT_PRINTABLE.test(ch)) {
        const hex = cp.toString(16);
        out += cp < 0x100 ? "\\x" + hex.padStart(2, "0") : cp < 0x10000 ? "\\u" + hex.padStart(4, "0")
          : "\\U" + hex.padStart(8, "0");
      } else out += ch;
    }
    return quote + out + quote;
  }

  function exactDigits(x) {
    /* The exact decimal value of a finite double > 0: [digit string, exponent of its first digit]. */
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, x);
    const hi = view.getUint32(0), lo = view.getUint32(4);
    const biased = (hi >>> 20) & 0x7ff;
    let mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
    let exp2;
    if (biased === 0) exp2 = -1074;
    else { mantissa |= 1n << 52n; exp2 = biased - 1075; }
    let digits, point;      // value = 0.digits x 10^point ... kept as digits and the place of the point
    if (exp2 >= 0) { digits = (mantissa << BigInt(exp2)).toString(); point = digits.length; }
    else {
      digits = (mantissa * 5n ** BigInt(-exp2)).toString();   // x = digits / 10^-exp2
      point = digits.length + exp2;
    }
    const stripped = digits.replace(/^0+/, "");
    point -= digits.length - stripped.length;
    return [stripped, point - 1];
  }

  function roundDigits(digits, exp, keep) {
    /* digits rounded to `keep` significant digits, half to even on the exact value (as Python does). */
    if (digits.length <= keep) return [digits.padEnd(keep, "0"), exp];
    let head = BigInt(digits.slice(0, keep));
    const next = digits[keep], rest = digits.slice(keep + 1);
    const up = next > "5" || (next === "5" && (/[1-9]/.test(rest) || head % 2n === 1n));
    if (up) head += 1n;
    let text = head.toString();
    if (text.length > keep) { text = text.slice(0, keep); exp += 1; }
    return [text, exp];
  }

  function group(intText, comma) {
    return comma ? intText.replace(/\B(?=(\d{3})+(?!\d))/g, ",") : intText;
  }

  function formatG(x, precision, comma) {
    /* format(x, ",.{precision}g") / format(x, ".{precision}g") for a finite float. */
    const sign = x < 0 || Object.is(x, -0) ? "-" : "";
    x = Math.abs(x);
    if (x === 0) return sign + "0";
    const [raw, rawExp] = exactDigits(x);
    const [digits, exp] = roundDigits(raw, rawExp, precision);
    const trim = (intPart, frac) => { frac = frac.replace(/0+$/, ""); return group(intPart, comma) + (frac ? "." + frac : ""); };
    if (exp < -4 || exp >= precision) {
      const e = Math.abs(exp).toString().padStart(2, "0");
      return sign + trim(digits[0], digits.slice(1)) + "e" + (exp < 0 ? "-" : "+") + e;
    }
    if (exp < 0) return sign + trim("0", "0".repeat(-exp - 1) + digits);
    return sign + trim(digits.slice(0, exp + 1), digits.slice(exp + 1));
  }

  const fmt = (x) => formatG(x, 10, true);

  // --- numbers.py --------------------------------------------------------------------------------

  function scaleOf(word) {
    const lower = word.toLowerCase();
    const bare = lower.endsWith("s") ? lower.slice(0, -1) : lower;
    return (has(SCALE_WORDS, bare) ? SCALE_WORDS[bare] : 0) || (has(SCALE_SUFFIXES, word) ? SCALE_SUFFIXES[word] : 0);
  }

  function withUnits(number, units) {
    if (units.startsWith("$")) return "$" + number + units.slice(1);
    if (units === "%") return number + "%";
    return units ? number + " " + units : number;
  }

  function pyStrip(text, chars) {
    let start = 0, end = text.length;
    while (start < end && chars.includes(text[start])) start++;
    while (end > start && chars.includes(text[end - 1])) end--;
    return text.slice(start, end);
  }

  function words(text) {
    const spaced = text.replaceAll("US$", "$").replaceAll("per cent", "percent").replace(/([/$%\u00d7])/g, " $1 ");
    const out = [];
    for (const raw of spaced.split(PY_SPLIT)) {
      let word = pyStrip(raw, ".,;:()").toLowerCase();
      if (!word) continue;
      if (has(PER_WORDS, word)) { out.push(...PER_WORDS[word]); continue; }
      if ([...word].length > 3 && word.endsWith("s") && !word.endsWith("ss")) word = word.slice(0, -1);
      out.push(has(SAME, word) ? SAME[word] : word);
    }
    return out;
  }

  function questionUnits(units) {
    const power = /^\s*[x\u00d7*]\s*10\s*\^\s*([+-]?\d+)\s*(.*)$/.exec(units);
    if (power) {
      const n = parseInt(power[1], 10);
      return [Number("1e" + n), "x 10^" + power[1], words(power[2])];
    }
    const w = words(units);
    if (w.length && has(SCALE_WORDS, w[0])) return [SCALE_WORDS[w[0]], w[0], w.slice(1)];
    return [1.0, "", w];
  }

  function subsequence(given, allowed) {
    const dollars = given.filter((w) => w === "$").length;
    if (dollars > 1 || (dollars && !allowed.includes("$") && allowed.length)) return false;
    const rest = given.filter((w) => w !== "$");
    const pool = allowed.filter((w) => w !== "$");
    let i = 0;
    return rest.every((w) => { while (i < pool.length) { if (pool[i++] === w) return true; } return false; });
  }

  const WS = "[ \\t\\n\\r\\f\\v]";   // Python's \s under re.ASCII
  const NUMBER = new RegExp("^([+-]?)" + WS + "*((?:US" + WS + "?)?\\$|USD" + WS + ")?" + WS + "*([+-]?)" + WS + "*"
    + "(\\d{1,3}(?: \\d{3})+(?:[.,]\\d+)?(?!\\d)|[\\d.,]*\\d|[.,]\\d+)"
    + "(" + WS + "*[eE][+-]?\\d+|" + WS + "*[x\u00d7*]" + WS + "*10" + WS + "*\\^" + WS + "*[+-]?\\d+)?"
    + "([\\s\\S]*)$");
  const DIGIT = /\p{Nd}/u;
  // a scale word or suffix after the number: Python's \b is Unicode-aware, so no letter may follow
  const HEAD = new RegExp("^([A-Za-z]+)(?![\\p{L}\\p{N}_])" + PY_WS + "*([\\s\\S]*)$", "u");

  function toAsciiDigits(raw) {
    const cps = [...raw].map((c) => c.codePointAt(0));
    return cps.map((cp, i) => {
      const ch = String.fromCodePoint(cp);
      if (cp < 128 || !DIGIT.test(ch)) return ch;
      // the digit's value: how far it is from the start of its run of 10 (runs of digits are 0..9)
      let start = cp;
      while (DIGIT.test(String.fromCodePoint(start - 1))) start--;
      return String((cp - start) % 10);
    }).join("");
  }

  function exponent(exp) {
    if (!exp) return "";
    return "e" + /([+-]?\d+)[ \t\n\r\f\v]*$/.exec(exp)[1];
  }

  const ARABIC_DECIMAL = "\u066b";

  function arabicPoint(text, raw, units) {
    /* The Arabic decimal separator as ".", only ever a decimal point (numbers.py _arabic_point). */
    const at = text.indexOf(ARABIC_DECIMAL);
    if (at < 0) return text;
    const whole = text.slice(0, at), frac = text.slice(at + 1);
    if (frac.includes(ARABIC_DECIMAL) || text.includes(".") || frac.includes(",")) {
      throw new UnreadableNumber(advice(raw, units));
    }
    return whole + "." + frac;
  }

  function grouped(digits, sep) {
    const s = sep === "." ? "\\." : sep;
    return new RegExp("^[1-9]\\d{0,2}(?:" + s + "\\d{3})+$").test(digits);
  }

  function plainDecimal(body, raw, units) {
    if (body.includes(" ")) return body.replaceAll(" ", "").replaceAll(",", ".");
    const commas = body.split(",").length - 1, dots = body.split(".").length - 1;
    if (commas && dots) {
      const point = body.lastIndexOf(",") > body.lastIndexOf(".") ? "," : ".";
      const grp = point === "," ? "." : ",";
      const at = body.lastIndexOf(point);
      const whole = body.slice(0, at), frac = body.slice(at + 1);
      if (!grouped(whole, grp) || !/^\d+$/.test(frac)) throw new UnreadableNumber(advice(raw, units));
      return whole.replaceAll(grp, "") + "." + frac;
    }
    if (commas || dots > 1) {
      const sep = commas ? "," : ".";
      if (grouped(body, sep)) return body.replaceAll(sep, "");
      const at = body.indexOf(",");
      const whole = at < 0 ? body : body.slice(0, at), frac = at < 0 ? "" : body.slice(at + 1);
      if (commas === 1 && /^\d+$/.test(whole) && /^\d+$/.test(frac)) return whole + "." + frac;
      throw new UnreadableNumber(advice(raw, units));
    }
    return body;
  }

  function advice(raw, units, unitProblem) {
    const unit = units ? ` (in ${units})` : "";
    if (unitProblem) {
      return `Could not read ${pyRepr(raw)} as a number${unit}: ` + (units
        ? `the question asks in ${units}; type the number alone, or with those units, a currency sign or k/M/thousand/million.`
        : "this question has no units; type the number alone.");
    }
    return `Could not read ${pyRepr(raw)} as a number${unit}. Type digits, e.g. 36500, 36,500 or 0.075; `
      + "a decimal comma works too (0,075).";
  }


  function pyFloat(text) {
    /* float() of what _plain_decimal and _exponent built: digits, one point, an exponent. */
    if (!/^(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(text)) return NaN;
    return Number(text);
  }

  function readNumber(answer, units) {
    /* {value, how} of a typed answer in the question's units; throws UnreadableNumber with a message. */
    units = units || "";
    if (typeof answer === "number") {
      if (!Number.isFinite(answer)) {
        const name = Number.isNaN(answer) ? "nan" : answer > 0 ? "inf" : "-inf";
        throw new UnreadableNumber(`${name} is not a finite number.`);
      }
      return { value: answer, how: `Read your answer as ${withUnits(fmt(answer), units)}.` };
    }
    const raw = String(answer).replace(PY_SPACE, "");
    const length = [...raw].length;
    if (length > MAX_CHARS) {
      throw new UnreadableNumber(`Could not read an answer of ${length} characters as a number; type at most ${MAX_CHARS}.`);
    }
    const text = arabicPoint(toAsciiDigits(raw).replace(/[\u00a0\u202f\u2009\u2007]/g, " ").replaceAll("\u2212", "-")
      .replaceAll("_", ""), raw, units);
    const match = NUMBER.exec(text);
    if (!match || (match[1] && match[3])) throw new UnreadableNumber(advice(raw, units));
    const [, sign, cur, sign2, num, exp, restRaw] = match;
    let number = pyFloat(plainDecimal(num, raw, units) + exponent(exp));
    if (Number.isNaN(number)) throw new UnreadableNumber(advice(raw, units));
    if ((sign || sign2) === "-") number = -number;
    const [scale, scaleWord, allowed] = questionUnits(units);
    const givenCurrency = cur ? ["$"] : [];
    const rest = restRaw.replace(PY_SPACE, "");
    let value = null, shown = "";
    if (exp && scaleWord.startsWith("x 10^") && subsequence(givenCurrency.concat(words(rest)), allowed)) {
      value = number / scale; shown = ` (${fmt(number)})`;
    } else if (subsequence(givenCurrency.concat(words(rest)), (has(SCALE_WORDS, scaleWord) ? [scaleWord] : []).concat(allowed))) {
      value = number;
    } else {
      const head = HEAD.exec(rest);
      const factor = head ? scaleOf(head[1]) : 0;
      if (factor && subsequence(givenCurrency.concat(words(head[2])), allowed)) {
        value = number * factor / scale;
        const name = Object.keys(SCALE_WORDS).find((w) => SCALE_WORDS[w] === factor);
        shown = ` (${fmt(number)} ${name})`;
      }
    }
    const typedWords = words(rest);
    if (value === null && !allowed.length && scale === 1 && !givenCurrency.length && typedWords.length === 1
        && typedWords[0] === "%") {
      value = number / 100; shown = ` (${fmt(number)}%, as a fraction)`;    // "39%" where a fraction is asked
    }
    if (value === null) {
      const wordsOnly = !/\d/.test(rest);
      throw new UnreadableNumber(advice(raw, units, wordsOnly && Boolean(rest || givenCurrency.length)));
    }
    if (!Number.isFinite(value)) throw new UnreadableNumber(`Could not read ${pyRepr(raw)} as a number: it is too large.`);
    return { value, how: `Read your answer as ${withUnits(fmt(value), units)}${shown}.` };
  }

  // --- engine.py ---------------------------------------------------------------------------------

  function within(value, target, tolerance) {
    if (has(tolerance, "abs")) return Math.abs(value - target) <= tolerance.abs * (1 + 1e-12);
    return Math.abs(value - target) <= tolerance.rel * Math.abs(target) * (1 + 1e-12);
  }

  function grade(item, variant, response) {
    /* {correct, feedback, explanation, response}: the item's type grades it (its site.js, from the table of
       types in quiz-types.js), as engine.grade hands it to the type's model. */
    return root.CourseQuizTypes.get(item.type).grade(item, variant, response);
  }

  // feedback that opens with its own verdict ("Right.", "Yes,"), which the "Correct." head already says
  const REPEATED_VERDICT = /^\s*(?:right|correct|yes)\b\s*[.,!:;]\s*/i;

  function shownFeedback(outcome) {
    /* The feedback line as the widget shows it (widgets.feedback_html): head, then the bank's text. */
    const text = outcome.correct ? outcome.feedback.replace(REPEATED_VERDICT, "") : outcome.feedback;
    return { head: outcome.correct ? "Correct." : "Not quite.", text };
  }

  function passed(score, total, passMark) {
    return total > 0 && score / total >= passMark - 1e-12;
  }

  const api = { UnreadableNumber, readNumber, grade, within, fmt, shownFeedback, passed, formatG, pyRepr,
    MAX_CHARS };
  root.CourseQuizEngine = api;     // the types' scripts use its number reader and tolerance
  if (typeof module === "object" && module.exports) module.exports = api;
})(globalThis);
