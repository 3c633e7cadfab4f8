#!/usr/bin/env python3
"""The console with a big fleet: first paint and how far behind the users topic positions are drawn.

Usage: bench/console_bench.py path/to/tripstream [--users 100000] [--rate 5000] [--seconds 30]

Starts `tripstream dev-broker`, fills the users topic with USERS user states (kcat), starts `tripstream
console`, waits until it holds them all, then keeps moving random users at RATE states/s while headless
Chromium (Selenium) opens the console: prints the first contentful paint, when the drivers were first drawn,
and, for every frame that drew new positions, the time from the newest users-topic record's Kafka timestamp
(its CreateTime, set by the producer) to that frame, and to the delta's arrival in the page.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".ci"))
from console_check import browser, wait  # noqa: E402


def state(user, lon, lat, now_ms):
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now_ms / 1000)) + ".%03dZ" % (now_ms % 1000)
    trip = ""
    if user % 3 == 0:
        trip = (',"trip":{"externalId":"t-%d","status":"started","mode":"car","destinationGeofenceTag":"store",'
                '"destinationGeofenceExternalId":"s-%d","eta":{"duration":%.1f,"distance":%d},'
                '"delay":{"delayed":%s,"scheduledArrivalTimeDelay":%d}}') % (
                    user, user % 500, (user % 40) + 1.5, (user % 40) * 600, "true" if user % 30 == 0 else "false",
                    4 if user % 30 == 0 else 0)
    return ('u%d\t{"userId":"u%d","updatedAt":"%s","lastFixAt":"%s","location":{"type":"Point","coordinates":[%.6f,%.6f]}%s,'
            '"geofences":[]}\n') % (user, user, stamp, stamp, lon, lat, trip)


def snapshot(url):
    with urllib.request.urlopen(url + "api/snapshot", timeout=30) as response:
        return json.load(response)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tripstream")
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--rate", type=int, default=5_000)
    parser.add_argument("--seconds", type=float, default=30)
    args = parser.parse_args()
    work = tempfile.mkdtemp()
    processes = []
    try:
        broker = subprocess.Popen([args.tripstream, "dev-broker", "--broker-count", "1", "--partitions", "12",
                                   "--bootstrap-file", f"{work}/bootstrap"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        processes.append(broker)
        for _ in range(100):
            if os.path.exists(f"{work}/bootstrap") and open(f"{work}/bootstrap").read().strip():
                break
            time.sleep(0.1)
        bootstrap = open(f"{work}/bootstrap").read().strip()
        positions = {u: (-8.7 + random.random() * 0.3, 41.05 + random.random() * 0.25) for u in range(args.users)}
        started = time.time()
        kcat = subprocess.Popen(["kcat", "-P", "-b", bootstrap, "-t", "tripstream.users", "-K", "\t",
                                 "-X", "linger.ms=5"], stdin=subprocess.PIPE, text=True)
        now = int(time.time() * 1000)
        kcat.stdin.write("".join(state(u, *positions[u], now) for u in range(args.users)))
        kcat.stdin.close()
        kcat.wait()
        print(f"users topic: {args.users} user states written in {time.time() - started:.1f} s")
        console_log = open(f"{work}/console.log", "w+")
        console = subprocess.Popen([args.tripstream, "console", "--brokers", bootstrap, "--address", "127.0.0.1:0"],
                                   stdout=subprocess.DEVNULL, stderr=console_log)
        processes.append(console)
        started = time.time()
        url = None
        while url is None and time.time() - started < 30:
            console_log.seek(0)
            for line in console_log:
                if line.startswith("console at "):
                    url = line.split()[-1]
            time.sleep(0.1)
        while len(snapshot(url)["drivers"]) < args.users:
            if time.time() - started > 300:
                sys.exit("the console did not read the users topic within 300 s")
            time.sleep(0.5)
        print(f"console: holds {args.users} drivers {time.time() - started:.1f} s after its start")

        stop = threading.Event()

        def move():
            mover = subprocess.Popen(["kcat", "-P", "-b", bootstrap, "-t", "tripstream.users", "-K", "\t",
                                      "-X", "linger.ms=5"], stdin=subprocess.PIPE, text=True, bufsize=1 << 16)
            sent = 0
            begin = time.time()
            while not stop.is_set():
                due = int((time.time() - begin) * args.rate)
                lines = []
                now = int(time.time() * 1000)
                for _ in range(due - sent):
                    user = random.randrange(args.users)
                    lon, lat = positions[user]
                    positions[user] = (lon + random.uniform(-3e-4, 3e-4), lat + random.uniform(-3e-4, 3e-4))
                    lines.append(state(user, *positions[user], now))
                sent = due
                if lines:
                    mover.stdin.write("".join(lines))
                    mover.stdin.flush()
                time.sleep(0.02)
            mover.stdin.close()
            mover.wait()
            print(f"moved users: {sent} states in {time.time() - begin:.1f} s")

        mover = threading.Thread(target=move)
        mover.start()
        time.sleep(2)
        driver = browser()
        try:
            driver.get(url)
            wait(driver, "return window.consoleState && consoleState.firstDraw != null && consoleState.drivers.size > 0",
                 60, "drivers drawn")
            paint, drawn, count = driver.execute_script(
                "const p = performance.getEntriesByName('first-contentful-paint')[0];"
                "return [p ? p.startTime : null, consoleState.firstDraw, consoleState.drivers.size]")
            print(f"page: first contentful paint {paint:.0f} ms, {count} drivers drawn at {drawn:.0f} ms after navigation start")
            driver.execute_script("consoleState.lagSamples.length = 0; consoleState.arrivalSamples.length = 0")
            time.sleep(args.seconds)
            drawn = sorted(driver.execute_script("return consoleState.lagSamples"))
            arrived = sorted(driver.execute_script("return consoleState.arrivalSamples"))
        finally:
            driver.quit()
            stop.set()
            mover.join()

        def summary(samples):
            if not samples:
                return "no samples"
            return (f"median {samples[len(samples) // 2]} ms, p90 {samples[int(len(samples) * 0.9)]} ms, "
                    f"max {samples[-1]} ms over {len(samples)}")
        print(f"record timestamp -> delta in the page: {summary(arrived)}")
        print(f"record timestamp -> frame drawn:       {summary(drawn)}")
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


if __name__ == "__main__":
    main()
