// core.js: the values and arithmetic that the generated rules read; the JavaScript twin of
// civdsl/runtime.py's "arithmetic helpers" (the player state is civdsl/playerstate.py translated).
// Python's numbers are kept apart exactly: an int is a JS number, a float a PyFloat (it prints "2.0"), an exact fraction a
// Frac (what runtime.div makes). A fact the state lacks reads as an Unknown naming it.

// --- errors ---------------------------------------------------------------------------------

// A problem with the question (the CLI's StateError: exit 1 with a message).
class UserError extends Error {}
// A rule failed while running (the CLI's RulebookRuntimeError: a division by zero, a table
// without a band for a value).
class RuleError extends Error {
  constructor(kind, reason) {
    super(kind + ": " + reason);
    this.kind = kind;
    this.reason = reason;
  }
}

function own(obj, key) {
  return obj !== null && obj !== undefined && Object.prototype.hasOwnProperty.call(obj, key);
}

function get(obj, key, fallback) {
  return own(obj, key) ? obj[key] : fallback;
}

// --- unknown values ---------------------------------------------------------------------------

class Unknown {
  constructor(facts) {
    this.facts = facts;
  }
  toString() {
    return "unknown(" + this.facts.join(", ") + ")";
  }
}

function unknownOf() {
  const facts = [];
  for (let i = 0; i < arguments.length; i++) {
    const v = arguments[i];
    if (v instanceof Unknown) {
      for (const f of v.facts) if (facts.indexOf(f) < 0) facts.push(f);
    }
  }
  return new Unknown(facts);
}

// --- Python numbers ---------------------------------------------------------------------------

class PyFloat {
  constructor(v) {
    this.v = v;
  }
  valueOf() {
    return this.v;
  }
  toString() {
    return floatRepr(this.v);
  }
  toJSON() {
    return this.v;
  }
}

function pf(v) {
  return new PyFloat(v);
}

