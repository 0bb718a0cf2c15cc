// Editor uploads: choosing or dropping files sends them at once and inserts
// their Markdown at the cursor, or at the end of the text when the editor never
// placed one (an untouched textarea reports position 0: above the page's heading).
// Without this script the "Upload" button adds them at the end through the form
// (the page is not saved either way).
(function () {
  "use strict";
  var box = document.querySelector("[data-upload-url]");
  var body = document.getElementById("id_body");
  // Where the Markdown editor runs (static/js/editor.js), it sends the files itself.
  if (!box || !body || body.dataset.richEditor || !window.fetch || !window.FormData) return;
  var input = box.querySelector(".js-attachment-input");
  var status = box.querySelector(".js-attachment-status");
  var form = body.form;
  // True once the editor has put the cursor somewhere: clicked, tabbed or typed in the text.
  var cursorPlaced = document.activeElement === body;
  body.addEventListener("focus", function () { cursorPlaced = true; });

  function csrfToken() {
    var field = form && form.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  function insertAtCursor(text) {
    var start = cursorPlaced ? body.selectionStart || 0 : body.value.length;
    var end = cursorPlaced ? body.selectionEnd || start : start;
    var before = body.value.slice(0, start);
    var after = body.value.slice(end);
    var prefix = before && !/\n\n$/.test(before) ? (/\n$/.test(before) ? "\n" : "\n\n") : "";
    var insert = prefix + text + "\n";
    body.value = before + insert + after;
    body.selectionStart = body.selectionEnd = before.length + insert.length;
    cursorPlaced = true; // the next file goes after this one
    // Refresh the live preview (htmx listens for "input" on the textarea).
    body.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function upload(files) {
    if (!files || !files.length) return;
    var data = new FormData();
    for (var i = 0; i < files.length; i++) data.append("file", files[i]);
    status.textContent = box.getAttribute("data-uploading") || "…";
    fetch(box.getAttribute("data-upload-url"), {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken(), Accept: "application/json" },
    })
      .then(function (response) {
        return response.json().catch(function () {
          return { attachments: [], errors: [response.status + " " + response.statusText] };
        });
      })
      .then(function (result) {
        (result.attachments || []).forEach(function (item) { insertAtCursor(item.markdown); });
        var errors = result.errors || (result.error ? [result.error] : []);
        status.textContent = errors.join(" ");
        status.classList.toggle("field-errors", errors.length > 0);
      })
      .catch(function (error) {
        status.textContent = String(error);
        status.classList.add("field-errors");
      });
  }

  input.addEventListener("change", function () {
    upload(input.files);
    input.value = ""; // sent already: the form's own submit must not send it again
  });
  body.addEventListener("dragover", function (event) {
    if (event.dataTransfer && Array.prototype.indexOf.call(event.dataTransfer.types, "Files") >= 0) {
      event.preventDefault();
      body.classList.add("is-dropping");
    }
  });
  body.addEventListener("dragleave", function () { body.classList.remove("is-dropping"); });
  body.addEventListener("drop", function (event) {
    body.classList.remove("is-dropping");
    if (event.dataTransfer && event.dataTransfer.files && event.dataTransfer.files.length) {
      event.preventDefault();
      upload(event.dataTransfer.files);
    }
  });
})();
