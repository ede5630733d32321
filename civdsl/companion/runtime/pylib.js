// pylib.js: Python's meaning of the values and built-ins the generated engines use (civdsl/companion/
// py2es.py translates the engine modules into calls of these). Each helper is Python's rule, not an
// approximation: dicts and sets keep insertion order and compare keys by value (PyDict, PySet),
// tuples order lexicographically (core.js `order`), sorting is stable in both directions, `/` of
// two ints is a float, whole numbers stay below 2^53 (core.js `exact`), and iterating a set where
// the order would show is an error (Python's set order is its hash order).

// --- keys: a value's identity as a dict key or set member -----------------------------------------

// Equal values (Python's ==, for the kinds a key may be) get the same text or number: ints as
// themselves, True as 1, a whole Fraction or float as its int, a tuple as its parts' keys,
// a frozenset as its members' keys in sorted order. Texts are length-prefixed, so no two differ
// in meaning and agree in text. A tuple's or frozenset's key is kept on it (they never change).
function pyHash(k) {
  if (typeof k === "number") return k;
  if (typeof k === "string") return k.charCodeAt(0) === 0 ? "\u0000s" + k : k;
  if (typeof k === "boolean") return k ? 1 : 0;
  if (k === null) return "\u0000N";
  if (Array.isArray(k)) {
    // its items' keys written out by JSON (one native string, uniquely read back: a number is
    // never quoted, a text always)
    if (k.$h !== undefined) return k.$h;
    const parts = new Array(k.length);
    for (let i = 0; i < k.length; i++) parts[i] = pyHash(k[i]);
    return (k.$h = "\u0000(" + JSON.stringify(parts));
  }
  if (k instanceof PySet) {
    if (k.$h === null) k.$h = "\u0000{" + Array.from(k.$m.keys()).map(pyKeyPart).sort().join("") + "}";
    return k.$h;
  }
  if (k instanceof Frac) return k.d === 1 ? k.n : "\u0000F" + k.n + "/" + k.d;
  if (k instanceof PyFloat) return Number.isInteger(k.v) ? k.v : "\u0000f" + k.v;
  throw new RuleError("TypeError", "unhashable value " + pyRepr(k));
}

function pyKeyPart(h) {
  return typeof h === "number" ? "n" + h + ";" : "s" + h.length + ":" + h;
}

// --- dict and set ------------------------------------------------------------------------------------

class PyDict {
  constructor(pairs) {
    this.$v = new Map();  // key's hash -> value, in insertion order
    this.$k = null;  // key's hash -> the key, where the two differ
    if (pairs) for (const [key, value] of pyIter(pairs)) this.setItem(key, value);
  }
  get size() { return this.$v.size; }
  keyOf(h) { return this.$k !== null && this.$k.has(h) ? this.$k.get(h) : h; }
  has(key) { return this.$v.has(pyHash(key)); }
  getItem(key) {
    const got = this.$v.get(pyHash(key));
    if (got !== undefined) return got;
    if (this.__missing__ !== undefined) return this.__missing__(key);
    throw new RuleError("KeyError", pyRepr(key));
  }
  setItem(key, value) {
    const h = pyHash(key);
    if (h !== key && !this.$v.has(h)) (this.$k || (this.$k = new Map())).set(h, key);
    this.$v.set(h, value);
  }
  delItem(key) {
    const h = pyHash(key);
    if (!this.$v.delete(h)) throw new RuleError("KeyError", pyRepr(key));
    if (this.$k !== null) this.$k.delete(h);
  }
  get(key, fallback) {
    const got = this.$v.get(pyHash(key));
    return got !== undefined ? got : fallback === undefined ? null : fallback;
  }
  setdefault(key, value) {
    const h = pyHash(key);
    const got = this.$v.get(h);
    if (got !== undefined) return got;
    this.setItem(key, value === undefined ? null : value);
    return value === undefined ? null : value;
  }
  keys() {
    const out = Array.from(this.$v.keys());
    if (this.$k !== null) for (let i = 0; i < out.length; i++) out[i] = this.keyOf(out[i]);
    return out;
  }
  values() { return Array.from(this.$v.values()); }
  items() {
    const out = [];
    for (const [h, value] of this.$v) out.push([this.keyOf(h), value]);
    return out;
  }
  copy() { return pyDict(this); }
  update(other) { for (const [key, value] of pyItemsOf(other)) this.setItem(key, value); return null; }
}