function gcd(a, b) {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

class Frac {
  constructor(n, d) {
    if (d === 0) throw new RuleError("ZeroDivisionError", "division by zero");
    if (d < 0) {
      n = -n;
      d = -d;
    }
    const g = gcd(n, d) || 1;
    this.n = exact(n / g);
    this.d = exact(d / g);
  }
  // Fraction.numerator and .denominator, as the engines read them
  get numerator() {
    return this.n;
  }
  get denominator() {
    return this.d;
  }
  valueOf() {
    return this.n / this.d;
  }
  toString() {
    return this.d === 1 ? String(this.n) : this.n + "/" + this.d;
  }
  toJSON() {
    return this.toString();
  }
}

function fr(n, d) {
  return new Frac(n, d);
}

// 0: an int (or a bool, which Python counts as one), 1: a Fraction, 2: a float
function numKind(v) {
  if (typeof v === "number" || typeof v === "boolean") return 0;
  if (v instanceof Frac) return 1;
  if (v instanceof PyFloat) return 2;
  throw new RuleError("TypeError", "expected a number, got " + pyRepr(v));
}

function toFrac(v) {
  if (v instanceof Frac) return v;
  if (v instanceof PyFloat) return floatFrac(v.v);
  return new Frac(+v, 1);
}

// Fraction(x) of a float is exact: its binary value
function floatFrac(x) {
  if (!isFinite(x)) throw new RuleError("ValueError", "cannot convert " + floatRepr(x) + " to a fraction");
  let d = 1;
  while (!Number.isInteger(x * d) && d < 2 ** 60) d *= 2;
  return new Frac(x * d, d);
}

// Python's ints are unbounded, JavaScript's numbers exact only to 2^53: a result beyond is an
// error (the answer says so) rather than a silently rounded number
function exact(n) {
  if (!Number.isSafeInteger(n)) throw new RuleError("OverflowError", "a whole number beyond 2^53 (" + n + "): the JavaScript engine cannot hold it exactly");
  return n;
}

function arith(op, a, b) {
  if ((typeof a === "number" || a instanceof PyFloat) && (typeof b === "number" || b instanceof PyFloat)) {
    const x = typeof a === "number" ? a : a.v, y = typeof b === "number" ? b : b.v;  // a float and an int or float
    return pf(op === "+" ? x + y : op === "-" ? x - y : x * y);
  }
  if (a instanceof Unknown || b instanceof Unknown) return unknownOf(a, b);
  const k = Math.max(numKind(a), numKind(b));
  if (k === 2) {
    const x = +a, y = +b;
    return pf(op === "+" ? x + y : op === "-" ? x - y : x * y);
  }
  if (k === 1) {
    const p = toFrac(a), q = toFrac(b);
    if (op === "*") return new Frac(p.n * q.n, p.d * q.d);
    const n = op === "+" ? p.n * q.d + q.n * p.d : p.n * q.d - q.n * p.d;
    return new Frac(n, p.d * q.d);
  }
  const x = +a, y = +b;
  return exact(op === "+" ? x + y : op === "-" ? x - y : x * y);
}

// add, sub, mul: ints first (the common case, and the generated engines' every step); then Python's
// meaning for the other operands an engine may give (tuples, lists and texts joined or repeated,
// a set less another)
function add(a, b) {
  if (typeof a === "number" && typeof b === "number") return exact(a + b);
  if (Array.isArray(a) && Array.isArray(b)) return a.concat(b);
  if (typeof a === "string" && typeof b === "string") return a + b;
  return arith("+", a, b);
}

function sub(a, b) {
  if (typeof a === "number" && typeof b === "number") return exact(a - b);
  if (a instanceof PySet && b instanceof PySet) return a.difference(b);
  return arith("-", a, b);
}

function mul(a, b) {
  if (typeof a === "number" && typeof b === "number") return exact(a * b);
  if (Array.isArray(a) && typeof b === "number") return it_repeated(a, b);
  if (Array.isArray(b) && typeof a === "number") return it_repeated(b, a);
  if (typeof a === "string" && typeof b === "number") return a.repeat(Math.max(0, b));
  if (typeof b === "string" && typeof a === "number") return b.repeat(Math.max(0, a));
  return arith("*", a, b);
}

function neg(a) {
  if (typeof a === "number") return 0 - a;
  if (a instanceof Unknown) return a;
  const k = numKind(a);
  if (k === 2) return pf(-a.v);
  if (k === 1) return new Frac(-a.n, a.d);
  return 0 - a;
}

// runtime.div: an exact Fraction
function div(a, b) {
  if (a instanceof Unknown || b instanceof Unknown) return unknownOf(a, b);
  const p = toFrac(a), q = toFrac(b);
  if (q.n === 0) throw new RuleError("ZeroDivisionError", "division by zero");
  return new Frac(p.n * q.d, p.d * q.n);
}

function floordiv(a, b) {
  if (typeof a === "number" && typeof b === "number" && b !== 0) return Math.floor(a / b);
  if ((a instanceof PyFloat || b instanceof PyFloat) && !(a instanceof Unknown || b instanceof Unknown)) {
    if (+b === 0) throw new RuleError("ZeroDivisionError", "float floor division by zero");
    return pf(Math.floor(+a / +b));  // a float's // is a float, as in Python
  }
  const q = div(a, b);
  return q instanceof Unknown ? q : Math.floor(q.n / q.d);
}

function floor(x) {
  if (x instanceof Unknown) return x;
  const k = numKind(x);
  return k === 1 ? Math.floor(x.n / x.d) : Math.floor(+x);
}

function ceil(x) {
  if (x instanceof Unknown) return x;
  const k = numKind(x);
  return k === 1 ? Math.ceil(x.n / x.d) : Math.ceil(+x);
}

function sqrt(x) {
  if (x instanceof Unknown) return x;
  numKind(x);
  if (+x < 0) throw new RuleError("ValueError", "math domain error");
  return pf(Math.sqrt(+x));
}

function abs_(x) {
  if (x instanceof Unknown) return x;
  const k = numKind(x);
  if (k === 2) return pf(Math.abs(x.v));
  if (k === 1) return new Frac(Math.abs(x.n), x.d);
  return Math.abs(+x);
}

// Python's comparison of two values (numbers of any kind, strings, None)
function compare(op, a, b) {
  if (a instanceof PyFloat || b instanceof PyFloat) {
    if ((a instanceof PyFloat || typeof a === "number") && (b instanceof PyFloat || typeof b === "number")) {
      const x = typeof a === "number" ? a : a.v, y = typeof b === "number" ? b : b.v;
      switch (op) {
        case "==": return x === y;
        case "!=": return x !== y;
        case "<": return x < y;
        case "<=": return x <= y;
        case ">": return x > y;
        default: return x >= y;
      }
    }
  }
  if (a instanceof Unknown || b instanceof Unknown) return unknownOf(a, b);
  if (op === "==" || op === "!=") {
    const same = pyEqual(a, b);
    return op === "==" ? same : !same;
  }
  const c = order(a, b);
  switch (op) {
    case "<": return c < 0;
    case "<=": return c <= 0;
    case ">": return c > 0;
    default: return c >= 0;
  }
}

function isNumber(v) {
  return typeof v === "number" || typeof v === "boolean" || v instanceof Frac || v instanceof PyFloat;
}

// Python's == (tuples and lists item by item, sets and dicts by their members)
function pyEqual(a, b) {
  if (a === b) return true;
  if (isNumber(a) && isNumber(b)) return order(a, b) === 0;
  if (a === null || b === null) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!pyEqual(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof PySet && b instanceof PySet) return a.size === b.size && a.issubset(b);
  if (a instanceof PyDict && b instanceof PyDict) {
    if (a.size !== b.size) return false;
    for (const [h, v] of a.$v) if (!b.$v.has(h) || !pyEqual(v, b.$v.get(h))) return false;
    return true;
  }
  return false;
}

// Python's order of two values: numbers exactly, texts by code point, tuples item by item
function order(a, b) {
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  if ((a instanceof PyFloat || typeof a === "number") && (b instanceof PyFloat || typeof b === "number")) {
    // an int below 2^53 is exact as a double: the order is Python's
    const x = typeof a === "number" ? a : a.v, y = typeof b === "number" ? b : b.v;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (typeof a === "string" && typeof b === "string") return a === b ? 0 : textOrder(a, b);
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      if (a[i] === b[i]) continue;
      const c = order(a[i], b[i]);
      if (c !== 0) return c;
    }
    return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
  }
  const ka = numKind(a), kb = numKind(b);
  if (ka === 1 && kb !== 2 || kb === 1 && ka !== 2) {
    const p = toFrac(a), q = toFrac(b);
    const x = p.n * q.d, y = q.n * p.d;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = +a, y = +b;
  return x < y ? -1 : x > y ? 1 : 0;
}

// texts by code point (UTF-16 units order the same but past a surrogate)
function textOrder(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x === y) continue;
    if ((x >= 0xd800 && x <= 0xdfff) || (y >= 0xd800 && y <= 0xdfff)) {
      return a.codePointAt(i) < b.codePointAt(i) ? -1 : 1;
    }
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

function eq(a, b) { return typeof a === "number" && typeof b === "number" ? a === b : compare("==", a, b); }
function ne(a, b) { return typeof a === "number" && typeof b === "number" ? a !== b : compare("!=", a, b); }
function lt(a, b) { return typeof a === "number" && typeof b === "number" ? a < b : compare("<", a, b); }
function le(a, b) { return typeof a === "number" && typeof b === "number" ? a <= b : compare("<=", a, b); }
function gt(a, b) { return typeof a === "number" && typeof b === "number" ? a > b : compare(">", a, b); }
function ge(a, b) { return typeof a === "number" && typeof b === "number" ? a >= b : compare(">=", a, b); }

function min_(a, b) {
  if (typeof a === "number" && typeof b === "number") return b < a ? b : a;
  if (a instanceof Unknown || b instanceof Unknown) return unknownOf(a, b);
  return order(b, a) < 0 ? b : a;
}

function max_(a, b) {
  if (typeof a === "number" && typeof b === "number") return b > a ? b : a;
  if (a instanceof Unknown || b instanceof Unknown) return unknownOf(a, b);
  return order(b, a) > 0 ? b : a;
}

// Python's truth value of a known value
function truthy(v) {
  if (v === null || v === undefined) return false;
  if (v instanceof Unknown) throw new RuleError("TypeError", "a rule decided on an unknown value (it needs " + v.facts.join(", ") + ")");
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v !== 0;
  if (typeof v === "string") return v.length > 0;
  if (v instanceof Frac) return v.n !== 0;
  if (v instanceof PyFloat) return v.v !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof PyDict || v instanceof PySet) return v.size > 0;
  if (typeof v === "object") return Object.keys(v).length > 0;
  return true;
}

