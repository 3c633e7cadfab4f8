// Served as it is; edit here.
/// The operations console's page.
enum ConsolePage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>TripStream console</title>
<link rel="stylesheet" href="/assets/console.css">
</head>
<body>
<div id="app">
  <div id="mapbox">
    <canvas id="map"></canvas>
    <div id="selected"></div>
    <div id="zoom"><button id="zoom-in" title="Zoom in">+</button><button id="zoom-out" title="Zoom out">−</button></div>
    <div id="legend">
      <span class="trip"><i></i>on a trip</span><span class="idle"><i></i>idle</span>
      <span class="late"><i></i>late</span><span class="stale"><i></i>stale</span>
    </div>
  </div>
  <div id="side">
    <header><h1>TripStream console <small id="connection">connecting</small></h1><div id="stats"></div></header>
    <section id="trips-section">
      <h2>Trips <span id="trip-count"></span>
        <select id="status-filter">
          <option value="">all statuses</option><option value="started">started</option>
          <option value="approaching">approaching</option><option value="arrived">arrived</option>
          <option value="pending">pending</option><option value="delayed">delayed</option>
        </select>
        <select id="tag-filter"><option value="">all tags</option></select>
      </h2>
      <div class="list" id="trips"></div>
    </section>
    <section id="feed-section"><h2>Events <label><input type="checkbox" id="updates-filter"> trip updates</label></h2><div class="list" id="feed"></div></section>
    <section id="playback-section"><h2>Playback
        <input id="playback-user" placeholder="user id" size="10">
        <select id="playback-window"><option value="15">15 min</option><option value="60" selected>1 h</option><option value="240">4 h</option><option value="1440">24 h</option></select>
        <button id="playback-load">Load</button>
        <button id="playback-play">Play</button>
        <select id="playback-speed"><option>1</option><option>2</option><option selected>5</option><option>10</option><option>20</option></select>×
        <label><input type="checkbox" id="playback-follow" checked>follow</label></h2>
      <div class="note" id="playback-status"></div>
      <canvas id="speed-chart"></canvas>
    </section>
    <section id="chart-section" hidden><h2>Service: lag and events/s</h2><canvas id="chart"></canvas></section>
  </div>
</div>
<script src="/assets/map.js"></script>
<script src="/assets/console.js"></script>
<script src="/assets/playback.js"></script>
</body>
</html>
"""#
}