function pyDict(from) {
  const d = new PyDict();
  if (from instanceof PyDict) {
    for (const [h, value] of from.$v) d.$v.set(h, value);
    if (from.$k !== null) d.$k = new Map(from.$k);
  } else if (Array.isArray(from)) {  // a display's pairs, the commonest
    for (let i = 0; i < from.length; i++) d.setItem(from[i][0], from[i][1]);
  } else if (from !== undefined && from !== null) {
    for (const [key, value] of pyIter(from)) d.setItem(key, value);
  }
  return d;
}

// `for k, v in d.items()`: the dict's own entries where every key is its own hash (no copy)
function pyItems(d) {
  return d.$k === null ? d.$v : d.items();
}

function pyItemsOf(x) {
  return x instanceof PyDict ? x.items() : pyIter(x);
}

class PySet {
  constructor() {
    this.$m = new Map();  // member's hash -> the member, in insertion order
    this.$h = null;  // its own hash, once asked (a frozenset's)
  }
  get size() { return this.$m.size; }
  has(x) { return this.$m.has(pyHash(x)); }
  add(x) {
    const h = pyHash(x);
    if (!this.$m.has(h)) this.$m.set(h, x);
    return null;
  }
  discard(x) { this.$m.delete(pyHash(x)); return null; }
  members() { return Array.from(this.$m.values()); }
  union() {
    const out = pySetOf(this.members());
    for (let i = 0; i < arguments.length; i++) for (const x of pyIterAny(arguments[i])) out.add(x);
    return out;
  }
  difference(other) {
    const out = new PySet();
    for (const [h, x] of this.$m) if (!other.$m.has(h)) out.$m.set(h, x);
    return out;
  }
  intersection(other) {
    const out = new PySet();
    for (const [h, x] of this.$m) if (other.$m.has(h)) out.$m.set(h, x);
    return out;
  }
  issubset(other) {
    for (const h of this.$m.keys()) if (!other.$m.has(h)) return false;
    return true;
  }
  isdisjoint(other) {
    for (const h of this.$m.keys()) if (other.$m.has(h)) return false;
    return true;
  }
}

function pySetOf(xs) {
  const out = new PySet();
  for (const x of xs) out.add(x);
  return out;
}

// --- iteration ---------------------------------------------------------------------------------------

// what `for x in xs` walks: a list or tuple, a dict's keys, a generator; a set only where the order
// cannot show (pyIterAny), since Python walks a set in its hash order
function pyIter(xs) {
  if (Array.isArray(xs)) return xs;
  if (xs instanceof PyDict) return xs.keys();
  if (xs instanceof PySet) throw new RuleError("TypeError", "an engine walked a set where its order shows");
  if (typeof xs === "string") return Array.from(xs);
  if (xs !== null && typeof xs === "object" && typeof xs[Symbol.iterator] === "function") return xs;
  throw new RuleError("TypeError", pyRepr(xs) + " is not iterable");
}

// the same for a walk whose result does not depend on the order (a sum, any, all, a set built)
function pyIterAny(xs) {
  return xs instanceof PySet ? xs.members() : pyIter(xs);
}

// a comprehension of one loop: value(x) for each x of xs that passes test
function pyComp(xs, value, test) {
  const out = [];
  for (const x of pyIter(xs)) if (test === undefined || test(x)) out.push(value(x));
  return out;
}

function pyList(xs) {
  return Array.isArray(xs) ? xs.slice() : Array.from(pyIter(xs));
}

