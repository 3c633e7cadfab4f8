#!/usr/bin/env python3
"""A plain Python peer of `tripstream run`: the geofence entry/exit fold into a dict, at-least-once.

The baseline of issue 10 ("≥ 3× a plain Python consumer doing the same geofence fold on the same
topic"). It uses Debian's python3-confluent-kafka (librdkafka underneath, like TripStream) and
nothing else outside the standard library (no numpy).

- Reads the whole geofences topic first (circles and polygons as in schemas/geofence.schema.json;
  a null value deletes), into a uniform 0.01° grid with each geofence's bounding box inline, like
  the product's SpatialGrid; shapes covering more than 256 cells go to a list checked on every fix.
- Subscribes to the locations topic in its own consumer group and, for each fix, folds the user's
  set of geofences inside: the same accuracy-aware rules with hysteresis as the product's fold
  (enter: inside and accuracy <= max(radius, 50 m) or the whole uncertainty circle inside; exit:
  outside by more than accuracy + clamp(20 % of the radius, 10 m, 50 m); fixes less accurate than
  1000 m decide nothing). Fixes are folded in arrival order (no event-time reordering, no
  duplicate detection, no trips, no ETA, no dwell): it is the plain consumer the product is
  compared with, not a re-implementation of it.
- Entered/exited events are small JSON records produced (plain producer, no transaction) to
  --events-topic, keyed by userId.
- At-least-once: offsets are committed only after every output of the fixes they cover was
  delivered (producer.flush() then a synchronous commit, every --commit-interval seconds and at
  the end). A crash repeats outputs, never loses them.

Stops after --count fixes, or when every assigned partition has reached its end (or nothing came
for --idle seconds), then prints the throughput from its first consumed fix to its last output
delivered (start-up, reading geofences and the group join excluded), the same from the moment the
group assigned its partitions (which includes librdkafka's first fetches), and the event count, and,
with --json, one JSON line with the same figures for scripts.
"""

import argparse
import json
import math
import sys
import time
import uuid
from datetime import datetime

try:
    from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
except ImportError:
    sys.exit("python_peer.py: confluent_kafka is missing for %s; install Debian's python3-confluent-kafka "
             "(scripts/install-deps.sh) and run it with Debian's python3 (/usr/bin/python3)" % sys.executable)

EARTH_RADIUS = 6371008.8  # meters, mean radius (as the product's geometry)
METERS_PER_DEG = EARTH_RADIUS * math.pi / 180.0
CELL_DEG = 0.01  # ≈ 1.1 km of latitude, as SpatialGrid
MAX_CELLS_PER_SHAPE = 256
HYSTERESIS_MIN, HYSTERESIS_FRACTION, HYSTERESIS_MAX = 10.0, 0.2, 50.0
ENTER_ACCURACY_FLOOR = 50.0
MAX_USABLE_ACCURACY = 1000.0


# --- geometry -------------------------------------------------------------------------------------

class Circle:
    __slots__ = ("gid", "tag", "external_id", "enabled", "lat", "lng", "radius", "box", "char_radius", "buffer")

    def __init__(self, gid, tag, external_id, enabled, lng, lat, radius):
        self.gid, self.tag, self.external_id, self.enabled = gid, tag, external_id, enabled
        self.lat, self.lng, self.radius = lat, lng, radius
        dlat = radius / METERS_PER_DEG
        dlng = dlat / max(math.cos(math.radians(lat)), 1e-6)
        self.box = (lat - dlat, lng - dlng, lat + dlat, lng + dlng)
        self.char_radius = radius
        self.buffer = min(max(HYSTERESIS_FRACTION * radius, HYSTERESIS_MIN), HYSTERESIS_MAX)

    def signed_distance(self, lat, lng, cos_lat):
        # Equirectangular projection around the fix: exact enough for geofence-sized distances.
        dx = (lng - self.lng) * cos_lat
        dy = lat - self.lat
        return math.sqrt(dx * dx + dy * dy) * METERS_PER_DEG - self.radius


