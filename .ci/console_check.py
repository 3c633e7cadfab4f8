#!/usr/bin/env python3
"""The console in a real browser: headless Chromium driven by Selenium (chromium-driver).

Usage: console_check.py CONSOLE_URL TRIPSTREAM SECRET_FILE OUT_DIR [--demo-console URL] [--tiles]

Checks, against a console fed by a running demo: the map shows geofences and drivers; the event feed grows;
a trip shows an ETA; a tracking page shows its one trip, and no response it makes names another user or
trip; a tampered or malformed token is refused. That it reads (issue 41): at 1,400 and 1,920 px no ETA or
range in the trips panel and no event name in the feed is cut; the feed is in time order; no label names two
figures (also on the demo's console, whose chart has the service's figures); the lag stays non-negative
across reconnects, also with the page's clock 30 s behind; no dead space under the playback panel; late and
stale drivers are drawn unlike the others. With --tiles (the console has .ci/make_mbtiles.py's file): the
right tile is drawn in the right place, on the console and the tracking page. Saves console.png and
tracking.png in OUT_DIR, and prints the first paint and how far positions are drawn behind the users topic.
"""
import base64
import hashlib
import hmac
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def fail(message):
    print(f"console check: {message}", file=sys.stderr)
    sys.exit(1)


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def tracking_link(secret: bytes, user: str, trip: str, console: str, expires_after: int = 3600) -> str:
    """docs/http-and-tracking.md's recipe for a notification service: must give `tripstream tracking-link`'s link."""
    signed = f"v2.{b64(user.encode())}.{b64(trip.encode())}.{expires_after}"
    mac = hmac.new(secret, signed.encode(), hashlib.sha256).digest()
    return f"{console}/track/{signed}.{b64(mac)}"


def browser(width=1400, height=860):
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={width},{height}", "--hide-scrollbars"):
        options.add_argument(argument)
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=options)


def wait(driver, script, timeout, what):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.25)
    fail(f"timed out after {timeout} s waiting for {what}")


def responses(driver):
    """(url, body) of every response the page received, from the DevTools performance log."""
    seen = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] != "Network.responseReceived":
            continue
        request_id = message["params"]["requestId"]
        url = message["params"]["response"]["url"]
        try:
            body = driver.execute_cdp_cmd("Network.getResponseBody", {"requestId": request_id})["body"]
        except Exception:
            body = get(url)[1].decode("utf-8", "replace")  # evicted from the buffer: fetch the same URL
        seen.append((url, body))
    return seen


# Elements of `selector` that are cut: wider than their box (an ellipsis), or reaching past the row or the list
# that holds them (clipped). Returns [how many were checked, texts of those cut].
CUT = """
const [selector] = arguments, cut = [];
const all = [...document.querySelectorAll(selector)];
for (const e of all) {
  const box = e.getBoundingClientRect(), row = e.closest('.row').getBoundingClientRect();
  const list = e.closest('.list').getBoundingClientRect();
  const clipped = box.right > Math.min(row.right, list.right) + 0.5 || box.left < Math.max(row.left, list.left) - 0.5;
  const ellipsis = getComputedStyle(e).display !== 'inline' && e.scrollWidth > e.clientWidth;
  if (clipped || ellipsis) cut.push(e.textContent);
}
return [all.length, cut];
"""


def check_readable(driver, widths=(1400, 1920)):
    """Issue 41.3 at each window width: whole ETAs and event names, the feed in time order, one figure per label."""
    for width in widths:
        driver.set_window_size(width, 860)
        time.sleep(2.5)  # a render tick after the resize
        wait(driver, "return document.querySelectorAll('#trips .eta').length", 20, f"an ETA in the trips panel at {width} px")
        count, cut = driver.execute_script(CUT, "#trips .eta")
        if cut:
            fail(f"at {width} px {len(cut)} of {count} ETAs are cut, e.g. {cut[0]!r}")
        ranged = driver.execute_script("return [...document.querySelectorAll('#trips .eta')].filter(e => /\\(.+\\)/.test(e.textContent)).length")
        names, cut_names = driver.execute_script(CUT, "#feed .type")
        if cut_names:
            fail(f"at {width} px {len(cut_names)} of {names} event names are cut, e.g. {cut_names[0]!r}")
        print(f"console at {width} px: {count} ETAs ({ranged} with a range) and {names} event names, none cut")
    times = driver.execute_script("return [...document.querySelectorAll('#feed .row')].map(r => Number(r.dataset.at))")
    if any(later > earlier for earlier, later in zip(times, times[1:])):
        fail(f"the feed is not in time order: {times[:10]}")
    print(f"console: the feed's {len(times)} rows are newest first by event time")
    check_labels(driver)