function pyRange(start, stop, step) {
  if (stop === undefined) {
    stop = start;
    start = 0;
  }
  step = step === undefined ? 1 : step;
  if (step === 0) throw new RuleError("ValueError", "range() arg 3 must not be zero");
  const out = [];
  if (step > 0) for (let i = start; i < stop; i += step) out.push(i);
  else for (let i = start; i > stop; i += step) out.push(i);
  return out;
}

function pyEnumerate(xs, start) {
  const out = [];
  let i = start === undefined ? 0 : start;
  for (const x of pyIter(xs)) out.push([i++, x]);
  return out;
}

function pyZip() {
  const lists = Array.from(arguments, (xs) => Array.from(pyIter(xs)));
  const n = Math.min.apply(null, lists.map((xs) => xs.length));
  const out = [];
  for (let i = 0; i < n; i++) out.push(lists.map((xs) => xs[i]));
  return out;
}

// x, y = value: exactly as many values as names, as Python requires
function pyUnpack(value, n) {
  const xs = Array.isArray(value) ? value : Array.from(pyIter(value));
  if (xs.length !== n) throw new RuleError("ValueError", "expected " + n + " values to unpack, got " + xs.length);
  return xs;
}

// --- items and slices ----------------------------------------------------------------------------------

function pyItem(x, k) {
  if (Array.isArray(x)) {
    if (typeof k === "number" && k >= 0 && k < x.length) return x[k];
    return x[pyIndex(x, k)];
  }
  if (x instanceof PyDict) return x.getItem(k);
  if (typeof x === "string") return Array.from(x)[pyIndex(Array.from(x), k)];
  throw new RuleError("TypeError", pyRepr(x) + " is not subscriptable");
}

function pyIndex(xs, k) {
  if (typeof k === "boolean") k = k ? 1 : 0;
  if (typeof k !== "number") throw new RuleError("TypeError", "indices must be integers");
  const i = k < 0 ? k + xs.length : k;
  if (i < 0 || i >= xs.length) throw new RuleError("IndexError", "index out of range");
  return i;
}

function pySetItem(x, k, value) {
  if (Array.isArray(x)) x[pyIndex(x, k)] = value;
  else x.setItem(k, value);
}

function pyDelItem(x, k) {
  if (Array.isArray(x)) x.splice(pyIndex(x, k), 1);
  else x.delItem(k);
}

function pySlice(xs, lo, hi) {
  // a text by code points, as Python counts them (a UTF-16 slice would cut a character in two)
  if (typeof xs === "string" && /[\ud800-\udfff]/.test(xs)) return pySlice(Array.from(xs), lo, hi).join("");
  const n = xs.length;
  const at = (i, fallback) => (i === null || i === undefined ? fallback : i < 0 ? Math.max(0, i + n) : Math.min(i, n));
  return xs.slice(at(lo, 0), at(hi, n));
}

function pyLen(x) {
  if (Array.isArray(x) || typeof x === "string") return typeof x === "string" ? Array.from(x).length : x.length;
  if (x instanceof PyDict || x instanceof PySet) return x.size;
  throw new RuleError("TypeError", pyRepr(x) + " has no len()");
}

// ord() of one character: its code point
function pyOrd(c) {
  if (typeof c !== "string" || Array.from(c).length !== 1) throw new RuleError("TypeError", "ord() of " + pyRepr(c));
  return c.codePointAt(0);
}

// chr(): the character of a code point
function pyChr(n) {
  if (typeof n !== "number" || n < 0 || n > 0x10ffff) throw new RuleError("ValueError", "chr() arg not in range(0x110000)");
  return String.fromCodePoint(n);
}

function pyIn(x, xs) {
  if (xs instanceof PySet || xs instanceof PyDict) return xs.has(x);
  if (typeof xs === "string") return xs.indexOf(x) >= 0;
  for (const y of pyIter(xs)) if (pyEqual(x, y)) return true;
  return false;
}

