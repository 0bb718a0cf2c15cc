// Small progressive enhancements; every page works without them.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  // The language <select> submits itself; its "Change" button is for no-JS browsers.
  document.addEventListener("change", function (event) {
    var select = event.target;
    if (select instanceof HTMLSelectElement && select.hasAttribute("data-autosubmit") && select.form) {
      select.form.submit();
    }
  });

  // Which search result was opened: the logged search's id and the page's, nothing more
  // (search/views.py search_opened_view). The link is followed as usual.
  function resultOpened(event) {
    if (event.type === "auxclick" && event.button !== 1) return;
    var link = event.target instanceof Element ? event.target.closest("a[data-page]") : null;
    var list = link && link.closest("[data-search-log]");
    if (!list || typeof window.fetch !== "function" || typeof window.FormData !== "function") return;
    var body = new FormData();
    body.append("log", list.getAttribute("data-search-log"));
    body.append("page", link.getAttribute("data-page"));
    var headers = {};
    try { headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}"); } catch (e) { headers = {}; }
    fetch(list.getAttribute("data-opened-url"), {
      method: "POST", body: body, keepalive: true, credentials: "same-origin",
      headers: { "X-CSRFToken": headers["x-csrftoken"] || "" }
    }).catch(function () {});
  }
  document.addEventListener("click", resultOpened);
  document.addEventListener("auxclick", resultOpened);

  // Mark the search results busy while htmx fetches them (screen readers, CSS).
  document.addEventListener("htmx:beforeRequest", function (event) {
    var results = document.getElementById("results");
    if (results && event.detail.target === results) results.setAttribute("aria-busy", "true");
  });
  document.addEventListener("htmx:afterRequest", function () {
    var results = document.getElementById("results");
    if (results) results.setAttribute("aria-busy", "false");
  });
})();
