/* Loaded in <head>, before the page is drawn, so it never flashes in the other theme: the theme
   the reader chose with the toggle (remembered), else the system's preference. */
(function () {
  var theme = null;
  try { theme = localStorage.getItem("sslviz-theme"); } catch (e) { /* storage off */ }
  if (theme !== "light" && theme !== "dark") {
    theme = window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }
  document.documentElement.setAttribute("data-theme", theme);
})();