// --- numbers -------------------------------------------------------------------------------------------

// Python's `/`: a float from two ints or a float, an exact Fraction from Fractions
function truediv(a, b) {
  if (typeof a === "number" && typeof b === "number" && b !== 0) return pf(a / b);
  if (numKind(a) === 1 || numKind(b) === 1) {
    if (numKind(a) !== 2 && numKind(b) !== 2) return div(a, b);
  }
  if (+b === 0) throw new RuleError("ZeroDivisionError", "division by zero");
  return pf(+a / +b);
}

// Python's % of ints: the remainder takes the divisor's sign
function pyMod(a, b) {
  if (typeof a !== "number" || typeof b !== "number") throw new RuleError("TypeError", "% of other than ints");
  if (b === 0) throw new RuleError("ZeroDivisionError", "integer modulo by zero");
  const r = a % b;
  return r !== 0 && (r < 0) !== (b < 0) ? r + b : r;
}

function pyFloat(x) {
  if (typeof x === "string") {
    const t = x.trim().toLowerCase();
    if (t === "inf" || t === "+inf" || t === "infinity") return pf(Infinity);
    if (t === "-inf" || t === "-infinity") return pf(-Infinity);
    throw new RuleError("ValueError", "could not convert string to float");
  }
  numKind(x);
  return pf(+x);
}

function pyInt(x) {
  if (typeof x === "boolean") return x ? 1 : 0;
  if (typeof x === "string") return pyIntOfText(x);
  if (numKind(x) === 0) return x;
  return exact(Math.trunc(+(x instanceof Frac ? x.n / x.d : x)));
}

// int() of text in the digits 0-9 (Python reads other scripts' digits too: those raise here,
// never a different number; the engines read only text they checked to be 0-9)
function pyIntOfText(x) {
  const m = /^[ \t\n\r\f\v]*([+-]?)([0-9]+(?:_[0-9]+)*)[ \t\n\r\f\v]*$/.exec(x);
  if (!m) throw new RuleError("ValueError", "invalid literal for int() with base 10: " + pyRepr(x));
  const n = exact(Number(m[2].split("_").join("")));
  return m[1] === "-" ? -n : n;
}

function pyIsInt(x) {
  return typeof x === "number" || typeof x === "boolean";
}

// Fraction(x) and Fraction(numerator, denominator)
function pyFraction(x, d) {
  return d === undefined ? toFrac(x) : div(x, d);
}

// the bit operators of whole numbers from 0 to 2^53, exact (JavaScript's own cut numbers to 32 bits)
const PY_LOW = 2 ** 26;
function pyBits(a) {
  if (typeof a === "boolean") a = a ? 1 : 0;
  if (typeof a !== "number" || a < 0) throw new RuleError("TypeError", "a bit operation on " + pyRepr(a));
  return [Math.floor(a / PY_LOW), a % PY_LOW];
}

function pyBitOr(a, b) {
  if (a instanceof PySet) return a.union(b);
  const [ah, al] = pyBits(a), [bh, bl] = pyBits(b);
  return exact((ah | bh) * PY_LOW + (al | bl));
}

function pyBitAnd(a, b) {
  if (a instanceof PySet) return a.intersection(b);
  const [ah, al] = pyBits(a), [bh, bl] = pyBits(b);
  return (ah & bh) * PY_LOW + (al & bl);
}

function pyShl(a, n) {
  pyBits(a);
  return exact(a * 2 ** n);
}

function pyShr(a, n) {
  pyBits(a);
  return Math.floor(a / 2 ** n);
}

// --- Python's order: min, max, sorted -------------------------------------------------------------------

