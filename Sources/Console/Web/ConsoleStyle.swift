// Served as it is; edit here.
/// Both pages' style.
enum ConsoleStyle {
    static let text = #"""
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; font: 13px/1.35 system-ui, sans-serif; color: #1d2733; background: #f7f8fa; }
#app { display: grid; grid-template-columns: 1fr 420px; height: 100%; }
#mapbox { position: relative; min-width: 0; min-height: 0; overflow: hidden; }
/* Absolute, so the canvas's own size (set from the box) never feeds back into the box's size. */
#map { position: absolute; inset: 0; width: 100%; height: 100%; display: block; cursor: grab; }
#legend { position: absolute; left: 10px; bottom: 10px; background: #fffe; padding: 6px 10px; border-radius: 6px; box-shadow: 0 1px 4px #0003; }
#legend span { display: inline-block; margin-right: 10px; }
#legend i, .dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 4px; vertical-align: -1px; }
#zoom { position: absolute; right: 10px; top: 10px; display: flex; flex-direction: column; gap: 4px; }
#zoom button { width: 30px; height: 30px; font-size: 18px; border: 0; border-radius: 4px; background: #fff; box-shadow: 0 1px 4px #0003; cursor: pointer; }
#selected { position: absolute; left: 10px; top: 10px; background: #fff; padding: 8px 12px; border-radius: 6px; box-shadow: 0 1px 4px #0003; max-width: 320px; }
#selected:empty { display: none; }
#side { display: flex; flex-direction: column; border-left: 1px solid #d8dde3; background: #fff; min-height: 0; }
header { padding: 10px 12px; border-bottom: 1px solid #e3e7ec; }
header h1 { font-size: 15px; margin: 0 0 4px; }
#stats { color: #4a5866; }
#stats b { color: #1d2733; }
[hidden] { display: none !important; }
section { border-bottom: 1px solid #e3e7ec; display: flex; flex-direction: column; min-height: 0; }
section h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: #5a6877; margin: 8px 12px 4px; display: flex; gap: 8px; align-items: center; }
section h2 select { font-size: 12px; }
#trips-section { flex: 1 1 45%; }
#feed-section { flex: 1 1 40%; }
.list { overflow-y: auto; min-height: 0; flex: 1; }
.row { padding: 4px 12px; border-top: 1px solid #f0f2f5; cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.row:hover { background: #f3f6fa; }
.row .t { color: #7a8794; font-variant-numeric: tabular-nums; margin-right: 6px; }
.row .type { font-weight: 600; margin-right: 6px; }
.badge { display: inline-block; padding: 0 5px; border-radius: 3px; font-size: 11px; margin-left: 4px; color: #fff; }
.badge.approaching { background: #2f80ed; } .badge.delayed { background: #d64545; } .badge.arrived { background: #27ae60; }
.status { color: #5a6877; }
#chart { width: 100%; height: 90px; display: block; }
#speed-chart { width: 100%; height: 70px; display: block; cursor: pointer; }
#playback-section { flex: 0 0 auto; padding-bottom: 4px; }
#playback-section h2 { flex-wrap: wrap; text-transform: none; letter-spacing: 0; }
#playback-status { margin: 0 12px; color: #5a6877; min-height: 1em; }
#chart-section { flex: 0 0 auto; padding-bottom: 6px; }
.tracking { display: grid; grid-template-rows: auto 1fr; height: 100%; }
.tracking header { background: #fff; }
.tracking h1 { font-size: 18px; }
.tracking .eta { font-size: 22px; font-weight: 600; }
.tracking .arrived { color: #27ae60; font-size: 22px; font-weight: 600; }
.tracking .note { color: #5a6877; }
.refused { padding: 40px; font-size: 18px; }
"""#
}
