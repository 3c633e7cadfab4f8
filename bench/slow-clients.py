#!/usr/bin/env python3
"""A crowd of slow clients against the console and `run`'s metrics port, and probes that must still pass.

    python3 bench/slow-clients.py --tripstream .build/debug/tripstream [--clients 200] [--attack 60] [--check]
    python3 bench/slow-clients.py --console http://127.0.0.1:8080/ --token v2.… --metrics http://127.0.0.1:9464/

With --tripstream it starts what it measures: a `demo` (embedded broker, console, a tracking link of a
live trip; --demo-users, --demo-speedup) and a `dev-broker` with a `run` on it that serves --metrics-port.
Otherwise it attacks the URLs given.

The attack (slowloris): --clients connections to each server, each sending a request line and then one
header line every --trickle seconds, never ending its head. A client the server closes reconnects
--reconnect-after seconds later, as a patient attacker would (one that reconnects at once floods instead).
While they trickle, every --try-every seconds a fresh connection asks `GET /` and `GET /api/track/<token>`
of the console and `GET /health` of the metrics port; a try passes when it answers with a status below 500
within --deadline seconds. Prints, per probe: tries, passes, statuses and latencies (median, max); and what
the crowd saw (connections the servers closed, the answers they got). --check exits 1 unless every try
passed. Standard library only.
"""
import argparse
import http.client
import os
import re
import selectors
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse


def split_url(url):
    parts = urllib.parse.urlsplit(url)
    return parts.hostname, parts.port or 80


class Crowd:
    """Slow clients in one thread: each sends a request line, then a header line every `trickle` seconds."""

    def __init__(self, targets, clients, trickle, reconnect_after):
        self.targets = targets  # [(host, port)]
        self.clients = clients
        self.trickle = trickle
        self.reconnect_after = reconnect_after
        self.selector = selectors.DefaultSelector()
        self.stopping = threading.Event()
        self.connects = 0
        self.closed_by_server = 0
        self.connect_failures = 0
        self.answers = {}  # first status line the server sent to a slow client -> count
        self.thread = threading.Thread(target=self.run, daemon=True)

    def open(self, target, phase):
        try:
            sock = socket.create_connection(target, timeout=5)
        except OSError:
            self.connect_failures += 1
            return None
        sock.setblocking(False)
        self.connects += 1
        try:
            sock.send(b"GET / HTTP/1.1\r\nHost: slow\r\n")
        except OSError:
            pass
        client = {"sock": sock, "target": target, "next": time.monotonic() + phase, "lines": 0}
        self.selector.register(sock, selectors.EVENT_READ, client)
        return client

    def start(self):
        self.thread.start()

    def run(self):
        pending = []
        for target in self.targets:
            for index in range(self.clients):
                pending.append((target, self.trickle * index / self.clients))
        clients = [c for c in (self.open(t, p) for t, p in pending) if c]
        waiting = []  # (when, target): clients the server closed, reconnecting after a pause
        while not self.stopping.is_set():
            now = time.monotonic()
            for client in list(clients):
                if now >= client["next"]:
                    client["next"] = now + self.trickle
                    client["lines"] += 1
                    try:
                        client["sock"].send(b"X-Slow-%d: still typing\r\n" % client["lines"])
                    except OSError:
                        pass  # noticed as closed below
            for key, _ in self.selector.select(timeout=0.1):
                client = key.data
                try:
                    data = client["sock"].recv(4096)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if data:
                    line = data.split(b"\r\n", 1)[0].decode("latin-1")[:60]
                    self.answers[line] = self.answers.get(line, 0) + 1
                self.selector.unregister(client["sock"])
                client["sock"].close()
                clients.remove(client)
                self.closed_by_server += 1
                waiting.append((time.monotonic() + self.reconnect_after, client["target"]))
            now = time.monotonic()
            due = [target for when, target in waiting if when <= now]
            waiting = [(when, target) for when, target in waiting if when > now]
            for target in due:
                replacement = self.open(target, 0)
                if replacement:
                    clients.append(replacement)
                else:
                    waiting.append((now + self.reconnect_after, target))
        for client in clients:
            client["sock"].close()

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=10)


