// The header search box's list of pages while typing (search/as_you_type.py has the rule).
// Without JavaScript the box is a plain form: Enter searches.
(function () {
  "use strict";
  var sequence = 0;
  var submitted = null; // the line Enter last searched

  function box() { return document.getElementById("q"); }
  function list() { return document.getElementById("typing-list"); }

  function showList(show) {
    var panel = list(), input = box();
    if (!panel || !input) return;
    show = show && panel.querySelector(".typing-hit") !== null;
    panel.hidden = !show;
    input.setAttribute("aria-expanded", show ? "true" : "false");
  }

  // Before any request of the box, its pause element or its form (htmx:confirm comes before hx-sync
  // replaces the request in flight): a keystroke's delayed request for the very line Enter has
  // just searched would only replace that search, so it is not sent.
  document.addEventListener("htmx:confirm", function (event) {
    var elt = event.target, input = box();
    if (!input || !(elt instanceof Element)) return;
    if (elt.id === "search-form") {
      submitted = input.value;
      showList(false);
    } else if ((elt === input || elt.id === "q-pause") && input.value === submitted) {
      event.preventDefault();
    } else if (elt.id === "q-pause") {
      var panel = list();
      if (panel && !panel.hidden && panel.contains(document.activeElement)) {
        event.preventDefault(); // choosing in the list (arrow keys): the full list would close it
      } else {
        showList(false); // the full list is coming
      }
    }
  });

  // Each light request carries its keystroke number: the server drops one older than a keystroke
  // it has already seen from this session. Milliseconds, so that a new page keeps counting up.
  document.addEventListener("htmx:configRequest", function (event) {
    if (event.target !== box()) return;
    sequence = Math.max(sequence + 1, Date.now());
    event.detail.parameters.seq = String(sequence);
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target === list()) showList(true);
  });

  document.addEventListener("keydown", function (event) {
    var panel = list(), input = box();
    if (!panel || !input || panel.hidden) return;
    var links = Array.prototype.slice.call(panel.querySelectorAll("a.typing-hit"));
    var at = links.indexOf(document.activeElement);
    if (event.key === "Escape" && (event.target === input || at >= 0)) {
      showList(false);
      input.focus();
    } else if (event.key === "ArrowDown" && (event.target === input || at >= 0) && links.length) {
      event.preventDefault();
      links[Math.min(at + 1, links.length - 1)].focus();
    } else if (event.key === "ArrowUp" && at >= 0) {
      event.preventDefault();
      if (at === 0) input.focus(); else links[at - 1].focus();
    }
  });

  // Clicking elsewhere closes the list.
  document.addEventListener("click", function (event) {
    var form = document.getElementById("search-form");
    if (form && event.target instanceof Node && !form.contains(event.target)) showList(false);
  });
})();