class Polygon:
    __slots__ = ("gid", "tag", "external_id", "enabled", "rings", "box", "char_radius", "buffer")

    def __init__(self, gid, tag, external_id, enabled, rings):
        self.gid, self.tag, self.external_id, self.enabled = gid, tag, external_id, enabled
        # rings: lists of (lat, lng), open (the closing position dropped).
        self.rings = rings
        outer = rings[0]
        lats = [p[0] for p in outer]
        lngs = [p[1] for p in outer]
        self.box = (min(lats), min(lngs), max(lats), max(lngs))
        # Radius of the circle of the same area (shoelace in local meters).
        lat0 = (self.box[0] + self.box[2]) / 2
        kx = math.cos(math.radians(lat0)) * METERS_PER_DEG
        area = 0.0
        n = len(outer)
        for i in range(n):
            a, b = outer[i], outer[(i + 1) % n]
            area += (a[1] * kx) * (b[0] * METERS_PER_DEG) - (b[1] * kx) * (a[0] * METERS_PER_DEG)
        self.char_radius = math.sqrt(abs(area) / 2 / math.pi)
        self.buffer = min(max(HYSTERESIS_FRACTION * self.char_radius, HYSTERESIS_MIN), HYSTERESIS_MAX)

    def signed_distance(self, lat, lng, cos_lat):
        """Negative inside (even-odd over all rings), distance to the nearest edge in meters."""
        inside = False
        best = math.inf
        for ring in self.rings:
            n = len(ring)
            j = n - 1
            for i in range(n):
                ay, ax = ring[i]
                by, bx = ring[j]
                if (ay > lat) != (by > lat) and lng < (bx - ax) * (lat - ay) / (by - ay) + ax:
                    inside = not inside
                # Distance to segment a-b in local meters (x scaled by cos(lat)).
                px, py = (lng - ax) * cos_lat, lat - ay
                ex, ey = (bx - ax) * cos_lat, by - ay
                length2 = ex * ex + ey * ey
                t = 0.0 if length2 == 0 else max(0.0, min(1.0, (px * ex + py * ey) / length2))
                dx, dy = px - t * ex, py - t * ey
                d2 = dx * dx + dy * dy
                if d2 < best:
                    best = d2
                j = i
        d = math.sqrt(best) * METERS_PER_DEG
        return -d if inside else d


def parse_geofence(value):
    g = json.loads(value)
    tag, external_id = g["tag"], g["externalId"]
    enabled = g.get("enabled")
    enabled = True if enabled is None else bool(enabled)
    gid = tag + "/" + external_id
    coords = g["coordinates"]
    if g["type"] == "circle":
        return Circle(gid, tag, external_id, enabled, float(coords[0]), float(coords[1]), float(g["radius"]))
    if g["type"] == "polygon":
        if coords and isinstance(coords[0][0], (int, float)):
            coords = [coords]  # a single ring
        rings = []
        for ring in coords:
            points = [(float(p[1]), float(p[0])) for p in ring]
            if len(points) > 1 and points[0] == points[-1]:
                points.pop()
            if len(points) < 3:
                raise ValueError("ring with fewer than 3 positions")
            rings.append(points)
        return Polygon(gid, tag, external_id, enabled, rings)
    raise ValueError("unknown type %r" % g["type"])


class GeofenceIndex:
    """Geofences by id, and a uniform lat/lng grid of (box, geofence) entries."""

    def __init__(self):
        self.by_id = {}
        self.cells = {}
        self.oversized = []

    def upsert(self, geofence):
        self.delete(geofence.gid)
        self.by_id[geofence.gid] = geofence
        lat0, lng0, lat1, lng1 = geofence.box
        cy0, cy1 = math.floor(lat0 / CELL_DEG), math.floor(lat1 / CELL_DEG)
        cx0, cx1 = math.floor(lng0 / CELL_DEG), math.floor(lng1 / CELL_DEG)
        entry = (lat0, lng0, lat1, lng1, geofence)
        if (cy1 - cy0 + 1) * (cx1 - cx0 + 1) > MAX_CELLS_PER_SHAPE:
            self.oversized.append(entry)
            return
        for cy in range(cy0, cy1 + 1):
            for cx in range(cx0, cx1 + 1):
                self.cells.setdefault((cy, cx), []).append(entry)

    def delete(self, gid):
        old = self.by_id.pop(gid, None)
        if old is None:
            return
        for key, entries in list(self.cells.items()):
            kept = [e for e in entries if e[4] is not old]
            if len(kept) != len(entries):
                if kept:
                    self.cells[key] = kept
                else:
                    del self.cells[key]
        self.oversized = [e for e in self.oversized if e[4] is not old]

    def candidates(self, lat, lng):
        entries = self.cells.get((math.floor(lat / CELL_DEG), math.floor(lng / CELL_DEG)), ())
        if self.oversized:
            entries = list(entries) + self.oversized
        return entries