// Kleene's three-valued logic: runtime.not_, and_, or_ (each right side a thunk)
function not_(x) {
  return x instanceof Unknown ? x : !truthy(x);
}

function and_(a) {
  let unknown = null, v = a;
  for (let i = 0; i < arguments.length; i++) {
    v = i === 0 ? a : arguments[i]();
    if (v instanceof Unknown) unknown = unknown === null ? v : unknownOf(unknown, v);
    else if (!truthy(v)) return v;
  }
  return unknown !== null ? unknown : v;
}

function or_(a) {
  let unknown = null, v = a;
  for (let i = 0; i < arguments.length; i++) {
    v = i === 0 ? a : arguments[i]();
    if (v instanceof Unknown) unknown = unknown === null ? v : unknownOf(unknown, v);
    else if (truthy(v)) return v;
  }
  return unknown !== null ? unknown : v;
}

function lookup(bands, x) {
  if (x instanceof Unknown) return x;
  for (const band of bands) {
    if (truthy(ge(x, band[0])) && (band[1] === null || truthy(le(x, band[1])))) return band[2];
  }
  throw new RuleError("ValueError", "no band of the table covers " + pyStr(x));
}

// runtime.number: integral fractions print as integers, an unknown value as null; any other
// fraction stays exact (printed "7/2", as Python's json.dumps(default=str) writes it)
function number(v) {
  if (v instanceof Frac) return v.d === 1 ? v.n : v;
  if (v instanceof Unknown) return null;
  return v;
}

