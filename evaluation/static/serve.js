// The script of `ludica serve`'s pages (templates/serve_*.html.j2), after board.js:
// - every element with data-board="ID" gets the board whose spec is the JSON of element #ID, drawn
//   by the one board renderer (static/board.js: ludicaBoard.draw);
// - on a run's page (serve_run.html.j2), the server's events say when the run's store holds new
//   games (or the run stops), and the page fetches its views again and swaps them in. The views are the server's own
//   escaped HTML, parsed inert by DOMParser (no script in it runs) and moved into the page whole;
//   the status line is set as text.
(function () {
  for (const element of document.querySelectorAll("[data-board]")) {
    window.ludicaBoard.draw(element, JSON.parse(document.getElementById(element.dataset.board).textContent));
  }
})();
(function () {
  const live = document.getElementById("run-live"), status = document.getElementById("run-status");
  if (!live || !window.EventSource) return;
  const views = document.getElementById("run-views");
  let shown = Number(views.dataset.games), running = views.dataset.running === "true", busy = false, again = false;
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const response = await fetch(live.dataset.views, {cache: "no-store"});
      if (response.ok) {
        const parsed = new DOMParser().parseFromString(await response.text(), "text/html");
        const fresh = parsed.getElementById("run-views");
        if (fresh) {
          document.getElementById("run-views").replaceWith(document.adoptNode(fresh));
          shown = Number(fresh.dataset.games);
          running = fresh.dataset.running === "true";
        }
      }
    } catch (err) {
      status.textContent = "could not fetch the views: " + err;
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  }
  const source = new EventSource(live.dataset.events);
  source.addEventListener("games", (event) => {
    const state = JSON.parse(event.data);
    status.textContent = (state.running ? "live: " : "stopped: ") + state.games + " games in the store";
    if (state.games !== shown || state.running !== running) refresh();
  });
  source.addEventListener("error", () => { status.textContent = "live: connection lost, trying again"; });
})();