function pyMinMax(sign, args, key, fallback) {
  const xs = args.length === 1 ? pyIterAny(args[0]) : args;
  let best, bestKey, first = true;
  for (const x of xs) {
    const k = key ? key(x) : x;
    const c = first ? 1 : sign * order(k, bestKey);
    if (c === 0 && args.length === 1 && args[0] instanceof PySet) {
      throw new RuleError("TypeError", "an engine took the " + (sign > 0 ? "max" : "min") + " of a set whose order shows");
    }
    if (c > 0) {
      best = x;
      bestKey = k;
    }
    first = false;
  }
  if (!first) return best;
  if (fallback !== undefined) return fallback;
  throw new RuleError("ValueError", "an empty sequence has no " + (sign > 0 ? "max" : "min"));
}

function pyMax(args, key, fallback) { return pyMinMax(1, args, key, fallback); }
function pyMin(args, key, fallback) { return pyMinMax(-1, args, key, fallback); }

// sorted(xs, key=, reverse=): stable both ways, as Python's (equal items keep their order reversed
// too); a set sorted with two members of equal key would come out in Python's hash order: an error
function pySorted(xs, key, reverse) {
  return pySort(Array.from(pyIterAny(xs)), key, reverse, xs instanceof PySet);
}

function pySort(list, key, reverse, fromSet) {
  // Array.prototype.sort is stable (ES2019, and every engine that runs the page): equal items keep
  // their order whichever the direction, as in Python
  const sign = reverse ? -1 : 1;
  let tie = false;
  const cmp = (x, y) => {
    const c = order(x, y);
    if (c === 0) tie = true;
    return sign * c;
  };
  if (!key) {
    list.sort(cmp);
  } else if (key.cmp) {
    list.sort((x, y) => {
      const c = key.cmp(x, y);
      if (c === 0) tie = true;
      return sign * c;
    });
  } else {
    const keyed = list.map((x) => [key(x), x]);
    keyed.sort((p, q) => cmp(p[0], q[0]));
    for (let i = 0; i < list.length; i++) list[i] = keyed[i][1];
  }
  if (tie && fromSet) throw new RuleError("TypeError", "an engine sorted a set whose order shows (two equal keys)");
  return list;
}

function pySum(xs, start) {
  let total = start === undefined ? 0 : start;
  for (const x of pyIterAny(xs)) total = add(total, x);
  return total;
}

// --- functions -------------------------------------------------------------------------------------------

function pyAny(xs) {
  for (const x of pyIterAny(xs)) if (truthy(x)) return true;
  return false;
}

function pyAll(xs) {
  for (const x of pyIterAny(xs)) if (!truthy(x)) return false;
  return true;
}

// functools.cmp_to_key: a key only sorted and sort read (they call the comparison itself); read
// anywhere else (min, max) it raises rather than order by the values themselves
function pyCmpToKey(cmp) {
  const key = () => { throw new RuleError("TypeError", "an engine used cmp_to_key outside sorted"); };
  key.cmp = (x, y) => { const c = cmp(x, y); return c < 0 ? -1 : c > 0 ? 1 : 0; };
  return key;
}

// an attribute that may be a method read as a value: bound to its object, as Python's bound method is
function pyBound(x, name) {
  const v = x[name];
  return typeof v === "function" ? v.bind(x) : v;
}

// copy.copy: a list's or dict's shallow copy; an instance of an engine's class with the same fields
function pyCopy(x) {
  if (Array.isArray(x)) return x.slice();
  if (x instanceof PyDict) return x.copy();
  if (x instanceof PySet) return pySetOf(pyIterAny(x));
  return Object.assign(Object.create(Object.getPrototypeOf(x)), x);
}

// x.copy(): a list's is a new Array; a dict's, a set's or an engine class's its own method
function pyCopyOf(x) { return Array.isArray(x) ? x.slice() : x.copy(); }

function pyPartial(fn) {
  const bound = Array.prototype.slice.call(arguments, 1);
  return function () {
    const args = bound.slice();
    for (let i = 0; i < arguments.length; i++) args.push(arguments[i]);
    return fn.apply(null, args);
  };
}

