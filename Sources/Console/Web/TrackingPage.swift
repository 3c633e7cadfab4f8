// Served as it is; edit here.
/// The tracking page (its data comes from /api/track/<token>).
enum TrackingPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Your trip</title>
<link rel="stylesheet" href="/assets/console.css">
</head>
<body>
<div class="tracking">
  <header><h1 id="title">Your trip</h1><div id="status" class="note">Loading…</div><div id="details" class="note"></div></header>
  <div id="mapbox"><canvas id="map"></canvas></div>
</div>
<script src="/assets/map.js"></script>
<script src="/assets/tracking.js"></script>
</body>
</html>
"""#

    /// The page for a refused link: the reason only, no script.
    static func refused(_ message: String) -> String {
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Tracking</title>"
            + "<link rel=\"stylesheet\" href=\"/assets/console.css\"></head><body><p class=\"refused\">"
            + message + "</p></body></html>"
    }
}
