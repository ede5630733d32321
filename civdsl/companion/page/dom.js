// dom.js: the small DOM helpers both pages' interfaces share (page/ui.js, page/game.js), joined
// into each one's wrapping function where it holds the mark /*DOM*/ (companion/page.py, with_dom).
// Text only, never markup: a child string becomes a text node, an attribute is set through the DOM.

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") node.textContent = String(v);
    else if (k === "on") for (const [ev, fn] of Object.entries(v)) node.addEventListener(ev, fn);
    else if (k === "cls") node.className = v;
    else if (k in PROPS) node[k] = v;
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return node;
}
// the attributes set as the element's properties (a form's current value and states)
const PROPS = {value: 1, checked: 1, disabled: 1, hidden: 1, selected: 1};

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

function byId(id) {
  return document.getElementById(id);
}

// a rule option in the rulebook's words (its `option NAME "..."` text); a house rule's option
// declared without one is shown by its name, spaced
function optionText(model, name) {
  const docs = model.OPTION_DOCS || {};
  return Object.prototype.hasOwnProperty.call(docs, name) && docs[name] ? docs[name] : name.replace(/_/g, " ");
}