// functools.cache: each answer once per arguments (compared as dict keys are), looked up argument by
// argument (a tuple's key is kept on it, so a state asked again costs no new text)
function pyCache(fn) {
  const memo = new Map();
  return function () {
    let table = memo;
    const n = arguments.length;
    for (let i = 0; i < n - 1; i++) {
      const h = pyHash(arguments[i]);
      let next = table.get(h);
      if (next === undefined) table.set(h, next = new Map());
      table = next;
    }
    const last = n ? pyHash(arguments[n - 1]) : "";
    let got = table.get(last);
    if (got === undefined) {
      got = fn.apply(null, arguments);
      if (got === undefined) got = null;
      table.set(last, got);
    }
    return got;
  };
}

function pyExtend(list, xs) {
  for (const x of pyIter(xs)) list.push(x);
  return null;
}

// {**base, key: value, ...}
function pyDictWith(base, pairs) {
  const d = pyDict(base);
  for (const [key, value] of pairs) d.setItem(key, value);
  return d;
}

// getattr(x, "NAME", fallback): the name is a plain identifier (py2es refuses any other)
function pyGetattr(x, name, fallback) {
  return x !== null && x !== undefined && x[name] !== undefined ? x[name] : fallback;
}

// --- the host's values and Python's ------------------------------------------------------------------

// JSON-shaped data (the page's MODEL) as the values Python's engines read: objects as dicts
function pyFromPlain(x) {
  if (x === undefined) return null;
  if (Array.isArray(x)) return x.map(pyFromPlain);
  if (x === null || typeof x !== "object" || Object.getPrototypeOf(x) !== Object.prototype) return x;
  const d = new PyDict();
  for (const k of Object.keys(x)) d.setItem(k, pyFromPlain(x[k]));
  return d;
}

// a question's state (JSON-shaped, from the page) as Python reads a state file: mappings as dicts,
// a number with a fractional part as a float (a whole one is an int: JSON does not tell 2.0)
function pyFromState(x) {
  if (typeof x === "number") return Number.isInteger(x) ? x : pf(x);
  if (Array.isArray(x)) return x.map((v) => pyFromState(v));
  const proto = x !== null && typeof x === "object" && Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null ? pyDict(Object.entries(x).map(([k, v]) => [k, pyFromState(v)])) : x;
}

// an engine's answer as the page hands it on: dicts as objects with their keys in order
function pyPlain(x) {
  if (Array.isArray(x)) return x.map(pyPlain);
  if (!(x instanceof PyDict)) return x;
  const out = {};
  for (const [h, v] of x.$v) {
    const k = pyStr(x.keyOf(h));
    if (k === "__proto__") Object.defineProperty(out, k, {value: pyPlain(v), enumerable: true, writable: true});
    else out[k] = pyPlain(v);
  }
  return out;
}

// list.index(x): the first position of a value equal to X
function pyIndexOf(xs, x) {
  for (let i = 0; i < xs.length; i++) if (pyEqual(xs[i], x)) return i;
  throw new RuleError("ValueError", pyRepr(x) + " is not in list");
}

// str.partition, str.rpartition, str.startswith, str.endswith, str.split with a separator: Python's
function pyText(s, method) {
  if (typeof s !== "string") throw new RuleError("AttributeError", pyRepr(s) + " has no " + method + "()");
  return s;
}
function pySeparator(sep) {
  if (typeof sep !== "string") throw new RuleError("TypeError", "must be str, not " + pyRepr(sep));
  if (sep === "") throw new RuleError("ValueError", "empty separator");
  return sep;
}
function pyPartition(s, sep) {
  const i = pyText(s, "partition").indexOf(pySeparator(sep));
  return i < 0 ? [s, "", ""] : [s.slice(0, i), sep, s.slice(i + sep.length)];
}
function pyRpartition(s, sep) {
  const i = pyText(s, "rpartition").lastIndexOf(pySeparator(sep));
  return i < 0 ? ["", "", s] : [s.slice(0, i), sep, s.slice(i + sep.length)];
}
function pyPrefixes(p) {
  const all = Array.isArray(p) ? p : [p];
  for (const x of all) if (typeof x !== "string") throw new RuleError("TypeError", "startswith takes text or a tuple of texts");
  return all;
}
function pyStartsWith(s, p) {
  pyText(s, "startswith");
  return pyPrefixes(p).some((x) => s.startsWith(x));
}
function pyEndsWith(s, p) {
  pyText(s, "endswith");
  return pyPrefixes(p).some((x) => s.endsWith(x));
}
function pySplit(s, sep) {
  return pyText(s, "split").split(pySeparator(sep));
}