def check_labels(driver):
    """Each figure has its own label: the header's and the chart's together name no figure twice."""
    labels = driver.execute_script(
        "return [...document.querySelectorAll('#stats .stat, #chart-legend .stat')]"
        ".map(s => s.textContent.replace(s.querySelector('b').textContent, '').replace(/\\(max .*\\)/, '').trim())")
    if len(set(labels)) != len(labels):
        fail(f"a label names two figures: {labels}")
    return labels


def check_lag_across_reconnects(driver):
    """Positions behind the users topic never go negative: reconnect three times, then with the page's clock
    30 s behind the console's."""
    def reconnect():
        before = driver.execute_script("return consoleState.connections")
        driver.execute_script("consoleState.lagSamples.length = 0; consoleReconnect()")
        wait(driver, f"return consoleState.connections > {before} && consoleState.live.status === 'live'", 30,
             "the live stream to come back")
        time.sleep(3)
        return driver.execute_script("return [consoleState.lagSamples.slice(), document.getElementById('stats').textContent]")
    seen = []
    for _ in range(3):
        samples, shown = reconnect()
        seen += samples
    driver.execute_script("window.realNow = Date.now; Date.now = () => realNow() - 30000;")
    skewed, shown = reconnect()
    driver.execute_script("Date.now = realNow")
    reconnect()  # the clock offset measured again
    bad = [x for x in seen + skewed if x is None or x < 0]
    if bad or re.search(r"-\d", shown):
        fail(f"the lag went negative across reconnects: {bad[:5]} / {shown!r}")
    median = lambda xs: sorted(xs)[len(xs) // 2] if xs else None
    print(f"console: 4 reconnects (the last with the page's clock 30 s behind): lag median {median(seen)} ms, "
          f"then {median(skewed)} ms; never negative")


def check_no_dead_space(driver):
    """Nothing empty under the playback panel: no speed chart before a route, the panel as tall as its controls,
    and the side's sections reaching its bottom."""
    gaps = driver.execute_script("""
        const side = document.getElementById('side').getBoundingClientRect();
        const shown = [...document.querySelectorAll('#side > section, #side > header')].filter(e => e.offsetHeight > 0);
        const last = shown.at(-1).getBoundingClientRect();
        const panel = document.getElementById('playback-section'), chart = document.getElementById('speed-chart');
        const lastChild = [...panel.children].filter(e => e.offsetHeight > 0).at(-1).getBoundingClientRect();
        return [side.bottom - last.bottom, panel.getBoundingClientRect().bottom - lastChild.bottom, chart.offsetHeight];""")
    below, inside, chart = gaps
    if below > 1 or inside > 12 or chart != 0:
        fail(f"dead space: {below:.0f} px under the last panel, {inside:.0f} px unused in the playback panel, "
             f"an empty speed chart {chart} px tall")
    print(f"console: no dead space under the playback panel ({inside:.0f} px of padding, no empty chart)")


def check_late_and_stale(driver):
    """A late and a stale driver, put on an empty stretch of the map, are drawn unlike a driver on a trip."""
    pixels = driver.execute_script("""
        const m = consoleMap, s = consoleState, saved = [m.center, m.zoom];
        const view = Geo.world(10, 10);  // open sea, and inside one tile of the CI tiles file
        m.center = view; m.zoom = 16;
        const now = s.streamTime / 1000;
        const at = (dx) => Geo.lonLat(view[0] + dx / Math.pow(2, 16), view[1]);
        putDriver(['ci-trip', ...at(-60), now, 1]); putDriver(['ci-late', ...at(0), now, 2]);
        putDriver(['ci-stale', ...at(60), now - 3600, 1]);
        m.draw();
        const [w, h] = m.size(), r = m.ratio, ctx = m.ctx;
        const pixel = (x, y) => [...ctx.getImageData(Math.floor((w / 2 + x) * r), Math.floor((h / 2 + y) * r), 1, 1).data].slice(0, 3);
        const half = (6 + 3) / 2;  // a late or stale square at zoom 16 is 9 px: its rim is 4.5 px from its center
        const result = { trip: pixel(-60, 0), late: pixel(0, 0), stale: pixel(60, 0), staleRim: pixel(60 + half - 0.5, 0),
                         background: pixel(60, 20), classes: ['ci-trip', 'ci-late', 'ci-stale'].map((id) => Format.driverClass(s.drivers.get(id), s.streamTime, s.staleMs)) };
        for (const id of ['ci-trip', 'ci-late', 'ci-stale']) s.drivers.delete(id);
        [m.center, m.zoom] = saved; m.request();
        return result;""")
    def near(a, b, tolerance=40):
        return all(abs(x - y) <= tolerance for x, y in zip(a, b))
    hex_rgb = lambda h: [int(h[i:i + 2], 16) for i in (1, 3, 5)]
    if pixels["classes"] != ["trip", "late", "stale"]:
        fail(f"the injected drivers are classed {pixels['classes']}")
    if not near(pixels["trip"], hex_rgb("#1f9d55")) or not near(pixels["late"], hex_rgb("#e0463c")):
        fail(f"a driver on a trip or a late one is not drawn in its colour: {pixels}")
    if not near(pixels["stale"], pixels["background"], 12) or near(pixels["staleRim"], pixels["background"], 12):
        fail(f"a stale driver is not drawn hollow: {pixels}")
    print("console: late (red, larger, dark rim) and stale (hollow grey) drivers are drawn unlike the others")


def check_tiles(driver, what, map_name):
    """Tiles from the console's --tiles-file are drawn where they belong: zoom 3, tiles (4, 4) and (3, 3) in
    XYZ, each in the colour .ci/make_mbtiles.py gave it (a wrong TMS flip would draw (4, 3) and (3, 4))."""
    wait(driver, f"return {map_name}.tiles != null", 15, f"the {what}'s base map")
    # The view is set in each script: between scripts a playback that follows its driver moves the map.
    show = f"""const m = {map_name}; if (window.playbackState) playbackState.playing = false;
               m.userMoved = true; m.center = [128, 128]; m.zoom = 3; m.draw();"""
    wait(driver, show + "return m.tilesDrawn >= 4", 15, f"tiles on the {what}")
    colors = driver.execute_script(show + """
        const r = m.ratio;
        return [[4, 4], [3, 3]].map(([x, y]) => {
          const [sx, sy] = m.screen((x + 0.5) * 32, (y + 0.5) * 32);
          return [...m.ctx.getImageData(Math.round(sx * r), Math.round(sy * r), 1, 1).data].slice(0, 3);
        });""")
    # make_mbtiles.py's tile_color: neighbouring tiles differ by 3 in one channel.
    expected = [[228 + 3 * 3, 220 + 3 * 4, 220 + 3 * 4], [228 + 3 * 3, 220 + 3 * 3, 220 + 3 * 3]]
    for got, want in zip(colors, expected):
        if any(abs(a - b) > 1 for a, b in zip(got, want)):
            fail(f"the {what} draws tile colour {got} where the tiles file has {want}")
    attribution = driver.execute_script("const a = document.getElementById('attribution'); return a.hidden ? '' : a.textContent")
    if attribution != "CI test tiles":
        fail(f"the {what} shows no attribution of its tiles ({attribution!r})")
    print(f"tiles: the {what} draws the tiles file's tiles in place (zoom 3, XYZ 4/4 and 3/3), with its attribution")


def check_console(driver, base, out):
    started = time.time()
    driver.get(base)
    wait(driver, "return window.consoleState && consoleState.firstDraw != null && consoleState.drivers.size > 0",
         30, "drivers on the map")
    first = driver.execute_script(
        "const p = performance.getEntriesByName('first-contentful-paint')[0];"
        "return [p ? p.startTime : null, consoleState.firstDraw, consoleState.drivers.size]")
    print(f"console: first contentful paint {first[0]:.0f} ms, drivers drawn {first[1]:.0f} ms after navigation start, "
          f"{first[2]} drivers (load took {time.time() - started:.1f} s)")
    fences = driver.execute_script("return consoleState.geofences.size")
    if fences == 0:
        fail("the map shows no geofences")
    before = driver.execute_script("return consoleState.events.length ? consoleState.events.at(-1).seq : 0")
    wait(driver, f"return consoleState.events.length && consoleState.events.at(-1).seq > {before}", 20, "the feed to grow")
    rows = wait(driver, "return [...document.querySelectorAll('#feed .row')].length", 10, "feed rows")
    eta = wait(driver, "return [...document.querySelectorAll('#trips .row')].map(r => r.textContent)"
               ".find(t => /ETA \\d+ min/.test(t))", 20, "a trip with an ETA")
    print(f"console: {fences} geofences, {rows} feed rows, a trip: {eta.strip()[:100]}")
    check_readable(driver)
    driver.set_window_size(1400, 860)
    check_no_dead_space(driver)
    check_late_and_stale(driver)
    check_lag_across_reconnects(driver)
    # Clicking an event focuses its user.
    driver.execute_script("document.querySelector('#feed .row').click()")
    selected = wait(driver, "return consoleState.selected", 5, "an event click to select its user")
    time.sleep(3)
    lags = driver.execute_script("return consoleState.lagSamples.slice()")
    if lags:
        lags.sort()
        # Informative only: a demo's records become visible when the service commits their transaction, so this
        # also counts the service's commit interval (bench/console_bench.py measures the console alone).
        print(f"console: positions drawn after their users-topic record's timestamp: median {lags[len(lags) // 2]} ms, "
              f"max {lags[-1]} ms over {len(lags)} frames (includes the service's transactions)")
    driver.save_screenshot(os.path.join(out, "console.png"))
    # Playback of the selected user's last hour, read from the locations topic, played at 20x.
    driver.execute_script("document.getElementById('playback-user').value = arguments[0];"
                          "document.getElementById('playback-speed').value = '20';"
                          "document.getElementById('playback-load').click()", selected)
    status = wait(driver, "const s = document.getElementById('playback-status').textContent;"
                  "return /fixes|no fixes|fail|enabled|another/.test(s) ? s : null", 60, "a playback")
    if not re.match(r"\d+ fixes", status):
        fail(f"playback of {selected}: {status}")
    if driver.execute_script("return document.getElementById('speed-chart').offsetHeight") < 40:
        fail("a loaded playback shows no speed chart")
    driver.execute_script("document.getElementById('playback-play').click()")
    time.sleep(2)
    moved = driver.execute_script("return playbackState.time - playbackState.points[0][0]")
    if moved <= 0:
        fail("the playback did not advance")
    print(f"playback: {selected}: {status}; 2 s at 20x advanced {moved / 1000:.0f} s of the route")
    return selected


def check_tracking(driver, base, tripstream, secret_file, out):
    # The console has just joined the demo's broker: its first ETAs come as it reads the topics.
    deadline = time.monotonic() + 30
    while True:
        status, body = get(base + "api/snapshot")
        if status != 200:
            fail(f"/api/snapshot answered {status}")
        snapshot = json.loads(body)
        trips = [t for t in snapshot["trips"] if t["eta"] is not None and t["status"] in ("started", "approaching")]
        if trips:
            break
        if time.monotonic() > deadline:
            fail(f"no active trip with an ETA to track after 30 s ({len(snapshot['trips'])} trips in the snapshot)")
        time.sleep(0.5)
    trip = max(trips, key=lambda t: t["eta"])
    link = subprocess.run([tripstream, "tracking-link", "--secret-file", secret_file, "--user", trip["user"],
                           "--trip", trip["trip"], "--console", base], check=True, capture_output=True,
                          text=True).stdout.strip()
    with open(secret_file, "rb") as file:
        secret = file.read().rstrip(b"\r\n")
    if tracking_link(secret, trip["user"], trip["trip"], base.rstrip("/")) != link:
        fail(f"README's Python recipe mints another link than tripstream tracking-link: {link}")
    driver.get_log("performance")  # drop the console's entries
    driver.get(link)
    status_text = wait(driver, "const s = document.getElementById('status').textContent;"
                       "return /Arriv|On the way|ended/.test(s) ? s : null", 20, "the tracking page's trip")
    shown = driver.execute_script("return trackingState()")
    if shown["trip"] != trip["trip"]:
        fail(f"the tracking page shows trip {shown['trip']}, not {trip['trip']}")
    time.sleep(4)  # one more poll
    print(f"tracking: trip {trip['trip']}: {status_text}; {len(shown['track'])} track points")
    driver.save_screenshot(os.path.join(out, "tracking.png"))
    # No response of the page names another user or another trip.
    others = {d[0] for d in snapshot["drivers"]} | {t["user"] for t in snapshot["trips"]}
    others.discard(trip["user"])
    other_trips = {t["trip"] for t in snapshot["trips"]} - {trip["trip"]}
    recorded = responses(driver)
    if not any("/api/track/" in url for url, _ in recorded):
        fail("recorded no /api/track/ response")
    for url, text in recorded:
        for name in others | other_trips:
            if re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w])", text):
                fail(f"{url} names {name}, which is not the tracked trip's")
        if re.search(r"(?<![\w-])" + re.escape(trip["user"]) + r"(?![\w-])", text):
            fail(f"{url} names the driver's user id")
    print(f"tracking: {len(recorded)} responses, none names another of {len(others)} users or {len(other_trips)} trips")
    # Tampered and malformed tokens are refused, by the page and by its data URL.
    token = link.rsplit("/", 1)[1]
    tampered = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    last_changed = token[:-1] + ("A" if token[-1] != "A" else "B")  # README said 403; it was 400 before v2
    for path, expected in (("track/" + tampered, 403), ("api/track/" + tampered, 403),
                           ("api/track/" + last_changed, 403),
                           ("track/not-a-token", 400), ("api/track/v1.x.y.z", 400)):
        status, _ = get(base + path)
        if status != expected:
            fail(f"/{path} answered {status}, expected {expected}")
    print("tracking: tampered and malformed tokens refused (403, 400)")


def main():
    base, tripstream, secret_file, out = sys.argv[1:5]
    options = sys.argv[5:]
    demo_console = options[options.index("--demo-console") + 1] if "--demo-console" in options else None
    tiles = "--tiles" in options
    base = base.rstrip("/") + "/"
    os.makedirs(out, exist_ok=True)
    driver = browser()
    try:
        # The tracking page first, while the demo's fleet has trips under way.
        check_tracking(driver, base, tripstream, secret_file, out)
        if tiles:
            check_tiles(driver, "tracking page", "map")
        check_console(driver, base, out)
        if tiles:
            check_tiles(driver, "console", "consoleMap")
        if demo_console:
            # The demo's console has the service's figures too (--metrics): its chart's labels and the header's.
            driver.get(demo_console)
            wait(driver, "return document.querySelectorAll('#chart-legend .stat').length >= 2 && "
                 "document.querySelectorAll('#stats .stat').length >= 6", 30, "the demo console's figures")
            print(f"demo console: labels, one figure each: {check_labels(driver)}")
    finally:
        driver.quit()
    print(f"console check: passed; screenshots in {out}")


if __name__ == "__main__":
    main()
