// The pages' tables (templates/table.html.j2, the `scrolling` wrapper): a table wider than its
// room scrolls sideways inside its .table-scroll, and its .table-wrap is marked "cut" while part of
// it is out of sight to the right (report.css shades that edge and shows "scroll →"): not when it
// fits, nor once scrolled to its end. Marked again when it scrolls, when it or its room changes size
// (a window resized, a folded list opened) and when the page's content changes (a live run page
// swaps its views in).
(function () {
  function mark(wrap) {
    const scroller = wrap.querySelector(".table-scroll");
    if (scroller) wrap.classList.toggle("cut", scroller.scrollLeft + scroller.clientWidth < scroller.scrollWidth - 1);
  }
  const resized = new ResizeObserver((entries) => {
    for (const entry of entries) {
      const wrap = entry.target.closest(".table-wrap");
      if (wrap) mark(wrap);
    }
  });
  function watch() {
    for (const scroller of document.querySelectorAll(".table-scroll")) {
      resized.observe(scroller);  // observing twice is once
      if (scroller.firstElementChild) resized.observe(scroller.firstElementChild);
      mark(scroller.parentElement);
    }
  }
  document.addEventListener("scroll", (event) => {
    const wrap = event.target instanceof Element && event.target.closest(".table-wrap");
    if (wrap) mark(wrap);
  }, true);  // scroll events do not bubble: caught on their way down
  new MutationObserver(watch).observe(document.body, {childList: true, subtree: true});
  watch();
})();