// list.pop([i]), dict.pop(key[, default]), set.pop() (refused: which member goes is Python's hash order)
function pyPop(x, ...args) {
  if (Array.isArray(x)) {
    if (args.length > 1) throw new RuleError("TypeError", "pop expected at most 1 argument");
    if (!x.length) throw new RuleError("IndexError", "pop from empty list");
    let i = args.length ? args[0] : -1;
    if (typeof i !== "number") throw new RuleError("TypeError", "list indices must be integers");
    if (i < 0) i += x.length;
    if (i < 0 || i >= x.length) throw new RuleError("IndexError", "pop index out of range");
    return x.splice(i, 1)[0];
  }
  if (x instanceof PyDict) {
    if (!args.length) throw new RuleError("TypeError", "pop expected at least 1 argument");
    if (!x.has(args[0])) {
      if (args.length > 1) return args[1];
      throw new RuleError("KeyError", pyRepr(args[0]));
    }
    const value = x.getItem(args[0]);
    x.delItem(args[0]);
    return value;
  }
  throw new RuleError("TypeError", "an engine popped from " + pyRepr(x) + " (a list or a dict only)");
}
// list.clear(), dict.clear(), set.clear()
function pyClear(x) {
  if (Array.isArray(x)) x.length = 0;
  else if (x instanceof PyDict) for (const key of x.keys()) x.delItem(key);
  else if (x instanceof PySet) for (const member of x.members()) x.discard(member);
  else throw new RuleError("AttributeError", pyRepr(x) + " has no clear()");
  return null;
}
// str.lower(): Unicode's full lower-case mapping, as Python's (a final sigma too)
function pyLower(s) {
  return pyText(s, "lower").toLowerCase();
}

// str.casefold(): upper then lower case (Python's full folding of the sharp s and ligatures,
// which toLowerCase alone leaves)
function pyCasefold(s) {
  return pyText(s, "casefold").toUpperCase().toLowerCase();
}

// the characters str.isspace() is true of (JavaScript's \s differs: it takes U+FEFF, not U+001C-U+001F, U+0085)
const PY_SPACE = "\t\n\x0b\x0c\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";
const PY_SPACES = new RegExp("[" + PY_SPACE + "]+");
const PY_ONLY_SPACES = new RegExp("^[" + PY_SPACE + "]+$");
const PY_STRIP = new RegExp("^[" + PY_SPACE + "]+|[" + PY_SPACE + "]+$", "g");

// str.strip() and str.split() (no argument): Python's whitespace
function pyStrip(s) {
  return pyText(s, "strip").replace(PY_STRIP, "");
}
function pySplitSpace(s) {
  return pyText(s, "split").split(PY_SPACES).filter((w) => w !== "");
}

// str.isspace()
function pyIsSpace(s) {
  return PY_ONLY_SPACES.test(pyText(s, "isspace"));
}

// str.isascii()
function pyIsAscii(s) {
  return /^[\x00-\x7f]*$/.test(pyText(s, "isascii"));
}

// unicodedata.normalize(form, text)
function pyNormalize(form, s) {
  return pyText(s, "normalize").normalize(form);
}

// str.join: of texts only, as Python requires
function pyJoin(sep, xs) {
  const parts = Array.from(pyIter(xs));
  for (const p of parts) if (typeof p !== "string") throw new RuleError("TypeError", "join() takes texts, not " + pyRepr(p));
  return parts.join(sep);
}
