/* The lecture site's own script (python -m sslviz.site copies it into every site): the theme
   toggle, copy buttons on code cells and the search across lectures. It requests nothing: the
   search index is the site's search-index.js, loaded before this file. */
(function () {
  "use strict";
  var KEY = "sslviz-theme";

  /* ---- light / dark: the reader's preference, until the toggle is used (then remembered) */
  function stored() {
    try { return localStorage.getItem(KEY); } catch (e) { return null; }
  }
  function preferred() {
    var choice = stored();
    if (choice === "light" || choice === "dark") { return choice; }
    return window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  function apply(theme) {
    document.documentElement.setAttribute("data-theme", theme);
    if (document.body) {
      document.body.setAttribute("data-jp-theme-light", theme === "light" ? "true" : "false");
    }
    var buttons = document.querySelectorAll(".sslviz-theme-toggle");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].setAttribute("aria-pressed", theme === "dark" ? "true" : "false");
      buttons[i].textContent = theme === "dark" ? "Light theme" : "Dark theme";
      buttons[i].title = "Switch to the " + (theme === "dark" ? "light" : "dark") + " theme";
    }
  }
  function setUpTheme() {
    apply(preferred());
    var buttons = document.querySelectorAll(".sslviz-theme-toggle");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].addEventListener("click", function () {
        var next = document.documentElement.getAttribute("data-theme") === "dark" ? "light" : "dark";
        try { localStorage.setItem(KEY, next); } catch (e) { /* private mode: not remembered */ }
        apply(next);
      });
    }
    if (window.matchMedia) {
      var query = matchMedia("(prefers-color-scheme: dark)");
      var follow = function () { if (!stored()) { apply(preferred()); } };
      if (query.addEventListener) { query.addEventListener("change", follow); }
    }
  }

  /* ---- copy buttons: the cell's source, without its prompt */
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var done = document.execCommand("copy");
    document.body.removeChild(area);
    return done ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }
  function setUpCopyButtons() {
    var editors = document.querySelectorAll(".jp-CodeCell .jp-InputArea-editor");
    for (var i = 0; i < editors.length; i++) {
      var editor = editors[i];
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sslviz-copy";
      button.textContent = "Copy";
      button.setAttribute("aria-label", "Copy the code of this cell");
      button.addEventListener("click", (function (source, self) {
        return function () {
          var pre = source.querySelector("pre");
          var text = (pre || source).textContent.replace(/\n$/, "");
          copyText(text).then(function () { self.textContent = "Copied"; },
                              function () { self.textContent = "Copy failed"; });
          setTimeout(function () { self.textContent = "Copy"; }, 2000);
        };
      })(editor, button));
      editor.insertBefore(button, editor.firstChild);  /* inside: the input area is a table */
    }
  }

  /* ---- search across lectures, in the index written at build time */
  var MAX_RESULTS = 20;
  function words(text) {
    return text.toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter(function (w) { return w; });
  }
  function snippet(text, word) {
    var at = text.toLowerCase().indexOf(word);
    var start = Math.max(0, at - 60);
    return (start ? "… " : "") + text.slice(start, start + 160) + (start + 160 < text.length ? " …" : "");
  }
  function search(query) {
    var index = window.SSLVIZ_SEARCH_INDEX || [];
    var wanted = words(query);
    if (!wanted.length) { return []; }
    var hits = [];
    for (var i = 0; i < index.length; i++) {
      var record = index[i];
      var title = record.title.toLowerCase();
      var body = record.text.toLowerCase();
      var score = 0;
      for (var j = 0; j < wanted.length; j++) {
        var inTitle = title.indexOf(wanted[j]) >= 0;
        var inBody = body.indexOf(wanted[j]) >= 0;
        if (!inTitle && !inBody) { score = -1; break; }
        score += (inTitle ? 10 : 0) + (inBody ? 1 : 0);
      }
      if (score > 0) { hits.push({record: record, score: score, order: i}); }
    }
    hits.sort(function (a, b) { return b.score - a.score || a.order - b.order; });
    return hits.slice(0, MAX_RESULTS).map(function (hit) {
      return {record: hit.record, snippet: snippet(hit.record.text, wanted[0])};
    });
  }
  function show(list, query) {
    list.textContent = "";
    if (!query.trim()) { list.hidden = true; return; }
    var results = search(query);
    list.hidden = false;
    if (!results.length) {
      var none = document.createElement("li");
      none.className = "sslviz-search-none";
      none.textContent = "No section mentions " + query.trim();
      list.appendChild(none);
      return;
    }
    results.forEach(function (result) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = result.record.href;
      link.textContent = result.record.title;
      var page = document.createElement("span");
      page.className = "sslviz-search-page";
      page.textContent = result.record.page;
      var text = document.createElement("span");
      text.className = "sslviz-search-snippet";
      text.textContent = result.snippet;
      item.appendChild(link);
      item.appendChild(page);
      item.appendChild(text);
      list.appendChild(item);
    });
  }
  function setUpSearch() {
    var input = document.getElementById("sslviz-search-input");
    var list = document.getElementById("sslviz-search-results");
    if (!input || !list) { return; }
    list.hidden = true;
    input.addEventListener("input", function () { show(list, input.value); });
    input.form.addEventListener("submit", function (event) {
      event.preventDefault();
      var first = list.querySelector("a");
      if (first) { window.location.href = first.href; }
    });
    input.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { input.value = ""; show(list, ""); }
    });
  }

  window.sslvizSearch = search;
  function start() { setUpTheme(); setUpCopyButtons(); setUpSearch(); }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
