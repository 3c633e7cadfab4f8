#!/usr/bin/env python3
"""The console in a real browser: headless Chromium driven by Selenium (chromium-driver).

Usage: console_check.py CONSOLE_URL TRIPSTREAM SECRET_FILE OUT_DIR [--screenshots-only]

Checks, against a console fed by a running demo: the map shows geofences and drivers; the event feed grows;
a trip shows an ETA; a tracking page shows its one trip, and no response it makes names another user or
trip; a tampered or malformed token is refused. Saves console.png and tracking.png in OUT_DIR, and prints
the first paint and how far positions are drawn behind the users topic.
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
    """The recipe of docs/console-and-tracking.md for a notification service: must give the same link as `tripstream tracking-link`."""
    message = f"v1\n{user}\n{trip}\n{expires_after}".encode()
    mac = hmac.new(secret, message, hashlib.sha256).digest()
    return f"{console}/track/v1.{b64(user.encode())}.{b64(trip.encode())}.{expires_after}.{b64(mac)}"


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
                  "return /fixes|no fixes|fail|enabled|another/.test(s) ? s : null", 30, "a playback")
    if not re.match(r"\d+ fixes", status):
        fail(f"playback of {selected}: {status}")
    driver.execute_script("document.getElementById('playback-play').click()")
    time.sleep(2)
    moved = driver.execute_script("return playbackState.time - playbackState.points[0][0]")
    if moved <= 0:
        fail("the playback did not advance")
    print(f"playback: {selected}: {status}; 2 s at 20x advanced {moved / 1000:.0f} s of the route")
    return selected


def check_tracking(driver, base, tripstream, secret_file, out):
    status, body = get(base + "api/snapshot")
    if status != 200:
        fail(f"/api/snapshot answered {status}")
    snapshot = json.loads(body)
    trips = [t for t in snapshot["trips"] if t["eta"] is not None and t["status"] in ("started", "approaching")]
    if not trips:
        fail("no active trip with an ETA to track")
    trip = max(trips, key=lambda t: t["eta"])
    link = subprocess.run([tripstream, "tracking-link", "--secret-file", secret_file, "--user", trip["user"],
                           "--trip", trip["trip"], "--console", base], check=True, capture_output=True,
                          text=True).stdout.strip()
    with open(secret_file, "rb") as file:
        secret = file.read().rstrip(b"\r\n")
    if tracking_link(secret, trip["user"], trip["trip"], base.rstrip("/")) != link:
        fail(f"the Python recipe of docs/console-and-tracking.md mints another link than tripstream tracking-link: {link}")
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
    for path, expected in (("track/" + tampered, 403), ("api/track/" + tampered, 403),
                           ("track/not-a-token", 400), ("api/track/v1.x.y.z", 400)):
        status, _ = get(base + path)
        if status != expected:
            fail(f"/{path} answered {status}, expected {expected}")
    print("tracking: tampered and malformed tokens refused (403, 400)")


def main():
    base, tripstream, secret_file, out = sys.argv[1:5]
    base = base.rstrip("/") + "/"
    os.makedirs(out, exist_ok=True)
    driver = browser()
    try:
        check_console(driver, base, out)
        check_tracking(driver, base, tripstream, secret_file, out)
    finally:
        driver.quit()
    print(f"console check: passed; screenshots in {out}")


if __name__ == "__main__":
    main()