def load_geofences(conf, topic, timeout):
    """Reads the geofences topic from the beginning to its end (no consumer group)."""
    index = GeofenceIndex()
    consumer = Consumer(dict(conf, **{"group.id": "python-peer-geofences-" + uuid.uuid4().hex,
                                       "enable.auto.commit": False, "enable.partition.eof": True}))
    metadata = consumer.list_topics(topic, timeout=timeout)
    info = metadata.topics.get(topic)
    if info is None or info.error is not None or not info.partitions:
        consumer.close()
        sys.exit("python_peer.py: geofences topic %s not found (%s)" % (topic, info.error if info else "absent"))
    partitions = [TopicPartition(topic, p, -2) for p in info.partitions]  # -2: OFFSET_BEGINNING
    consumer.assign(partitions)
    pending = {p.partition for p in partitions}
    invalid = 0
    deadline = time.monotonic() + timeout
    while pending:
        if time.monotonic() > deadline:
            consumer.close()
            sys.exit("python_peer.py: reading %s did not reach its end within %s s" % (topic, timeout))
        for message in consumer.consume(num_messages=1000, timeout=0.5):
            error = message.error()
            if error is not None:
                if error.code() == KafkaError._PARTITION_EOF:
                    pending.discard(message.partition())
                    continue
                consumer.close()
                sys.exit("python_peer.py: geofences: %s" % error)
            value = message.value()
            if not value or value.strip() == b"null":
                key = message.key()
                if key:
                    index.delete(key.decode("utf-8", "replace"))
                continue
            try:
                index.upsert(parse_geofence(value))
            except (ValueError, KeyError, TypeError, IndexError):
                invalid += 1
    consumer.close()
    return index, invalid


# --- the fold -------------------------------------------------------------------------------------

def epoch_ms(text):
    """RFC 3339 → Unix milliseconds (only called for exits, to give the visit's duration)."""
    return int(datetime.fromisoformat(text.replace("z", "Z").replace("t", "T")).timestamp() * 1000)


class Fold:
    def __init__(self, index, produce):
        self.index = index
        self.produce = produce  # produce(key: str, value: bytes)
        self.users = {}  # userId → {geofence id: createdAt of the entry}
        self.events = 0
        self.entered = 0
        self.exited = 0
        self.invalid = 0

    def fix(self, value):
        try:
            f = json.loads(value)
            user = f["userId"]
            created_at = f["createdAt"]
            lat = f.get("latitude")
            if lat is None:
                lng, lat = f["location"]["coordinates"][:2]
            else:
                lng = f["longitude"]
            lat = float(lat)
            lng = float(lng)
            accuracy = f.get("accuracy")
            accuracy = 0.0 if accuracy is None else float(accuracy)
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            self.invalid += 1
            return
        if not (-90.0 <= lat <= 90.0 and -180.0 <= lng <= 180.0) or not (0.0 <= accuracy <= MAX_USABLE_ACCURACY):
            return  # out of range, NaN or too vague to decide anything: no change
        cos_lat = math.cos(lat * 0.017453292519943295)
        inside = self.users.get(user)
        if inside:
            by_id = self.index.by_id
            for gid in list(inside):
                g = by_id.get(gid)
                if g is None or not g.enabled:
                    del inside[gid]  # deleted or disabled: the visit ends without an event
                    continue
                if g.signed_distance(lat, lng, cos_lat) - accuracy > g.buffer:
                    entered_at = inside.pop(gid)
                    self.emit("user.exited_geofence", user, created_at, lat, lng, accuracy, g,
                              max(epoch_ms(created_at) - epoch_ms(entered_at), 0) / 60000.0)
        for lat0, lng0, lat1, lng1, g in self.index.candidates(lat, lng):
            if lat < lat0 or lat > lat1 or lng < lng0 or lng > lng1 or not g.enabled:
                continue
            if inside is not None and g.gid in inside:
                continue
            d = g.signed_distance(lat, lng, cos_lat)
            if d <= 0 and (accuracy <= max(g.char_radius, ENTER_ACCURACY_FLOOR) or d + accuracy <= 0):
                if inside is None:
                    inside = self.users[user] = {}
                inside[g.gid] = created_at
                self.emit("user.entered_geofence", user, created_at, lat, lng, accuracy, g, None)

    def emit(self, kind, user, created_at, lat, lng, accuracy, g, duration):
        event = {"type": kind, "userId": user, "createdAt": created_at,
                 "location": {"type": "Point", "coordinates": [lng, lat]}, "locationAccuracy": accuracy,
                 "geofence": {"tag": g.tag, "externalId": g.external_id}}
        if duration is not None:
            event["duration"] = round(duration, 2)
        self.produce(user, json.dumps(event, separators=(",", ":")).encode())
        self.events += 1
        if duration is None:
            self.entered += 1
        else:
            self.exited += 1


