// Allot dashboard: shared helpers. No library: the pages fetch JSON from the public API and SVG drawn by
// the server, and refresh themselves by polling.
'use strict';

const Allot = (() => {
  const params = new URLSearchParams(location.search);

  // A token handed over once as ?token=... (from 'bin/allot login --print') is kept for the tab's session
  // and taken out of the address bar.
  if (params.has('token')) {
    sessionStorage.setItem('allot.token', params.get('token'));
    params.delete('token');
    history.replaceState(null, '', location.pathname + (params.toString() ? '?' + params : '') + location.hash);
  }

  // The one place a request is made: a login (bearer token) is added here, once, for every page.
  function headers() {
    const token = sessionStorage.getItem('allot.token');
    return token ? { Authorization: 'Bearer ' + token } : {};
  }

  async function api(path, as = 'json') {
    const response = await fetch(path, { headers: headers(), cache: 'no-store' });
    if (response.status === 401 && !sessionStorage.getItem('allot.token')) {
      const token = window.prompt('The API needs a login: paste a token (bin/allot login --user NAME --print)');
      if (token) {
        sessionStorage.setItem('allot.token', token.trim());
        return api(path, as);
      }
    }
    if (!response.ok) {
      const body = await response.text();
      const error = new Error(path + ' answered ' + response.status + ': ' + body);
      error.status = response.status;
      throw error;
    }
    return as === 'text' ? response.text() : response.json();
  }

  function el(tag, attrs = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') e.className = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children.flat()) e.append(c instanceof Node ? c : document.createTextNode(c ?? ''));
    return e;
  }

  const num = (v, digits = 1) => v === null || v === undefined ? '–' : Number(v).toFixed(digits);
  const pct = v => v === null || v === undefined ? '–' : (100 * v).toFixed(1) + ' %';
  const time = iso => iso ? new Date(iso).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : '–';
  const ago = iso => {
    if (!iso) return '–';
    const s = Math.round((new Date(iso) - Date.now()) / 1000);
    const a = Math.abs(s), text = a < 90 ? a + ' s' : a < 5400 ? Math.round(a / 60) + ' min' : (a / 3600).toFixed(1) + ' h';
    return s >= 0 ? 'in ' + text : text + ' ago';
  };

  // The cluster shown: ?cluster=, else the first the service knows.
  async function cluster() {
    if (params.get('cluster')) return params.get('cluster');
    const known = Object.keys((await api('/ui/api/clusters')).clusters);
    return known[0] || 'local';
  }

  // Header: title, the pages, the cluster picker, the last refresh.
  async function frame(page, title) {
    const current = await cluster();
    const link = (href, label) => el('a', { href: href + '?cluster=' + encodeURIComponent(current),
      'aria-current': page === href ? 'page' : null }, label);
    const picker = el('select', { id: 'cluster', 'aria-label': 'cluster',
      onchange: e => { params.set('cluster', e.target.value); location.search = params.toString(); } });
    try {
      const names = Object.keys((await api('/ui/api/clusters')).clusters);
      if (!names.includes(current)) names.unshift(current);
      names.forEach(n => picker.append(el('option', { value: n, selected: n === current }, n)));
    } catch (e) { picker.append(el('option', { value: current }, current)); }
    const jobBox = el('input', { id: 'job-search', placeholder: 'job id', 'aria-label': 'open a job by id',
      onkeydown: e => { if (e.key === 'Enter' && e.target.value.trim()) location.href = 'job.html?cluster='
        + encodeURIComponent(current) + '&id=' + encodeURIComponent(e.target.value.trim()); } });
    document.body.prepend(el('header', {}, el('h1', {}, 'Allot · ' + title),
      el('nav', { 'aria-label': 'pages' }, link('index.html', 'Budgets'), link('queue.html', 'Queue'),
        link('timeline.html', 'GPU timeline')), picker, jobBox,
      el('span', { class: 'status', id: 'status', role: 'status', 'aria-live': 'polite' }, 'loading…')));
    document.title = 'Allot · ' + title;
    return current;
  }

  // Calls draw() now and every `ms` while the page is visible; the status line says when it last worked.
  function live(draw, ms = 2000) {
    const status = () => document.getElementById('status');
    async function tick() {
      if (!document.hidden) {
        try {
          await draw();
          status().textContent = 'live · updated ' + new Date().toLocaleTimeString();
          status().classList.remove('bad');
        } catch (e) {
          status().textContent = 'not updated: ' + e.message;
          status().classList.add('bad');
        }
      }
      setTimeout(tick, ms);
    }
    tick();
  }

  // Rows of a table body that can be walked with the arrow keys and opened with Enter.
  function keyboardRows(tbody, open) {
    tbody.addEventListener('keydown', e => {
      const row = e.target.closest('tr');
      if (!row) return;
      if (e.key === 'ArrowDown' && row.nextElementSibling) { row.nextElementSibling.focus(); e.preventDefault(); }
      if (e.key === 'ArrowUp' && row.previousElementSibling) { row.previousElementSibling.focus(); e.preventDefault(); }
      if (e.key === 'Enter' || e.key === ' ') { open(row); e.preventDefault(); }
    });
    tbody.addEventListener('click', e => { const row = e.target.closest('tr'); if (row) open(row); });
  }

  // Replaces a table body's rows, keeping the focused row (by data-key) focused.
  function replaceRows(tbody, rows) {
    const focused = document.activeElement && tbody.contains(document.activeElement)
      ? document.activeElement.closest('tr')?.dataset.key : null;
    tbody.replaceChildren(...rows);
    if (focused) tbody.querySelector(`tr[data-key="${CSS.escape(focused)}"]`)?.focus();
  }

  return { api, el, num, pct, time, ago, frame, live, keyboardRows, replaceRows, params };
})();
