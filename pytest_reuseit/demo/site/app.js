/* Trailhead Outfitters: the pytest-reuseit demo shop.
 *
 * One shared script for every page (each page sets <body data-page="...">). All state lives in
 * sessionStorage, so every browser context starts clean. The hazards web agents trip on are
 * switched by query parameters, remembered for the session once given (an empty value resets one):
 *
 *   cookies=always|never|random   cookie consent overlay (default random: 50%, rolled once per session)
 *   cookie_delay=ms               show the cookie overlay this long after load (default 0)
 *   popup=always|never|random     newsletter modal (default never)
 *   popup_delay=ms                show the newsletter modal this long after load (default 0)
 *   delay=ms                      how long the search results take to load (default 800)
 *   broken=search                 the search button loses its accessible name and id (site drift)
 *   defect=price                  every price is shown 100x too high (a product defect)
 *   today=YYYY-MM-DD              the date the booking calendar treats as today
 *   reset=1                       forget all state and switches first
 */
(function () {
  'use strict';

  const S = window.sessionStorage;
  const params = new URLSearchParams(location.search);
  const SWITCHES = ['cookies', 'cookie_delay', 'popup', 'popup_delay', 'delay', 'broken', 'defect', 'today'];

  if (params.get('reset') === '1') S.clear();
  for (const key of SWITCHES) {
    if (!params.has(key)) continue;
    const value = params.get(key).trim();
    if (value === '') S.removeItem('demo.sw.' + key);
    else S.setItem('demo.sw.' + key, value);
  }
  const sw = (key, fallback) => S.getItem('demo.sw.' + key) ?? fallback;
  const num = (key, fallback) => {
    const n = parseInt(sw(key, ''), 10);
    return Number.isFinite(n) && n >= 0 ? n : fallback;
  };

  const PRODUCTS = [
    { id: 'p1', name: 'Trail Running Shoes', category: 'shoes', price: 89.99, stock: true, tags: 'running trail sneaker' },
    { id: 'p2', name: 'Trail Hiking Shoes', category: 'shoes', price: 119.0, stock: true, tags: 'hiking trail boot' },
    { id: 'p3', name: 'Trail Shoes Junior', category: 'shoes', price: 54.5, stock: false, tags: 'kids trail' },
    { id: 'p4', name: 'Road Running Shoes', category: 'shoes', price: 74.0, stock: true, tags: 'running road sneaker' },
    { id: 'p5', name: 'City Sneakers', category: 'shoes', price: 64.0, stock: true, tags: 'casual sneaker' },
    { id: 'p6', name: 'Rain Jacket Pro', category: 'jackets', price: 149.0, stock: true, tags: 'rain waterproof shell' },
    { id: 'p7', name: 'Packable Rain Jacket', category: 'jackets', price: 79.95, stock: true, tags: 'rain waterproof light' },
    { id: 'p8', name: 'Kids Rain Jacket', category: 'jackets', price: 39.99, stock: false, tags: 'rain kids' },
    { id: 'p9', name: 'Down Winter Jacket', category: 'jackets', price: 199.0, stock: true, tags: 'winter warm insulated' },
    { id: 'p10', name: 'Hiking Backpack 30L', category: 'bags', price: 99.0, stock: true, tags: 'backpack hiking pack' },
    { id: 'p11', name: 'Daypack 18L', category: 'bags', price: 49.99, stock: true, tags: 'backpack day pack' },
    { id: 'p12', name: 'Waterproof Duffel Bag', category: 'bags', price: 84.0, stock: false, tags: 'duffel travel' },
    { id: 'p13', name: 'Merino Wool Socks', category: 'accessories', price: 14.99, stock: true, tags: 'socks wool hiking' },
  ];
  const CATEGORIES = { shoes: 'Shoes', jackets: 'Jackets', bags: 'Bags', accessories: 'Accessories' };

  const $ = (sel, root) => (root || document).querySelector(sel);
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => '&#' + c.charCodeAt(0) + ';');
  const money = (p) => '$' + (sw('defect', '') === 'price' ? p * 100 : p).toFixed(2);
  const product = (id) => PRODUCTS.find((p) => p.id === id);
  const later = (ms, fn) => (ms > 0 ? setTimeout(fn, ms) : fn());

  /* ---------- cart and header ---------- */

  const cart = () => JSON.parse(S.getItem('demo.cart') || '{}');
  const saveCart = (c) => { S.setItem('demo.cart', JSON.stringify(c)); updateCartCount(); };
  function updateCartCount() {
    const n = Object.values(cart()).reduce((a, b) => a + b, 0);
    const el = $('#cart-count');
    if (el) el.textContent = String(n);
  }

  function renderHeader() {
    const header = $('#site-header');
    if (!header) return;
    const page = document.body.dataset.page;
    const user = S.getItem('demo.user');
    const link = (href, label, name) =>
      `<a href="${href}"${page === name ? ' aria-current="page"' : ''}>${label}</a>`;
    header.innerHTML =
      '<div class="bar"><a class="brand" href="index.html">Trailhead Outfitters<span class="badge">demo</span></a>' +
      '<nav aria-label="Main">' + link('index.html', 'Shop', 'index') + link('book.html', 'Book a fitting', 'book') +
      link('login.html', user ? 'My account' : 'Log in', 'login') +
      `<a href="cart.html" class="cart-link" data-testid="cart-link"${page === 'cart' ? ' aria-current="page"' : ''}>` +
      'Cart (<span id="cart-count" data-testid="cart-count">0</span>)</a>' +
      (user ? `<span class="user" data-testid="user">Signed in as ${esc(user)}</span>` : '') + '</nav></div>';
    updateCartCount();
    const footer = $('#site-footer');
    if (footer) {
      footer.innerHTML = '<p>Trailhead Outfitters is a demo shop for pytest-reuseit. Nothing here is for sale. ' +
        '<a href="inject.html">Customer reviews</a></p>';
    }
  }

  /* ---------- overlays: cookie consent and newsletter ---------- */

  function decide(mode, rollKey) {
    if (mode === 'always') return true;
    if (mode !== 'random') return false;
    if (S.getItem(rollKey) === null) S.setItem(rollKey, Math.random() < 0.5 ? 'show' : 'hide');
    return S.getItem(rollKey) === 'show';
  }

  function overlay(cls, html) {
    const el = document.createElement('div');
    el.className = 'overlay ' + cls;
    el.innerHTML = html;
    document.body.appendChild(el);
    return el;
  }

  function cookieBanner() {
    if (S.getItem('demo.consent') || !decide(sw('cookies', 'random'), 'demo.cookieRoll')) return;
    later(num('cookie_delay', 0), () => {
      const el = overlay('cookie-overlay',
        '<div class="cookie-banner" role="dialog" aria-modal="true" aria-label="Cookie consent" data-testid="cookie-banner">' +
        '<h2>We value your privacy</h2><p>We use cookies to remember your cart and to measure how the shop is used. ' +
        'You can accept all cookies or reject the optional ones.</p>' +
        '<div class="actions"><button type="button" class="primary" data-consent="accepted">Accept cookies</button>' +
        '<button type="button" data-consent="rejected">Reject</button></div></div>');
      el.addEventListener('click', (e) => {
        const choice = e.target.closest('[data-consent]');
        if (!choice) return;
        S.setItem('demo.consent', choice.dataset.consent);
        el.remove();
      });
    });
  }

  function newsletter() {
    if (S.getItem('demo.popupClosed') || !decide(sw('popup', 'never'), 'demo.popupRoll')) return;
    later(num('popup_delay', 0), () => {
      const el = overlay('popup-overlay',
        '<div class="popup" role="dialog" aria-modal="true" aria-labelledby="popup-title" data-testid="newsletter">' +
        '<button type="button" class="close" aria-label="Close">&times;</button>' +
        '<h2 id="popup-title">Get 10% off your first order</h2><p>Join our newsletter for trail tips and offers.</p>' +
        '<form class="inline"><label for="nl-address">E-mail address</label>' +
        '<input id="nl-address" type="text" autocomplete="off"><button type="submit" class="primary">Subscribe</button></form></div>');
      const close = () => { S.setItem('demo.popupClosed', '1'); el.remove(); };
      $('.close', el).addEventListener('click', close);
      $('form', el).addEventListener('submit', (e) => { e.preventDefault(); close(); });
    });
  }

  /* ---------- search form (index and search pages) ---------- */

  function initSearchForm() {
    const btn = $('#search-btn');
    if (!btn || sw('broken', '') !== 'search') return;
    // Site drift: the button becomes an unlabelled icon with a new id.
    btn.id = 'btn-go';
    btn.innerHTML = '<svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true"><circle cx="10" cy="10" r="7" ' +
      'fill="none" stroke="currentColor" stroke-width="2.5"/><path d="M15 15l6 6" stroke="currentColor" stroke-width="2.5"/></svg>';
  }

  /* ---------- search results ---------- */

  const words = (s) => s.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));

  function initResults() {
    const q = (params.get('q') || '').trim();
    const category = $('#category');
    const instock = $('#instock');
    const sort = $('#sort');
    const list = $('#results');
    const loading = $('#loading');
    const count = $('#result-count');
    const none = $('#no-results');
    const delay = num('delay', 800);
    let seq = 0;

    $('#q').value = q;
    $('#results-heading').textContent = q ? 'Results for ' + q : 'All products';
    document.title = (q ? 'Results for ' + q : 'All products') + ' – Trailhead Outfitters';
    if (CATEGORIES[params.get('category')]) category.value = params.get('category');
    instock.checked = params.get('instock') === '1';
    if (['price-asc', 'price-desc'].includes(params.get('sort'))) sort.value = params.get('sort');

    const wanted = words(q);
    const matches = (p) => {
      const hay = words(p.name + ' ' + CATEGORIES[p.category] + ' ' + p.tags);
      return wanted.every((w) => hay.some((h) => h.startsWith(w)));
    };

    function render() {
      let items = PRODUCTS.filter(matches);
      if (category.value) items = items.filter((p) => p.category === category.value);
      if (instock.checked) items = items.filter((p) => p.stock);
      if (sort.value === 'price-asc') items.sort((a, b) => a.price - b.price);
      if (sort.value === 'price-desc') items.sort((a, b) => b.price - a.price);
      list.innerHTML = items.map((p) =>
        `<li class="result" data-id="${p.id}"><div class="thumb ${p.category}" aria-hidden="true">${CATEGORIES[p.category][0]}</div>` +
        `<a class="name" href="product.html?id=${p.id}">${esc(p.name)}</a>` +
        `<span class="category">${CATEGORIES[p.category]}</span><span class="price">${money(p.price)}</span>` +
        `<span class="stock ${p.stock ? 'in' : 'out'}">${p.stock ? 'In stock' : 'Out of stock'}</span></li>`).join('');
      loading.hidden = true;
      list.setAttribute('aria-busy', 'false');
      count.textContent = items.length === 1 ? '1 result' : items.length + ' results';
      none.hidden = items.length > 0;
      none.textContent = q ? `No results for ${q}. Try another search or clear the filters.` : 'No results. Try clearing the filters.';
    }

    function load() {
      const mine = ++seq;
      list.innerHTML = '';
      list.setAttribute('aria-busy', 'true');
      loading.hidden = false;
      none.hidden = true;
      count.textContent = '';
      later(delay, () => { if (mine === seq) render(); });
    }

    function refilter() {
      const url = new URL(location.href);
      const set = (k, v) => (v ? url.searchParams.set(k, v) : url.searchParams.delete(k));
      set('category', category.value);
      set('instock', instock.checked ? '1' : '');
      set('sort', sort.value);
      history.replaceState(null, '', url);
      load();
    }

    [category, instock, sort].forEach((el) => el.addEventListener('change', refilter));
    load();
  }

  /* ---------- product page ---------- */

  function initProduct() {
    const p = product(params.get('id'));
    const box = $('#product');
    if (!p) {
      box.innerHTML = '<h1>Product not found</h1><p><a href="index.html">Back to the shop</a></p>';
      return;
    }
    document.title = p.name + ' – Trailhead Outfitters';
    box.innerHTML =
      `<div class="thumb big ${p.category}" aria-hidden="true">${CATEGORIES[p.category][0]}</div><div class="details">` +
      `<p class="crumbs"><a href="search.html?category=${p.category}">${CATEGORIES[p.category]}</a></p>` +
      `<h1>${esc(p.name)}</h1><p class="price" data-testid="price">${money(p.price)}</p>` +
      `<p class="stock ${p.stock ? 'in' : 'out'}">${p.stock ? 'In stock' : 'Out of stock'}</p>` +
      `<p>Tested on our local trails. Tags: ${esc(p.tags)}.</p>` +
      '<div class="buy"><label for="qty">Quantity</label><input id="qty" type="number" min="1" max="9" value="1">' +
      `<button type="button" id="add-to-cart" class="primary"${p.stock ? '' : ' disabled'}>Add to cart</button></div>` +
      '<p id="cart-status" role="status" class="note"></p></div>';
    const btn = $('#add-to-cart');
    btn.addEventListener('click', () => {
      const qty = Math.min(9, Math.max(1, parseInt($('#qty').value, 10) || 1));
      btn.disabled = true;
      btn.textContent = 'Adding…';
      setTimeout(() => {
        const c = cart();
        c[p.id] = (c[p.id] || 0) + qty;
        saveCart(c);
        btn.disabled = false;
        btn.textContent = 'Add to cart';
        $('#cart-status').innerHTML = `Added ${esc(p.name)} to your cart. <a href="cart.html">View cart</a>`;
      }, 300);
    });
  }

  /* ---------- cart page ---------- */

  function renderCart() {
    const c = cart();
    const ids = Object.keys(c).filter(product);
    $('#cart-empty').hidden = ids.length > 0;
    $('#cart-summary').hidden = ids.length === 0;
    $('#cart-items').innerHTML = ids.map((id) => {
      const p = product(id);
      return `<li class="cart-item" data-id="${id}"><a class="name" href="product.html?id=${id}">${esc(p.name)}</a>` +
        `<span class="qty">Qty ${c[id]}</span><span class="price">${money(p.price * c[id])}</span>` +
        `<button type="button" data-remove="${id}" aria-label="Remove ${esc(p.name)}">Remove</button></li>`;
    }).join('');
    $('#cart-total').textContent = money(ids.reduce((t, id) => t + product(id).price * c[id], 0));
  }

  function initCart() {
    $('#cart-items').addEventListener('click', (e) => {
      const b = e.target.closest('[data-remove]');
      if (!b) return;
      const next = cart();
      delete next[b.dataset.remove];
      saveCart(next);
      renderCart();
    });
    renderCart();
  }

  /* ---------- booking page: calendar widget and validation ---------- */

  const ymd = (d) => d.getFullYear() + '-' + String(d.getMonth() + 1).padStart(2, '0') + '-' + String(d.getDate()).padStart(2, '0');
  const parseYmd = (s) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s || '');
    return m ? new Date(+m[1], +m[2] - 1, +m[3]) : null;
  };
  const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

  function initBook() {
    const now = new Date();
    const today = parseYmd(sw('today', '')) || new Date(now.getFullYear(), now.getMonth(), now.getDate());
    const form = $('#booking');
    const input = $('#date');
    const opener = $('#choose-date');
    const cal = $('#calendar');
    let shown = new Date(today.getFullYear(), today.getMonth(), 1);

    function drawMonth() {
      $('#cal-month').textContent = MONTHS[shown.getMonth()] + ' ' + shown.getFullYear();
      $('#prev-month').disabled = shown <= new Date(today.getFullYear(), today.getMonth(), 1);
      const first = (shown.getDay() + 6) % 7; // Monday first
      const days = new Date(shown.getFullYear(), shown.getMonth() + 1, 0).getDate();
      let html = '<span></span>'.repeat(first);
      for (let d = 1; d <= days; d++) {
        const date = new Date(shown.getFullYear(), shown.getMonth(), d);
        const sunday = date.getDay() === 0;
        const off = date < today || sunday;
        html += `<button type="button" class="day${ymd(date) === input.value ? ' selected' : ''}" aria-label="${ymd(date)}"` +
          (off ? ' disabled' : '') + (sunday ? ' title="Closed on Sundays"' : '') +
          (ymd(date) === ymd(today) ? ' aria-current="date"' : '') + `>${d}</button>`;
      }
      $('#cal-days').innerHTML = html;
    }
    const open = (yes) => {
      cal.hidden = !yes;
      opener.setAttribute('aria-expanded', String(yes));
      if (yes) {
        const chosen = parseYmd(input.value);
        if (chosen) shown = new Date(chosen.getFullYear(), chosen.getMonth(), 1);
        drawMonth();
      }
    };
    opener.addEventListener('click', () => open(cal.hidden));
    $('#prev-month').addEventListener('click', () => { shown.setMonth(shown.getMonth() - 1); drawMonth(); });
    $('#next-month').addEventListener('click', () => { shown.setMonth(shown.getMonth() + 1); drawMonth(); });
    $('#cal-days').addEventListener('click', (e) => {
      const day = e.target.closest('button.day');
      if (!day || day.disabled) return;
      input.value = day.getAttribute('aria-label');
      open(false);
      showError('date', '');
      opener.focus();
    });
    document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && !cal.hidden) open(false); });
    document.addEventListener('click', (e) => {
      if (!cal.hidden && !cal.contains(e.target) && e.target !== opener && e.target.isConnected) open(false);
    });

    function showError(field, message) {
      const el = $('#' + field + '-error');
      el.textContent = message;
      el.hidden = !message;
      $('#' + field).setAttribute('aria-invalid', message ? 'true' : 'false');
    }

    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const name = $('#name').value.trim();
      const email = $('#email').value.trim();
      const errors = {
        name: name ? '' : 'Name is required',
        email: !email ? 'Email is required' : /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? '' : 'Email is invalid',
        date: input.value ? '' : 'Date is required',
        service: $('#service').value ? '' : 'Service is required',
      };
      Object.entries(errors).forEach(([f, m]) => showError(f, m));
      const bad = Object.keys(errors).find((f) => errors[f]);
      if (bad) { (bad === 'date' ? opener : $('#' + bad)).focus(); return; }
      const submit = $('#book-submit');
      submit.disabled = true;
      submit.textContent = 'Sending…';
      setTimeout(() => {
        let h = 7;
        for (const ch of [name, email, input.value, $('#service').value].join('|')) h = (h * 31 + ch.charCodeAt(0)) % 1000000;
        const service = $('#service').selectedOptions[0].textContent;
        form.hidden = true;
        const done = $('#confirmation');
        done.innerHTML = '<h2>Booking confirmed</h2>' +
          `<p>Your reference number is <strong id="booking-ref" data-testid="booking-ref">BK-${String(h).padStart(6, '0')}</strong>.</p>` +
          `<p>${esc(service)} for ${esc(name)} on ${esc(input.value)}. A confirmation was sent to ${esc(email)}.</p>`;
        done.hidden = false;
      }, 400);
    });
  }

  /* ---------- login page ---------- */

  function initLogin() {
    const form = $('#login');
    const account = $('#account');
    const error = $('#login-error');
    const show = () => {
      const user = S.getItem('demo.user');
      form.hidden = !!user;
      account.hidden = !user;
      if (user) $('#welcome').textContent = 'Welcome, ' + user;
      renderHeader();
    };
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      error.hidden = true;
      const btn = $('#login-submit');
      btn.disabled = true;
      setTimeout(() => {
        btn.disabled = false;
        if ($('#username').value.trim() === 'demo' && $('#password').value === 'demo-pass') {
          S.setItem('demo.user', 'demo');
          $('#password').value = '';
          show();
        } else {
          error.textContent = 'Invalid credentials';
          error.hidden = false;
        }
      }, 300);
    });
    $('#logout').addEventListener('click', () => { S.removeItem('demo.user'); show(); });
    show();
  }

  /* ---------- boot ---------- */

  renderHeader();
  initSearchForm();
  ({ search: initResults, product: initProduct, cart: initCart, book: initBook, login: initLogin }[document.body.dataset.page] || (() => {}))();
  newsletter();
  cookieBanner();
})();