def probe(url, deadline):
    """(status or None, seconds, note) of one GET on a fresh connection, waiting up to 4 × deadline."""
    host, port = split_url(url)
    path = urllib.parse.urlsplit(url).path or "/"
    started = time.monotonic()
    connection = http.client.HTTPConnection(host, port, timeout=max(4 * deadline, 5))
    try:
        connection.request("GET", path, headers={"Connection": "close"})
        response = connection.getresponse()
        response.read()
        return response.status, time.monotonic() - started, ""
    except (OSError, http.client.HTTPException) as error:
        return None, time.monotonic() - started, type(error).__name__
    finally:
        connection.close()


def wait_for_line(path, pattern, seconds, process):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as file:
                match = re.search(pattern, file.read())
            if match:
                return match.group(1)
        if process.poll() is not None:
            break
        time.sleep(0.2)
    with open(path, encoding="utf-8", errors="replace") as file:
        tail = file.read()[-2000:]
    sys.exit(f"slow-clients: no match for {pattern!r} in {path} after {seconds} s:\n{tail}")


class Services:
    """A demo (console + tracking link) and a dev-broker with `run` on it (metrics port), stopped on exit."""

    def __init__(self, tripstream, work, users, speedup):
        self.processes = []
        self.work = work
        try:
            self.launch(tripstream, work, users, speedup)
        except BaseException:  # includes sys.exit: nothing started is left running
            self.stop()
            raise

    def launch(self, tripstream, work, users, speedup):
        environment = dict(os.environ, TMPDIR=work)
        demo_log = os.path.join(work, "demo-log.txt")
        demo = self.start([tripstream, "demo", "--users", str(users), "--duration", "600m", "--speedup", str(speedup)],
                          os.path.join(work, "demo.txt"), demo_log, environment)
        bootstrap = os.path.join(work, "bootstrap")
        broker = self.start([tripstream, "dev-broker", "--bootstrap-file", bootstrap],
                            os.path.join(work, "broker.txt"), os.path.join(work, "broker-log.txt"), environment)
        for _ in range(150):
            if os.path.exists(bootstrap) or broker.poll() is not None:
                break
            time.sleep(0.2)
        with open(bootstrap, encoding="utf-8") as file:
            brokers = file.read().strip()
        port = free_port()
        run_log = os.path.join(work, "run-log.txt")
        self.start([tripstream, "run", "--brokers", brokers, "--metrics-port", str(port), "--metrics-address",
                    "127.0.0.1", "--state-dir", os.path.join(work, "state")],
                   os.path.join(work, "run.txt"), run_log, environment)
        self.metrics = f"http://127.0.0.1:{port}/"
        self.console = wait_for_line(demo_log, r"console: open (\S+)", 60, demo)
        link = wait_for_line(demo_log, r"console: tracking page of trip .*?: (\S+)", 90, demo)
        self.token = link.rsplit("/", 1)[1]
        deadline = time.monotonic() + 60
        while probe(self.metrics + "health", 2)[0] != 200:
            if time.monotonic() > deadline:
                sys.exit(f"slow-clients: {self.metrics}health never answered 200; see {run_log}")
            time.sleep(0.5)

    def start(self, command, out, err, environment):
        process = subprocess.Popen(command, stdout=open(out, "w"), stderr=open(err, "w"), env=environment,
                                   stdin=subprocess.DEVNULL)
        self.processes.append(process)
        return process

    def stop(self):
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
        for process in reversed(self.processes):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def summary(name, results, deadline):
    statuses = {}
    for status, _, note in results:
        key = str(status) if status is not None else (note or "no answer")
        statuses[key] = statuses.get(key, 0) + 1
    passed = sum(1 for status, seconds, _ in results if status is not None and status < 500 and seconds < deadline)
    times = [seconds for _, seconds, _ in results]
    median = statistics.median(times) if times else 0
    worst = max(times) if times else 0
    shown = ", ".join(f"{k}×{v}" for k, v in sorted(statuses.items()))
    print(f"  {name:<28} {passed:>3}/{len(results):<3} passed   median {median * 1000:7.1f} ms   "
          f"max {worst * 1000:7.1f} ms   statuses {shown}")
    return passed == len(results)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tripstream", help="start a demo, a dev-broker and run with this binary")
    parser.add_argument("--demo-users", type=int, default=60,
                        help="the demo's fleet (default 60: a debug build's console keeps up on a loaded machine; "
                             "at 300 users and --demo-speedup 20 its store lock alone makes /api/track take seconds)")
    parser.add_argument("--demo-speedup", type=float, default=10, help="the demo's --speedup (default 10)")
    parser.add_argument("--console", help="console URL (without --tripstream)")
    parser.add_argument("--token", help="a valid tracking token of that console (without --tripstream)")
    parser.add_argument("--metrics", help="run's metrics URL (without --tripstream)")
    parser.add_argument("--clients", type=int, default=200, help="slow clients per server (default 200)")
    parser.add_argument("--trickle", type=float, default=5, help="seconds between a slow client's lines (default 5)")
    parser.add_argument("--reconnect-after", type=float, default=1,
                        help="seconds before a closed slow client reconnects (default 1)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs) and print its path")
    parser.add_argument("--attack", type=float, default=60,
                        help="seconds of attack, the first --trickle of them without probes while the crowd gathers "
                             "(default 60)")
    parser.add_argument("--try-every", type=float, default=3, help="seconds between probe rounds (default 3)")
    parser.add_argument("--deadline", type=float, default=2, help="seconds a probe may take (default 2)")
    parser.add_argument("--check", action="store_true", help="exit 1 unless every try passed")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="slow-clients-")
    services = None
    try:
        if args.tripstream:
            services = Services(os.path.abspath(args.tripstream), work, args.demo_users, args.demo_speedup)
            console, token, metrics = services.console, services.token, services.metrics
        else:
            if not (args.console and args.token and args.metrics):
                parser.error("give --tripstream, or --console, --token and --metrics")
            console, token, metrics = args.console, args.token, args.metrics
        console = console.rstrip("/") + "/"
        metrics = metrics.rstrip("/") + "/"
        probes = {"console GET /": console, "console GET /api/track/…": console + "api/track/" + token,
                  "metrics GET /health": metrics + "health"}
        before = {name: probe(url, args.deadline) for name, url in probes.items()}
        print(f"before the attack: " + ", ".join(f"{n} {s} in {t * 1000:.0f} ms" for n, (s, t, _) in before.items()))

        crowd = Crowd([split_url(console), split_url(metrics)], args.clients, args.trickle, args.reconnect_after)
        crowd.start()
        end = time.monotonic() + args.attack
        time.sleep(min(args.trickle, args.attack / 4))  # the crowd in place, its first lines sent
        results = {name: [] for name in probes}
        while time.monotonic() < end:
            round_start = time.monotonic()
            for name, url in probes.items():
                results[name].append(probe(url, args.deadline))
            time.sleep(max(0.0, args.try_every - (time.monotonic() - round_start)))
        crowd.stop()

        print(f"{args.clients} slow clients per server, one header line every {args.trickle:g} s, "
              f"{args.attack:g} s of attack, a probe round every {args.try_every:g} s, deadline {args.deadline:g} s:")
        passed = all([summary(name, results[name], args.deadline) for name in probes])
        answers = ", ".join(f"'{k}'×{v}" for k, v in sorted(crowd.answers.items())) or "none"
        print(f"  the crowd: {crowd.connects} connections opened, {crowd.closed_by_server} closed by the servers, "
              f"{crowd.connect_failures} connects failed; answers the slow clients got: {answers}")
        if args.check and not passed:
            print("slow-clients: FAILED: some tries answered too late, with 5xx, or not at all", file=sys.stderr)
            return 1
        return 0
    finally:
        if services:
            services.stop()
        if args.keep:
            print(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
