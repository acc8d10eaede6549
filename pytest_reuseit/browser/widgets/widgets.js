// What the widget ops ask of a page: which control a label names, what kind of widget it is,
// its pop-up and options, and what it shows chosen, set or ticked. Installed once per document
// (window.__reuseitWidgets); it only reads the page: every click and key is Playwright's, as a
// person's would be. Open shadow roots are entered everywhere (web components draw their controls
// and labels there).
(() => {
  if (window.__reuseitWidgets) return;

  const norm = (s) => (s || "").replace(/[\s\u200b]+/g, " ").trim();
  const low = (s) => norm(s).toLowerCase();

  // The element's parent, across a shadow root's boundary.
  const up = (el) => el.parentElement || (el.parentNode && el.parentNode.host) || null;

  function deepAll(root, selector) {
    const out = [];
    const seen = new Set();
    const visit = (node) => {
      if (!node || seen.has(node)) return;
      seen.add(node);
      if (node.nodeType === 1 && node.matches(selector)) out.push(node);
      if (node.shadowRoot) visit(node.shadowRoot);
      const kids = node.querySelectorAll ? node.querySelectorAll("*") : [];
      for (const kid of kids) {
        if (kid.matches(selector)) out.push(kid);
        if (kid.shadowRoot) visit(kid.shadowRoot);
      }
    };
    visit(root);
    return [...new Set(out)];
  }

  // Drawn where a person can see and reach it: a box of some size, not hidden, not clipped away.
  // Opacity alone does not count: libraries lay a transparent native input over the box they
  // draw, and a click there is a click on the box (as Playwright counts it visible).
  function shown(el) {
    if (!el || !el.isConnected || el.nodeType !== 1) return false;
    const r = el.getBoundingClientRect();
    if (r.width < 4 || r.height < 4) return false;
    if (el.checkVisibility && !el.checkVisibility({ visibilityProperty: true })) return false;
    const cs = getComputedStyle(el);
    if (/rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)/.test(cs.clip)) return false;
    if (/inset\(50%/.test(cs.clipPath) || cs.clipPath === "inset(100%)") return false;
    // Transparent and letting clicks through: a library's original kept under what it draws.
    if (Number(cs.opacity) === 0 && cs.pointerEvents === "none") return false;
    return true;
  }

  const before = (a, b) => !!(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);

  // -------------------------------------------------------------------- names

  function byId(node, id) {
    const root = node.getRootNode();
    return (root.getElementById && root.getElementById(id)) || document.getElementById(id);
  }

  // The text a person reads as the element's name (roughly the accessible name).
  function nameOf(el) {
    if (!el) return "";
    const lb = el.getAttribute("aria-labelledby");
    if (lb) {
      const t = lb.split(/\s+/).map((id) => byId(el, id)).filter(Boolean).map(textOf).join(" ");
      if (norm(t)) return norm(t);
    }
    if (el.getAttribute("aria-label")) return norm(el.getAttribute("aria-label"));
    if (el.labels && el.labels.length) return norm([...el.labels].map(textOf).join(" "));
    const host = el.getRootNode().host;
    if (host && host.getAttribute("label")) return norm(host.getAttribute("label"));
    if (el.getAttribute("label")) return norm(el.getAttribute("label"));
    return "";
  }

  // An element's text as shown, slotted content of a shadow root included.
  function textOf(el) {
    if (!el) return "";
    if (el.nodeType === 3) return el.textContent;
    if (el.tagName === "SLOT") return el.assignedNodes({ flatten: true }).map(textOf).join(" ");
    if (el.shadowRoot) return [...el.shadowRoot.childNodes].map(textOf).join(" ");
    if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") return "";
    if (el.tagName === "STYLE" || el.tagName === "SCRIPT") return "";
    const cs = el.nodeType === 1 ? getComputedStyle(el) : null;
    if (cs && cs.display === "none") return "";
    return [...el.childNodes].map(textOf).join(el.childNodes.length > 1 ? " " : "");
  }

  function describe(el) {
    if (!el) return "nothing";
    const role = el.getAttribute("role");
    const tag = el.tagName.toLowerCase();
    const type = el.getAttribute("type");
    let what = role ? role : tag === "input" ? `<input type=${type || "text"}>` : `<${tag}>`;
    if (tag === "button" && !role) what = "button";
    const name = nameOf(el) || norm(textOf(el)).slice(0, 40);
    return name ? `${what} "${name}"` : what;
  }

  // -------------------------------------------------------------------- finding by label

  const LABELISH = "label, legend, [id], [label]";
  const FIELD =
    "input:not([type=hidden]), select, textarea, button, [role=combobox], [role=listbox], [role=slider]," +
    " [role=checkbox], [role=switch], [role=radio], [role=radiogroup], [role=spinbutton], [role=textbox]," +
    " [role=group], [aria-haspopup], [contenteditable=true], [tabindex]";

  function textMatches(text, want, exact) {
    const t = norm(text);
    if (!t) return false;
    if (exact) return t === want;
    return t.toLowerCase().includes(want.toLowerCase());
  }

  // The controls a label names, as a person reads a form: <label for> (also on an element that is
  // no form control, as sliders drawn with <div>s are labelled), a <label> around the control,
  // aria-labelledby pointing at it, a label drawn inside a shadow root (its host), a web
  // component's label attribute. Exact text first, else text that contains it.
  function labelled(root, want, exact) {
    const found = [];
    const add = (el) => el && !found.includes(el) && found.push(el);
    const tiers = exact ? [true] : [true, false];
    for (const whole of tiers) {
      for (const el of deepAll(root, LABELISH)) {
        if (el.hasAttribute("label") && el.shadowRoot && textMatches(el.getAttribute("label"), want, whole)) {
          add(el);
          continue;
        }
        if (!textMatches(textOf(el), want, whole)) continue;
        // Only the element that holds the text itself, not a container far around it.
        if (norm(textOf(el)).length > want.length * 3 + 40) continue;
        if (el.tagName === "LABEL") {
          if (el.control) add(el.control);
          else if (el.htmlFor && byId(el, el.htmlFor)) add(byId(el, el.htmlFor));
          else {
            const inner = deepAll(el, FIELD).filter((x) => x !== el)[0];
            if (inner) add(inner);
          }
        }
        if (el.id) {
          const rootNode = el.getRootNode();
          const refs = rootNode.querySelectorAll ? rootNode.querySelectorAll("[aria-labelledby]") : [];
          for (const r of refs) if (r.getAttribute("aria-labelledby").split(/\s+/).includes(el.id)) add(r);
        }
        const host = el.getRootNode().host;
        if (host && (el.tagName === "LABEL" || el.tagName === "SLOT" || el.getAttribute("part"))) add(host);
      }
      // A web component whose label is its slotted text (a checkbox's, a switch's, a radio's).
      for (const host of deepAll(root, "*").filter((e) => e.shadowRoot && e.tagName.includes("-"))) {
        const own = norm([...host.childNodes].map(textOf).join(" "));
        if (own && textMatches(own, want, whole) && own.length <= want.length * 3 + 40) add(host);
      }
      if (found.length) return found;
    }
    return found;
  }

  // The text a library draws beside its widget, no <label> and no ARIA: the nearest field after
  // the text, inside the text's own block (Dash's html.Label, a heading over a group).
  function beside(root, want, exact) {
    const out = [];
    for (const whole of exact ? [true] : [true, false]) {
      const texts = deepAll(root, "*").filter((el) => {
        if (!shown(el) || el.matches(FIELD) || el.closest("[role=listbox], [role=option]")) return false;
        const t = norm(textOf(el));
        if (!textMatches(t, want, whole) || t.length > want.length * 3 + 40) return false;
        return ![...el.children].some((c) => textMatches(textOf(c), want, whole));
      });
      for (const t of texts) {
        let box = up(t);
        for (let i = 0; box && i < 4; i++, box = up(box)) {
          const next = deepAll(box, FIELD).filter((f) => f !== t && !t.contains(f) && before(t, f) && (shown(f) || f.tagName === "INPUT" || f.tagName === "SELECT"));
          if (next.length) {
            if (!out.includes(next[0])) out.push(next[0]);
            break;
          }
        }
      }
      if (out.length) return out;
    }
    return out;
  }

  // -------------------------------------------------------------------- the widget of a control

  function TEXTY(e) {
    return (
      (e.tagName === "INPUT" && !["checkbox", "radio", "button", "submit", "reset", "file", "image", "range", "color", "hidden"].includes(e.type)) ||
      e.tagName === "TEXTAREA" ||
      e.isContentEditable
    );
  }

  const TRIGGER = "[role=combobox], [aria-haspopup=listbox], [aria-haspopup=true], [aria-haspopup=menu], [aria-haspopup=dialog], [aria-haspopup=grid]";
  const isTrigger = (e) =>
    e.matches(TRIGGER) || (e.tagName === "INPUT" && (e.hasAttribute("list") || e.hasAttribute("aria-autocomplete")));
  const TICKS = "input[type=checkbox], input[type=radio], [role=checkbox], [role=switch], [role=radio], [role=menuitemcheckbox], [role=menuitemradio]";
  const THUMBS = "input[type=range], [role=slider]";
  const DATE_TYPES = ["date", "datetime-local", "month", "week", "time"];

  // The widget a library draws for a control it hid (its original <select> or <input>, kept for
  // forms): the nearest element that ``ok`` accepts, after it first, within a few levels around it.
  function drawnFor(hidden, ok) {
    let box = up(hidden);
    for (let i = 0; box && i < 4; i++, box = up(box)) {
      const all = [box, ...deepAll(box, "*")].filter((e) => e !== hidden && ok(e));
      if (all.length) {
        const after = all.filter((e) => !e.contains(hidden) && before(hidden, e));
        const around = all.filter((e) => e.contains(hidden));
        return after[0] || around[around.length - 1] || all[all.length - 1];
      }
    }
    return null;
  }

  function inner(host, selector) {
    return host.shadowRoot ? deepAll(host.shadowRoot, selector)[0] || null : null;
  }

  function selectTarget(el) {
    if (el.tagName === "SELECT") {
      if (shown(el)) return { type: "native", el };
      const drawn = drawnFor(el, (e) => shown(e) && isTrigger(e));
      return drawn ? { type: "custom", el: drawn, original: el } : { type: "native", el };
    }
    if (el.shadowRoot) {
      const trigger = inner(el, TRIGGER);
      if (trigger) return { type: "custom", el: trigger, host: el };
    }
    if (isTrigger(el)) {
      if (shown(el)) return { type: "custom", el };
      const drawn = drawnFor(el, (e) => shown(e) && (isTrigger(e) || e.tagName === "INPUT"));
      return drawn ? { type: "custom", el: drawn, original: el } : { type: "custom", el };
    }
    const within = deepAll(el, TRIGGER).filter(shown)[0];
    if (within) return { type: "custom", el: within };
    if (!shown(el) && el.tagName === "INPUT") {
      const drawn = drawnFor(el, (e) => shown(e) && (isTrigger(e) || e.tagName === "INPUT"));
      if (drawn) return { type: "custom", el: drawn, original: el };
    }
    if (shown(el) && ((el.tagName === "INPUT" && TEXTY(el)) || el.tagName === "BUTTON" || el.getAttribute("role") === "button"))
      return { type: "custom", el };
    return null;
  }

  // What a person clicks for a box drawn in place of an invisible input: its label, else the
  // drawn box around or beside it.
  function clickFor(input) {
    for (const l of input.labels || []) if (shown(l)) return l;
    let a = up(input);
    for (let i = 0; a && i < 3; i++, a = up(a)) if (shown(a)) return a;
    for (const s of [input.nextElementSibling, input.previousElementSibling]) if (s && shown(s)) return s;
    return null;
  }

  function tickTarget(el) {
    if (el.tagName === "INPUT" && (el.type === "checkbox" || el.type === "radio")) {
      if (shown(el)) return { type: "native", el };
      const click = clickFor(el);
      return click ? { type: "drawn", el, click } : { type: "native", el };
    }
    if (el.matches(TICKS)) return { type: "aria", el, click: shown(el) ? el : clickFor(el) || el };
    if (el.shadowRoot) {
      const t = inner(el, TICKS);
      if (t) return { type: "drawn", el: t, host: el, click: shown(t) ? t : el };
    }
    const within = deepAll(el, TICKS)[0];
    if (within && within !== el) {
      const t = tickTarget(within);
      if (t && t.type !== "native" && shown(el) && el.tagName === "LABEL") t.click = el;
      return t;
    }
    return null;
  }

  function sliderTarget(el) {
    let thumbs = [];
    if (el.matches(THUMBS)) thumbs = [el];
    else if (el.shadowRoot) thumbs = deepAll(el.shadowRoot, THUMBS);
    else thumbs = deepAll(el, THUMBS);
    if (!thumbs.length) return null;
    // An <input type=range> a library keeps inside its role=slider thumb: the thumb is one.
    thumbs = thumbs.filter((t) => !thumbs.some((o) => o !== t && o.contains(t)));
    return { type: "slider", el: thumbs[0], thumbs };
  }

  // The other thumb of a two-thumb slider whose one thumb a label found.
  function allThumbs(thumb) {
    let box = up(thumb);
    for (let i = 0; box && i < 4; i++, box = up(box)) {
      const t = deepAll(box, THUMBS).filter((x) => !deepAll(box, THUMBS).some((o) => o !== x && o.contains(x)));
      if (t.length === 2) return t;
      if (t.length > 2) break; // another slider's thumbs: this one has one

    }
    return [thumb];
  }

  function dateTarget(el) {
    if (el.shadowRoot) {
      const i = inner(el, "input");
      if (i) return dateTarget(i);
    }
    if (el.tagName === "INPUT") {
      if (DATE_TYPES.includes(el.type)) return { type: "native", el };
      if (el.type === "hidden" || !shown(el)) {
        const group = drawnFor(el, (e) => shown(e) && deepAll(e, "[role=spinbutton]").filter(shown).length >= 2);
        if (group) return { type: "segments", el: group, parts: deepAll(group, "[role=spinbutton]").filter(shown), original: el };
        const drawn = drawnFor(el, (e) => shown(e) && e.tagName === "INPUT" && e.type !== "hidden");
        if (drawn) return { ...dateTarget(drawn), original: el };
      }
      return { type: "text", el };
    }
    const parts = deepAll(el, "[role=spinbutton]").filter(shown);
    if (parts.length >= 2) return { type: "segments", el, parts };
    if (el.matches("[role=spinbutton]")) {
      const group = allParts(el);
      return { type: "segments", el: group.box, parts: group.parts };
    }
    const input = deepAll(el, "input:not([type=hidden])")[0];
    if (input) return dateTarget(input);
    return null;
  }

  function allParts(part) {
    let box = up(part);
    for (let i = 0; box && i < 3; i++, box = up(box)) {
      const parts = deepAll(box, "[role=spinbutton]").filter(shown);
      if (parts.length >= 2) return { box, parts };
    }
    return { box: part, parts: [part] };
  }

  // A text field that belongs to a date picker (a calendar opens on it, it takes no typing, its
  // placeholder is a date's format): ``fill`` with a date picks the date there.
  function isPicker(el) {
    if (el.tagName !== "INPUT") return false;
    if (DATE_TYPES.includes(el.type)) return true;
    const words = `${el.className} ${el.id} ${el.name} ${el.getAttribute("data-testid") || ""}`;
    if (/date|picker|calendar|flatpickr/i.test(words)) return true;
    if (["dialog", "grid", "true"].includes(el.getAttribute("aria-haspopup"))) return true;
    const ph = el.getAttribute("placeholder") || "";
    if (/(yyyy|mm[\/.-]|dd[\/.-]|jj[\/.-])/i.test(ph) || /\d{1,2}[\/.]\d{1,2}[\/.]\d{2,4}/.test(ph)) return true;
    return el.readOnly && !el.disabled && /\d{4}|\d{1,2}[\/.]\d{1,2}/.test(el.value);
  }


  // What ``fill`` means on the element: a slider, a date picker, or a text field (the one drawn
  // for a hidden original).
  function fillTarget(el) {
    if (el.shadowRoot) {
      const i = inner(el, "input, textarea, [role=slider]");
      if (i) {
        const t = fillTarget(i);
        if (t) t.host = el;
        return t;
      }
    }
    if (el.matches(THUMBS) || (!TEXTY(el) && deepAll(el, THUMBS).length && !deepAll(el, "input:not([type=range]):not([type=hidden]), textarea").length))
      return sliderTarget(el);
    if (el.tagName === "INPUT" && el.type === "hidden") {
      const d = dateTarget(el);
      if (d && d.el !== el) return { ...d, date: true };
      return null;
    }
    if (TEXTY(el)) {
      if (!shown(el) && el.tagName === "INPUT") {
        const d = dateTarget(el);
        if (d && (d.type === "segments" || (d.el !== el && isPicker(d.el)))) return { ...d, date: true };
        const drawn = drawnFor(el, (e) => shown(e) && TEXTY(e));
        if (drawn) return { type: "text", el: drawn, original: el, date: isPicker(drawn) };
      }
      return { type: el.tagName === "INPUT" && DATE_TYPES.includes(el.type) ? "native" : "text", el, date: isPicker(el) };
    }
    const d = dateTarget(el);
    if (d && d.type === "segments") return { ...d, date: true };
    // Any other input (a colour, a file): Playwright's fill says what it takes.
    if (el.tagName === "INPUT") return { type: "text", el };
    const within = deepAll(el, "input:not([type=hidden]), textarea").filter((x) => x !== el && shown(x));
    if (within.length === 1) return fillTarget(within[0]);
    return null;
  }

  const TARGETS = { select: selectTarget, check: tickTarget, slider: sliderTarget, date: dateTarget, fill: fillTarget };

  // The one widget of ``kind`` that the op's locator (its matches) or its label names. A label
  // that names the library's hidden original and the widget drawn for it names one widget.
  function find(spec, matches) {
    const target = TARGETS[spec.kind];
    const rootNode = spec.root || document;
    const tiers = [matches];
    if (spec.label) tiers.push(() => labelled(rootNode, spec.label, spec.exact), () => beside(rootNode, spec.label, spec.exact));
    const seen = [];
    for (const tier of tiers) {
      const els = typeof tier === "function" ? tier() : tier;
      const out = [];
      for (const el of els) {
        seen.push(el);
        const t = target(el);
        if (!t) continue;
        const same = out.find((o) => o.el === t.el || (o.host && o.host === t.host));
        if (!same) out.push(t);
        else if (t.original && !same.original) same.original = t.original; // the form's value, kept
      }
      // Several that a person can see: the drawn ones (a hidden original is not what they mean).
      const visible = out.filter((t) => shown(t.click || t.el) || (t.host && shown(t.host)) || (t.thumbs && t.thumbs.some(shown)));
      const pick = visible.length ? visible : out;
      if (pick.length === 1) return finish(spec, pick[0]);
      if (pick.length > 1) {
        // Two thumbs of one slider are one widget.
        if (pick.every((p) => p.type === "slider" && p.el.matches(THUMBS))) {
          const all = allThumbs(pick[0].el);
          if (pick.every((p) => all.includes(p.el))) return finish(spec, { type: "slider", el: all[0], thumbs: all });
        }
        return { status: "many", found: pick.map((p) => describe(p.host || p.el)) };
      }
    }
    return { status: "none", found: [...new Set(seen.map(describe))].slice(0, 3) };
  }

  function finish(spec, t) {
    if (t.type === "slider" && spec.thumbs === 2 && t.thumbs.length < 2) t.thumbs = allThumbs(t.el);
    // A control found inside a web component's shadow root: the component is the widget.
    const around = t.el.getRootNode().host;
    if (!t.host && around && around.tagName.includes("-")) t.host = around;
    const main = t.host || t.el;
    t.status = "ok";
    t.name = nameOf(main) || nameOf(t.el) || spec.label || "";
    t.what = describe(main);
    // A widget whose own name is empty (a Select2 box labelled by its empty choice) is named as
    // the op named it.
    if (!t.what.includes('"') && spec.label) t.what = `${t.what} "${spec.label}"`;
    t.disabled = isDisabled(t);
    t.date = !!t.date;
    t.multiple = !!(t.original && t.original.multiple) || t.el.getAttribute("aria-multiselectable") === "true" || (t.host && t.host.hasAttribute("multiple")) || false;
    return t;
  }

  function isDisabled(t) {
    for (const e of [t.el, t.host, t.original, t.click].filter(Boolean)) {
      if (e.disabled || e.getAttribute("aria-disabled") === "true" || e.hasAttribute("data-disabled")) return true;
      // A library that marks its whole widget (noUiSlider: the target's disabled attribute).
      if (e.closest && e.closest("fieldset[disabled], [disabled]:not(option):not(optgroup), [aria-disabled=true]")) return true;
    }
    return false;
  }

  // -------------------------------------------------------------------- pop-ups and options

  const LISTS = "[role=listbox], [role=menu], [role=tree], [role=grid], datalist";
  const OPTION = "[role=option], [role=menuitem], [role=menuitemcheckbox], [role=menuitemradio], [role=treeitem]";

  // The options of a list, the ones a web component slots into its shadow list box too.
  function optionEls(list) {
    const own = deepAll(list, OPTION);
    const slotted = deepAll(list, "slot").flatMap((slot) => slot.assignedElements({ flatten: true }));
    const more = slotted.flatMap((e) => (e.matches(OPTION) ? [e] : deepAll(e, OPTION)));
    return [...new Set([...own, ...more])];
  }

  // The lists shown when the op began: the one a widget opens is the one shown since (a pop-up
  // drawn in place, or in a portal at the end of <body>), not one another field shows.
  const GENERIC = "ul, ol, [class*=menu], [class*=dropdown], [class*=options], [class*=results], [class*=list], [class*=popover], [class*=popup], [class*=suggest]";
  let shownBefore = new WeakSet();

  function lists() {
    const byRole = deepAll(document, LISTS).filter((l) => shown(l) && (l.tagName === "DATALIST" || deepAll(l, OPTION).some(shown)));
    const generic = [...document.querySelectorAll(GENERIC)].filter(
      (l) => shown(l) && [...l.children].some((c) => shown(c) && norm(textOf(c)))
    );
    return [...new Set([...byRole, ...generic])];
  }

  function mark() {
    shownBefore = new WeakSet(lists());
    return true;
  }

  // The list of options the trigger shows: the one it names (aria-controls, aria-owns), else the
  // one shown since the op began (the innermost that holds options), else one shown inside its
  // own widget.
  function popup(trigger, host) {
    const ids = [trigger.getAttribute("aria-controls"), trigger.getAttribute("aria-owns")].filter(Boolean).join(" ");
    for (const id of ids.split(/\s+/).filter(Boolean)) {
      const el = byId(trigger, id);
      if (el && shown(el) && (el.matches(LISTS) || deepAll(el, OPTION).some(shown))) {
        return el.matches(LISTS) ? el : deepAll(el, LISTS).filter(shown)[0] || el;
      }
    }
    const all = lists();
    const mine = (l) => !l.contains(trigger) || (host && !l.contains(host));
    // A list of chips inside the widget's own box is what it shows chosen, not its pop-up.
    const inBox = (l) => !l.matches(LISTS) && (trigger.contains(l) || (host && host.contains(l)));
    const fresh = all.filter((l) => !shownBefore.has(l) && mine(l) && !inBox(l));
    const pick = (found) => {
      const withOptions = found.filter((l) => deepAll(l, OPTION).some(shown));
      const pool = withOptions.length ? withOptions : found;
      // The innermost: a pop-up's box holds the list itself.
      const inner = pool.filter((l) => !pool.some((o) => o !== l && l.contains(o)));
      return inner[inner.length - 1] || null;
    };
    const shadow = host && host.shadowRoot ? deepAll(host.shadowRoot, LISTS).filter((l) => shown(l) && optionEls(l).length) : [];
    if (shadow.length) return shadow[0];
    const found = pick(fresh);
    if (found) return found;
    // Already open when the op began: the list with options inside this widget, when the
    // widget says it is expanded (a list of the chosen items is no pop-up).
    if ((host || trigger).getAttribute("aria-expanded") !== "true" && trigger.getAttribute("aria-expanded") !== "true") return null;
    const root = fieldRoot({ el: trigger, host });
    return pick(all.filter((l) => root.contains(l) && mine(l) && l.matches(LISTS) && deepAll(l, OPTION).some(shown)));
  }

  function optionsOf(list) {
    if (!list) return [];
    if (list.tagName === "DATALIST") return [...list.options].map((o) => ({ el: o, text: norm(o.label || o.value), selected: false, disabled: o.disabled }));
    let opts = optionEls(list);
    if (!opts.length) opts = [...list.children].filter((c) => shown(c) && norm(textOf(c)));
    return opts
      .filter((o) => shown(o) || o.getAttribute("aria-selected") === "true")
      .map((o) => ({
        el: o,
        text: norm(o.getAttribute("aria-label") && !norm(textOf(o)) ? o.getAttribute("aria-label") : textOf(o)) || norm(o.getAttribute("label") || o.getAttribute("value")),
        selected: o.getAttribute("aria-selected") === "true" || o.getAttribute("aria-checked") === "true" || o.hasAttribute("selected") && o.tagName !== "OPTION",
        disabled: o.getAttribute("aria-disabled") === "true" || o.hasAttribute("disabled") || o.hasAttribute("data-disabled"),
      }));
  }

  // -------------------------------------------------------------------- what a widget shows

  // The widget's own box: the trigger's ancestors up to the one that holds another field or a label.
  function fieldRoot(t) {
    let a = t.host || t.el;
    for (let i = 0; i < 4; i++) {
      const p = up(a);
      if (!p || p === document.body) break;
      const others = deepAll(p, FIELD + ", label, legend").filter((e) => !a.contains(e) && e !== p && e !== t.original && !(t.original && t.original.contains(e)) && (shown(e) || e.tagName === "LABEL"));
      const fields = others.filter((e) => e.matches("input:not([type=hidden]), select, textarea, [role=combobox], [role=slider], [role=checkbox], [role=switch], label, legend"));
      if (fields.length) break;
      a = p;
    }
    return a;
  }

  // The texts shown in the widget's box (chips, tags, the chosen option's text), each once.
  function shownTexts(root, skip) {
    const out = [];
    const walk = (node) => {
      if (node.nodeType === 3) {
        const t = norm(node.textContent);
        if (t && node.parentElement && shown(node.parentElement) && !out.includes(t)) out.push(t);
        return;
      }
      if (node.nodeType !== 1 && node.nodeType !== 11) return;
      if (node.nodeType === 1) {
        if (skip.includes(node) || node.matches("[role=listbox], [role=option], [aria-live], [role=log], [role=status], input, textarea, style, script")) return;
        // A chip's remove button is not part of what is chosen.
        const words = `${node.getAttribute("aria-label") || ""} ${node.getAttribute("title") || ""} ${typeof node.className === "string" ? node.className : ""}`;
        if (node !== root && /\b(remove|delete|clear|close)/i.test(words) && !node.matches("[role=combobox]") && norm(textOf(node)).length <= 15) return;
        if (node.getAttribute("aria-hidden") === "true" && !node.closest("[role=combobox]")) return;
        if (node.shadowRoot) {
          walk(node.shadowRoot);
          return;
        }
      }
      if (node.tagName === "SLOT") {
        node.assignedNodes({ flatten: true }).forEach(walk);
        return;
      }
      node.childNodes.forEach(walk);
    };
    walk(root);
    return out;
  }

  // The option(s) a select-like widget shows chosen, by their labels.
  function chosen(t, known) {
    if (t.type === "native" || (t.original && t.original.tagName === "SELECT")) {
      const sel = t.type === "native" ? t.el : t.original;
      return [...sel.selectedOptions].filter((o) => o.value !== "" || norm(o.label)).map((o) => norm(o.label || o.textContent));
    }
    if (t.host && "value" in t.host && t.host.tagName.includes("-")) {
      // A web component keeps its value; its options are its children.
      const values = Array.isArray(t.host.value) ? t.host.value : String(t.host.value || "").split(" ").filter(Boolean);
      const opts = [...t.host.querySelectorAll("*")].filter((o) => o.hasAttribute("value"));
      return values.map((v) => norm(textOf(opts.find((o) => o.getAttribute("value") === v)) || v));
    }
    const el = t.el;
    const root = fieldRoot(t);
    const placeholder = low(el.getAttribute("placeholder"));
    let texts = shownTexts(root, []).filter((x) => low(x) !== placeholder);
    if (el.tagName === "INPUT" && norm(el.value)) texts = [norm(el.value), ...texts.filter((x) => x !== norm(el.value))];
    if (known && known.length) {
      const opts = known.map(norm);
      // A multi-select that shows its choices as one text ("Gift wrap, Insurance").
      texts = texts.flatMap((x) => {
        const parts = x.split(/\s*,\s*/);
        return !opts.includes(x) && parts.length > 1 && parts.every((p) => opts.includes(p)) ? parts : [x];
      });
      const hits = texts.filter((x) => opts.includes(x));
      if (hits.length || t.multiple) return hits;
    }
    // Marks drawn around the value (a caret, a clear cross) are not part of it.
    return texts.filter((x) => !/^[×✕✖▾▼▴▲⌄⌃xX]$/.test(x));
  }

  function ticked(t) {
    if (t.host && "checked" in t.host) return !!t.host.checked;
    if (t.el.tagName === "INPUT") return t.el.checked;
    const a = t.el.getAttribute("aria-checked") || t.el.getAttribute("aria-pressed") || t.el.getAttribute("aria-selected");
    if (a === "true" || a === "mixed") return true;
    if (a === "false") return false;
    if (t.el.hasAttribute("data-checked") || t.el.getAttribute("data-state") === "checked") return true;
    return false;
  }

  function thumb(el) {
    if (el.tagName === "INPUT") {
      const min = el.min === "" ? 0 : Number(el.min);
      const max = el.max === "" ? 100 : Number(el.max);
      const step = el.step === "any" ? null : el.step === "" ? 1 : Number(el.step);
      return { now: Number(el.value), min, max, step, text: el.getAttribute("aria-valuetext") || el.value };
    }
    const num = (a) => (el.getAttribute(a) === null || el.getAttribute(a) === "" ? null : Number(el.getAttribute(a)));
    let now = num("aria-valuenow");
    if (now === null && el.getAttribute("aria-valuetext")) now = Number(String(el.getAttribute("aria-valuetext")).replace(/[^0-9.+-]/g, ""));
    return { now, min: num("aria-valuemin"), max: num("aria-valuemax"), step: null, text: el.getAttribute("aria-valuetext") || (now === null ? "" : String(now)) };
  }

  function sliderBox(t) {
    // The track: the smallest box around every thumb that is wider (or taller) than a thumb.
    let a = up(t.thumbs[0]);
    for (let i = 0; a && i < 5; i++, a = up(a)) {
      const r = a.getBoundingClientRect();
      const tr = t.thumbs[0].getBoundingClientRect();
      if (t.thumbs.every((x) => a.contains(x)) && (r.width > tr.width * 3 || r.height > tr.height * 3)) return r.toJSON();
    }
    return t.thumbs[0].getBoundingClientRect().toJSON();
  }

  // Whether a date field says it refuses what it shows: aria-invalid, or a native input's own
  // validity (before its min, after its max). With what the field allows, where it says.
  function dateRefused(t) {
    const els = [t.el, t.original, t.host, ...(t.parts || [])].filter(Boolean);
    for (const e of els) {
      const box = e.closest ? e.closest("[aria-invalid=true]") : null;
      if (e.getAttribute("aria-invalid") === "true" || box) return { refused: true, min: e.min || e.getAttribute("min") || null, max: e.max || e.getAttribute("max") || null };
      if (e.tagName === "INPUT" && e.validity && (e.validity.rangeOverflow || e.validity.rangeUnderflow || e.validity.badInput))
        return { refused: true, min: e.min || null, max: e.max || null };
    }
    return { refused: false };
  }

  function dateShown(t) {
    if (t.type === "segments") return { text: norm(t.parts.map((p) => textOf(p)).join(" ")), parts: t.parts.map(partOf), value: t.original ? t.original.value : null };
    const el = t.el;
    return { text: el.value, placeholder: el.getAttribute("placeholder") || "", readonly: el.readOnly, original: t.original ? t.original.value : null };
  }

  function partOf(p) {
    const name = low(p.getAttribute("aria-label") || p.getAttribute("data-type") || p.getAttribute("placeholder") || textOf(p));
    return {
      name,
      text: norm(textOf(p)),
      now: p.getAttribute("aria-valuenow"),
      min: p.getAttribute("aria-valuemin"),
      max: p.getAttribute("aria-valuemax"),
      valueText: p.getAttribute("aria-valuetext") || "",
      placeholder: p.getAttribute("placeholder") || "",
    };
  }

  // A calendar pop-up: its shown month and year, the buttons that turn it, its days.
  const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
  function calendar(trigger) {
    const cands = deepAll(document, "[role=dialog], [role=grid], [role=application], table, [class*=calendar], [class*=picker], [class*=datepicker]").filter(shown);
    const withDays = cands.filter((c) => deepAll(c, "button, td, [role=gridcell], span, a").filter((d) => /^\d{1,2}$/.test(norm(textOf(d)))).length >= 28);
    if (!withDays.length) return null;
    // The outermost pop-up that holds the days (its header and its buttons with it).
    let cal = withDays.find((c) => !withDays.some((o) => o !== c && o.contains(c) === false && c.contains(o) === false && false)) || withDays[0];
    for (const c of withDays) if (c.contains(cal) && c !== cal && deepAll(c, "*").length < 3000) cal = c;
    return cal;
  }

  function calendarView(cal) {
    // Every shown text of the pop-up (a calendar announces its month to screen readers: a live
    // region is still its header).
    const texts = [];
    const walker = document.createTreeWalker(cal, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const t = norm(n.textContent);
      if (t && n.parentElement && shown(n.parentElement)) texts.push(t);
    }
    const joined = texts.join(" ");
    let month = null;
    let year = null;
    const selects = deepAll(cal, "select").filter(shown);
    for (const s of selects) {
      const v = s.selectedOptions[0] ? low(s.selectedOptions[0].textContent) : "";
      if (/^\d{4}$/.test(v)) year = Number(v);
      const mi = MONTHS.findIndex((m) => v.startsWith(m.slice(0, 3)));
      if (mi >= 0) month = mi;
    }
    const yin = deepAll(cal, "input").find((i) => /^\d{4}$/.test(i.value));
    if (yin) year = Number(yin.value);
    if (month === null) {
      for (const t of texts) {
        const l = t.toLowerCase();
        const mi = MONTHS.findIndex((m) => l === m || l.startsWith(m + " ") || l === m.slice(0, 3) || l.startsWith(m.slice(0, 3) + " "));
        if (mi >= 0) {
          month = mi;
          const y = l.match(/\b(\d{4})\b/);
          if (y && year === null) year = Number(y[1]);
          break;
        }
      }
    }
    if (year === null) {
      const y = joined.match(/\b(19|20|21)\d{2}\b/);
      if (y) year = Number(y[0]);
    }
    const btn = (re) =>
      deepAll(cal, "button, [role=button], a, span[class*=next], span[class*=prev]").filter((b) => shown(b) && re.test(low(b.getAttribute("aria-label") || b.getAttribute("title") || b.className || textOf(b))))[0] || null;
    return { month, year, next: btn(/next|›|»|→/), prev: btn(/prev|‹|«|←/) };
  }

  function dayCell(cal, y, m, d) {
    const cells = deepAll(cal, "button, td, [role=gridcell], a, span").filter((c) => shown(c) && norm(textOf(c)) === String(d));
    const longName = [MONTHS[m], String(d), String(y)];
    const outside = /(prev|next|other|outside|disabled|adjacent|hidden)/i;
    const named = cells.find((c) => {
      const n = low(c.getAttribute("aria-label") || c.getAttribute("title") || "");
      return longName.every((p) => n.includes(p)) || n.includes(`${y}-${String(m + 1).padStart(2, "0")}-${String(d).padStart(2, "0")}`);
    });
    if (named) return named;
    const inMonth = cells.filter((c) => !outside.test(c.className + " " + (c.parentElement ? c.parentElement.className : "")) && c.getAttribute("aria-disabled") !== "true");
    // The innermost: a <td> holding a <button> or <a> is the same day.
    const leaf = inMonth.filter((c) => !inMonth.some((o) => o !== c && c.contains(o)));
    return leaf[0] || null;
  }

  // Where a click opens a multi-select without landing on a chosen chip (or its remove button):
  // its search field, else a point of the box no chip covers. Relative to the element.
  function clickPoint(t) {
    const el = t.el;
    const r = el.getBoundingClientRect();
    const field = deepAll(el, "input:not([type=hidden])").filter((i) => shown(i) && i !== el)[0];
    if (field) {
      const f = field.getBoundingClientRect();
      return { x: f.left - r.left + Math.min(f.width / 2, 8), y: f.top - r.top + f.height / 2 };
    }
    const chipish = "button, [role=button], a, svg, [class*=remove], [class*=clear], [class*=delete], [class*=chip], [class*=tag], [class*=multi-value], [class*=multiValue], [class*=choice], [class*=item]";
    const y = r.height / 2;
    for (const share of [0.97, 0.5, 0.85, 0.7, 0.3, 0.03]) {
      const x = r.left + r.width * share;
      const hit = document.elementFromPoint(x, r.top + y);
      if (!hit || !(el === hit || el.contains(hit))) continue;
      const near = hit.closest(chipish);
      if (!near || near === el || near.contains(el)) return { x: x - r.left, y };
    }
    return null;
  }

  window.__reuseitWidgets = {
    clickPoint,
    shownTexts,
    find,
    mark,
    popup,
    optionsOf,
    chosen,
    ticked,
    thumb,
    sliderBox,
    dateShown,
    dateRefused,
    calendar,
    calendarView,
    dayCell,
    shown,
    describe,
    fieldRoot,
    nameOf,
    drawnFor,
    selectTarget,
  };
})();
