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
