// Web Mercator arithmetic for the canvas map, with no DOM: world pixels, the view's projection, zoom about a
// point, fitting points, and the tiles a view needs. Loaded as a plain script by the pages (the global `Geo`)
// and as a CommonJS module by `node --test` (Tests/web).
"use strict";
const Geo = (() => {
  // Side of a tile and of the whole world at zoom 0, in pixels.
  const TILE = 256;
  // Web Mercator's latitude limit: the world is square between these.
  const MAX_LATITUDE = 85.05112878;
  const MIN_ZOOM = 1, MAX_ZOOM = 21;

  // World pixels at zoom 0 (x, y in 0..256, y down) of a longitude and latitude.
  function world(lon, lat) {
    const s = Math.sin(Math.max(-MAX_LATITUDE, Math.min(MAX_LATITUDE, lat)) * Math.PI / 180);
    return [(lon + 180) / 360 * TILE, (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * TILE];
  }

  // The longitude and latitude of world pixels at zoom 0 (the inverse of `world`).
  function lonLat(x, y) {
    const n = Math.PI - 2 * Math.PI * y / TILE;
    return [x / TILE * 360 - 180, 180 / Math.PI * Math.atan(Math.sinh(n))];
  }

  // Screen position (CSS pixels) of a world point in a view {center: [x, y], zoom, width, height}.
  function screen(view, wx, wy) {
    const scale = Math.pow(2, view.zoom);
    return [(wx - view.center[0]) * scale + view.width / 2, (wy - view.center[1]) * scale + view.height / 2];
  }

  // The world point at a screen position (the inverse of `screen`).
  function toWorld(view, sx, sy) {
    const scale = Math.pow(2, view.zoom);
    return [(sx - view.width / 2) / scale + view.center[0], (sy - view.height / 2) / scale + view.center[1]];
  }

  // Screen pixels that `meters` span at latitude `lat` and zoom `zoom`.
  function metersToPixels(meters, lat, zoom) {
    return meters / (156543.03392 * Math.cos(lat * Math.PI / 180) / Math.pow(2, zoom));
  }

  // The view's center and zoom after zooming by `delta` about a screen point, which stays where it is.
  function zoomAbout(view, sx, sy, delta) {
    const before = toWorld(view, sx, sy);
    const zoom = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, view.zoom + delta));
    const after = toWorld({ ...view, zoom }, sx, sy);
    return { center: [view.center[0] + before[0] - after[0], view.center[1] + before[1] - after[1]], zoom };
  }

  // Center and zoom that show every [lon, lat] of `points` in a width × height view, `padding` pixels inside
  // its edges (at most zoom 18, so one point is a street, not a pavement); null when there is no point.
  function fit(points, width, height, padding = 40) {
    if (!points.length) return null;
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (const [lon, lat] of points) {
      const [x, y] = world(lon, lat);
      minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
    }
    const span = Math.max(maxX - minX, maxY - minY, 1e-6);
    const room = Math.max(50, Math.min(width, height) - 2 * padding);
    return { center: [(minX + maxX) / 2, (minY + maxY) / 2], zoom: Math.max(MIN_ZOOM, Math.min(18, Math.log2(room / span))) };
  }

  // The tiles (XYZ scheme: y down from the north) that cover a view, at the whole zoom nearest the view's
  // (at most `maxZoom`), each with where its top-left corner lands on screen and its drawn size.
  function tilesInView(view, maxZoom = 19) {
    const z = Math.max(0, Math.min(maxZoom, Math.round(view.zoom)));
    const n = Math.pow(2, z), perWorldPixel = n / TILE, size = TILE * Math.pow(2, view.zoom - z);
    const [x0, y0] = toWorld(view, 0, 0), [x1, y1] = toWorld(view, view.width, view.height);
    const tiles = [];
    for (let y = Math.max(0, Math.floor(y0 * perWorldPixel)); y <= Math.min(n - 1, Math.floor(y1 * perWorldPixel)); y++) {
      for (let x = Math.max(0, Math.floor(x0 * perWorldPixel)); x <= Math.min(n - 1, Math.floor(x1 * perWorldPixel)); x++) {
        const [sx, sy] = screen(view, x / perWorldPixel, y / perWorldPixel);
        tiles.push({ z, x, y, sx, sy, size });
      }
    }
    return tiles;
  }

  // A tile's URL from a template with {z}, {x} and {y} (each may appear more than once).
  function tileUrl(template, tile) {
    return template.replaceAll("{z}", tile.z).replaceAll("{x}", tile.x).replaceAll("{y}", tile.y);
  }

  // A geofence's center: a circle's, or the mean of a polygon's outer ring.
  function fenceCenter(fence) {
    if (fence.circle) return [fence.circle[0], fence.circle[1]];
    const ring = fence.polygon[0];
    let x = 0, y = 0;
    for (const [lon, lat] of ring) { x += lon; y += lat; }
    return [x / ring.length, y / ring.length];
  }

  return { TILE, MIN_ZOOM, MAX_ZOOM, world, lonLat, screen, toWorld, metersToPixels, zoomAbout, fit, tilesInView, tileUrl, fenceCenter };
})();
if (typeof module === "object" && module.exports) module.exports = Geo;