// unknown.sum_if_known: the sum of VALUES, or null when any is not known (null)
function sumIfKnown(values) {
  const xs = pyList(values);
  return xs.some((v) => v === null) ? null : pySum(xs);
}

// --- Python's text of values --------------------------------------------------------------------

// repr() of a Python float: the shortest digits that round-trip (as JavaScript's), written
// fixed from 1e-4 up to 1e16 and in exponent form outside
function floatRepr(x) {
  if (x !== x) return "nan";
  if (x === Infinity) return "inf";
  if (x === -Infinity) return "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(x.toExponential());
  const sign = m[1], digits = m[2] + (m[3] || ""), exp = parseInt(m[4], 10);
  if (exp >= -5 && exp < 16) {
    // Python switches to exponent form below 1e-4 (repr(0.0001) == '0.0001', 1e-05 below)
    if (exp < -4) return sign + digits[0] + (digits.length > 1 ? "." + digits.slice(1) : "") + "e-" + pad2(-exp);
    if (exp < 0) return sign + "0." + "0".repeat(-exp - 1) + digits;
    const whole = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits + "0".repeat(exp + 1 - digits.length);
    const rest = digits.length > exp + 1 ? digits.slice(exp + 1) : "0";
    return sign + whole + "." + rest;
  }
  const mant = digits[0] + (digits.length > 1 ? "." + digits.slice(1) : "");
  return sign + mant + "e" + (exp < 0 ? "-" : "+") + pad2(Math.abs(exp));
}

function pad2(n) {
  return n < 10 ? "0" + n : String(n);
}

// str() of a value as Python writes it in an f-string
function pyStr(v) {
  if (v === null || v === undefined) return "None";
  if (v instanceof RuleError) return v.reason;  // str() of a Python exception: its message
  if (v instanceof Error) return v.message;
  if (v === true) return "True";
  if (v === false) return "False";
  if (v instanceof PyFloat) return floatRepr(v.v);
  // a list, tuple, dict or set: str() is Python's repr() of it, never JavaScript's "1,a"
  if (Array.isArray(v) || v instanceof PyDict || v instanceof PySet) return pyRepr(v);
  return String(v);
}

// repr() of a value as Python writes it (civdsl/pystd/reprs.py translated); an object of the
// host's (JSON-shaped) as the dict Python would hold
function pyRepr(v) {
  return rp_repr_of(isMap(v) && Object.getPrototypeOf(v) === Object.prototype ? pyFromPlain(v) : v);
}

function isMap(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
