// How long a view takes to draw once its JSON is in, as User Timing entries (visible in the browser's
// performance panel; bench/run.py --only webapp reads them through WebDriver). They change nothing on the
// page and cost a few microseconds a load: two marks and two measures, none of them a forced layout.
//
//   mark    hreaderd.json.VIEW     the view's JSON has arrived and is parsed (for the Summary: both answers)
//   measure hreaderd.script.VIEW   from that mark to the DOM updated: the app's own drawing, scripts only
//   measure hreaderd.drawn.VIEW    from that mark to the first frame after it painted: the same, plus style,
//                                  layout, ResizeObserver callbacks (a lane drawn again at another width) and
//                                  paint, and the wait for that frame (up to a frame, 16.7 ms at 60 Hz)
//
// VIEW is the address's view (summary, day, week, month, year, decade, all). Each measure's detail holds the
// load's number, so a reader can tell a load from the one before.

/** Marks the JSON of `view` arrived; returns what drawn() needs. */
export function jsonArrived(view, load) {
  return { view, load, mark: performance.mark(`hreaderd.json.${view}`, { detail: { load } }) };
}

/** After the view's DOM is updated: the script measure now, the drawn one once the next frame has painted. */
export function drawn({ view, load, mark }) {
  const start = mark.startTime;
  performance.measure(`hreaderd.script.${view}`, { start, end: performance.now(), detail: { load } });
  // A requestAnimationFrame callback runs before the frame's style, layout and paint; a task posted from it
  // runs after them.
  requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      performance.measure(`hreaderd.drawn.${view}`, { start, end: performance.now(), detail: { load } });
      performance.clearMarks(mark.name);
    };
    channel.port2.postMessage(null);
  });
}
