// The map's projection and tiles (Sources/Console/Web/geo.js).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const Geo = require("../../Sources/Console/Web/geo.js");

const near = (actual, expected, tolerance = 1e-9) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} is not within ${tolerance} of ${expected}`);

test("world pixels: the origin is the center, the antimeridian the edges, north up", () => {
  assert.deepEqual(Geo.world(0, 0), [128, 128]);
  near(Geo.world(-180, 0)[0], 0);
  near(Geo.world(180, 0)[0], 256);
  assert.ok(Geo.world(0, 41)[1] < 128, "north of the equator is above it");
  near(Geo.world(0, 85.05112878)[1], 0, 1e-6);
});

test("latitudes past Web Mercator's limit are held at it instead of going to infinity", () => {
  assert.deepEqual(Geo.world(10, 90), Geo.world(10, 85.05112878));
  assert.deepEqual(Geo.world(10, -90), Geo.world(10, -85.05112878));
  assert.ok(Number.isFinite(Geo.world(10, 90)[1]));
});

test("lonLat inverts world", () => {
  for (const [lon, lat] of [[-8.61, 41.15], [139.69, 35.69], [-122.42, 37.77], [0, 0], [179.9, -60]]) {
    const [x, y] = Geo.world(lon, lat);
    const [lon2, lat2] = Geo.lonLat(x, y);
    near(lon2, lon, 1e-9);
    near(lat2, lat, 1e-9);
  }
});

test("screen and toWorld are inverse, and the center lands mid-view", () => {
  const view = { center: Geo.world(-8.61, 41.15), zoom: 13.4, width: 980, height: 700 };
  assert.deepEqual(Geo.screen(view, ...view.center), [490, 350]);
  const [wx, wy] = Geo.toWorld(view, 17, 633);
  const [sx, sy] = Geo.screen(view, wx, wy);
  near(sx, 17, 1e-6);
  near(sy, 633, 1e-6);
});

test("one zoom level doubles distances on screen", () => {
  const a = Geo.world(-8.61, 41.15), b = Geo.world(-8.60, 41.16);
  const at = (zoom) => {
    const view = { center: a, zoom, width: 800, height: 600 };
    const [x1, y1] = Geo.screen(view, ...a), [x2, y2] = Geo.screen(view, ...b);
    return Math.hypot(x2 - x1, y2 - y1);
  };
  near(at(13) / at(12), 2, 1e-9);
});

test("zooming about a point keeps that point under the pointer, within the zoom limits", () => {
  const view = { center: Geo.world(-8.61, 41.15), zoom: 12, width: 800, height: 600 };
  const under = Geo.toWorld(view, 100, 500);
  const zoomed = Geo.zoomAbout(view, 100, 500, 1.5);
  assert.equal(zoomed.zoom, 13.5);
  const [sx, sy] = Geo.screen({ ...view, ...zoomed }, ...under);
  near(sx, 100, 1e-6);
  near(sy, 500, 1e-6);
  assert.equal(Geo.zoomAbout(view, 0, 0, 40).zoom, Geo.MAX_ZOOM);
  assert.equal(Geo.zoomAbout(view, 0, 0, -40).zoom, Geo.MIN_ZOOM);
});

test("metersToPixels: 1 km at the equator at zoom 0 is 1000 / 156543 pixels, and twice that a zoom deeper", () => {
  near(Geo.metersToPixels(1000, 0, 0), 1000 / 156543.03392, 1e-12);
  near(Geo.metersToPixels(1000, 0, 1), 2 * 1000 / 156543.03392, 1e-12);
  assert.ok(Geo.metersToPixels(1000, 60, 10) > Geo.metersToPixels(1000, 0, 10), "a meter is more pixels up north");
});

test("fit shows every point inside the padding", () => {
  const points = [[-8.70, 41.10], [-8.55, 41.20], [-8.62, 41.13]];
  const width = 980, height = 700, padding = 40;
  const view = { ...Geo.fit(points, width, height, padding), width, height };
  for (const [lon, lat] of points) {
    const [x, y] = Geo.screen(view, ...Geo.world(lon, lat));
    assert.ok(x >= padding - 1e-6 && x <= width - padding + 1e-6, `x ${x}`);
    assert.ok(y >= padding - 1e-6 && y <= height - padding + 1e-6, `y ${y}`);
  }
  assert.equal(Geo.fit([], width, height), null);
  assert.equal(Geo.fit([[-8.6, 41.1]], width, height).zoom, 18, "one point: as close as a street, no closer");
});

test("tilesInView covers the view without gaps, at the nearest whole zoom, y counted from the north", () => {
  const view = { center: Geo.world(-8.61, 41.15), zoom: 12.3, width: 980, height: 700 };
  const tiles = Geo.tilesInView(view);
  assert.ok(tiles.length > 0 && tiles.every((t) => t.z === 12));
  const size = tiles[0].size;
  near(size, 256 * Math.pow(2, 0.3), 1e-9);
  const left = Math.min(...tiles.map((t) => t.sx)), top = Math.min(...tiles.map((t) => t.sy));
  const right = Math.max(...tiles.map((t) => t.sx + size)), bottom = Math.max(...tiles.map((t) => t.sy + size));
  assert.ok(left <= 0 && top <= 0 && right >= 980 && bottom >= 700, "the tiles cover the view");
  const columns = new Set(tiles.map((t) => t.x)).size, rows = new Set(tiles.map((t) => t.y)).size;
  assert.equal(tiles.length, columns * rows, "a full grid");
  // Porto at zoom 12 is XYZ tile (1950, 1533), as the OpenStreetMap wiki's slippy-map formula numbers it.
  const center = tiles.find((t) => t.sx <= 490 && 490 < t.sx + size && t.sy <= 350 && 350 < t.sy + size);
  assert.deepEqual([center.x, center.y], [1950, 1533]);
});

test("tilesInView stops at the tile set's deepest zoom and scales those tiles up", () => {
  const view = { center: Geo.world(-8.61, 41.15), zoom: 17, width: 512, height: 512 };
  const tiles = Geo.tilesInView(view, 14);
  assert.ok(tiles.every((t) => t.z === 14 && t.size === 256 * 8));
  assert.ok(tiles.length <= 4);
});

test("tilesInView keeps to the world: no negative or past-the-edge tile numbers", () => {
  const view = { center: [10, 10], zoom: 2, width: 1600, height: 1200 };
  for (const t of Geo.tilesInView(view)) {
    assert.ok(t.x >= 0 && t.x < 4 && t.y >= 0 && t.y < 4, JSON.stringify(t));
  }
});

test("tileUrl fills every placeholder", () => {
  assert.equal(Geo.tileUrl("/tiles/{z}/{x}/{y}.png", { z: 3, x: 4, y: 5 }), "/tiles/3/4/5.png");
  assert.equal(Geo.tileUrl("https://t/{z}/{x}/{y}?z={z}", { z: 0, x: 0, y: 0 }), "https://t/0/0/0?z=0");
});

test("fenceCenter: a circle's center, a polygon's mean vertex", () => {
  assert.deepEqual(Geo.fenceCenter({ circle: [-8.6, 41.1, 80] }), [-8.6, 41.1]);
  assert.deepEqual(Geo.fenceCenter({ polygon: [[[0, 0], [2, 0], [2, 2], [0, 2]]] }), [1, 1]);
});