# --- main -----------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bootstrap", "-b", default="localhost:9092", help="bootstrap servers (default %(default)s)")
    parser.add_argument("--topic", default="tripstream.locations", help="fixes topic (default %(default)s)")
    parser.add_argument("--geofences-topic", default="tripstream.geofences", help="(default %(default)s)")
    parser.add_argument("--events-topic", default="python-peer.events", help="output topic (default %(default)s)")
    parser.add_argument("--group", default=None, help="consumer group (default: python-peer-<random>, a fresh one)")
    parser.add_argument("--count", type=int, default=0, help="stop after this many fixes (0: at the topic's end)")
    parser.add_argument("--idle", type=float, default=5.0,
                        help="also stop after this many seconds without a record, once started (default %(default)s)")
    parser.add_argument("--commit-interval", type=float, default=1.0,
                        help="flush outputs and commit offsets every this many seconds (default %(default)s)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="longest wait for the geofences or the first fix, seconds (default %(default)s)")
    parser.add_argument("--json", action="store_true", help="also print one JSON line with the figures")
    args = parser.parse_args()

    base = {"bootstrap.servers": args.bootstrap}
    started_at = time.monotonic()
    index, invalid_geofences = load_geofences(base, args.geofences_topic, args.timeout)
    geofence_seconds = time.monotonic() - started_at

    producer = Producer(dict(base, **{"linger.ms": 5, "acks": "all"}))
    failed = [0]

    def delivered(error, _message):
        if error is not None:
            failed[0] += 1

    def produce(key, value):
        while True:
            try:
                producer.produce(args.events_topic, value, key, on_delivery=delivered)
                return
            except BufferError:
                producer.poll(0.05)

    consumer = Consumer(dict(base, **{
        "group.id": args.group or "python-peer-" + uuid.uuid4().hex[:12],
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,  # committed below, after the outputs are delivered
        "enable.partition.eof": True,
    }))
    assigned = []  # when the group gave this member its partitions (fetching starts then)

    def on_assign(_consumer, partitions):
        if partitions and not assigned:
            assigned.append(time.monotonic())

    consumer.subscribe([args.topic], on_assign=on_assign)
    fold = Fold(index, produce)

    consumed = 0
    first = None
    last_record = None
    next_commit = None
    at_end = set()
    positions = {}  # partition → next offset after the last fix folded (what a commit covers)
    idle_gap = 0.0

    def commit():
        if producer.flush(30) != 0:
            sys.exit("python_peer.py: outputs not delivered within 30 s")
        if positions:
            consumer.commit(offsets=[TopicPartition(args.topic, p, o) for p, o in positions.items()],
                            asynchronous=False)

    deadline = time.monotonic() + args.timeout
    while True:
        messages = consumer.consume(num_messages=1000, timeout=0.2)
        now = time.monotonic()
        if not messages:
            if first is None:
                if now > deadline:
                    sys.exit("python_peer.py: no fix within %s s from %s" % (args.timeout, args.topic))
            elif now - last_record > args.idle:
                idle_gap = now - last_record  # not part of the measured span
                break
            assignment = consumer.assignment()
            if first is not None and assignment and at_end >= {p.partition for p in assignment}:
                break
            continue
        for message in messages:
            error = message.error()
            if error is not None:
                if error.code() == KafkaError._PARTITION_EOF:
                    at_end.add(message.partition())
                    continue
                sys.exit("python_peer.py: %s" % error)
            if first is None:
                first = time.monotonic()
                next_commit = first + args.commit_interval
            at_end.discard(message.partition())
            fold.fix(message.value())
            positions[message.partition()] = message.offset() + 1
            consumed += 1
            if consumed == args.count:
                break
        last_record = time.monotonic()
        producer.poll(0)
        if args.count and consumed >= args.count:
            break
        if first is not None and at_end and at_end >= {p.partition for p in consumer.assignment()}:
            break
        if last_record >= next_commit:
            commit()
            next_commit = last_record + args.commit_interval

    if first is None:
        sys.exit("python_peer.py: nothing consumed from %s" % args.topic)
    commit()  # the last outputs delivered, then the offsets: at-least-once
    end = time.monotonic() - idle_gap
    consumer.close()
    if failed[0]:
        sys.exit("python_peer.py: %d outputs failed" % failed[0])
    seconds = end - first
    rate = consumed / seconds if seconds > 0 else float("inf")
    from_assignment = end - (assigned[0] if assigned else first)
    print("python-peer  %d fixes in %.3f s = %.0f fixes/s (first consumed fix to last output delivered); "
          "%d events (%d entered, %d exited), %d users inside a geofence, %d geofences, %d invalid fixes"
          % (consumed, seconds, rate, fold.events, fold.entered, fold.exited,
             sum(1 for v in fold.users.values() if v), len(index.by_id), fold.invalid))
    print("python-peer  start-up excluded: geofences read in %.2f s, then group join; from the assignment: "
          "%.3f s = %.0f fixes/s" % (geofence_seconds, from_assignment, consumed / from_assignment))
    if args.json:
        print(json.dumps({"fixes": consumed, "seconds": round(seconds, 4), "rate": round(rate, 1),
                          "secondsFromAssignment": round(from_assignment, 4),
                          "rateFromAssignment": round(consumed / from_assignment, 1),
                          "events": fold.events, "entered": fold.entered, "exited": fold.exited,
                          "geofences": len(index.by_id), "invalidGeofences": invalid_geofences,
                          "invalidFixes": fold.invalid}))


if __name__ == "__main__":
    main()
