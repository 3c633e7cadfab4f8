// Served as it is; edit here.
/// The canvas map shared by both pages.
enum MapScript {
    static let text = #"""
// A Web Mercator map on a canvas: pan (drag), zoom (wheel, buttons), optional tiles, and a draw callback
// that gets a projection. No library, no network: vector shapes over a plain background.
"use strict";
class CanvasMap {
  constructor(canvas, options = {}) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.center = [128, 128]; // world pixels at zoom 0 (0..256)
    this.zoom = 2;
    this.tiles = options.tiles || null;
    this.tileCache = new Map();
    this.layers = [];
    this.dirty = true;
    this.onClick = null;
    const resize = () => {
      const r = canvas.getBoundingClientRect();
      const ratio = window.devicePixelRatio || 1;
      canvas.width = Math.max(1, Math.round(r.width * ratio));
      canvas.height = Math.max(1, Math.round(r.height * ratio));
      this.ratio = ratio;
      this.request();
    };
    new ResizeObserver(resize).observe(canvas);
    resize();
    let drag = null;
    this.userMoved = false; // set once the user pans or zooms: pages stop fitting the view then
    canvas.addEventListener("pointerdown", (e) => { this.userMoved = true; drag = { x: e.clientX, y: e.clientY, moved: false }; canvas.setPointerCapture(e.pointerId); });
    canvas.addEventListener("pointermove", (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true;
      const scale = Math.pow(2, this.zoom);
      this.center = [this.center[0] - dx / scale, this.center[1] - dy / scale];
      drag.x = e.clientX; drag.y = e.clientY;
      this.request();
    });
    canvas.addEventListener("pointerup", (e) => {
      if (drag && !drag.moved && this.onClick) {
        const r = canvas.getBoundingClientRect();
        this.onClick(e.clientX - r.left, e.clientY - r.top);
      }
      drag = null;
    });
    canvas.addEventListener("wheel", (e) => {
      e.preventDefault();
      this.userMoved = true;
      const r = canvas.getBoundingClientRect();
      this.zoomAt(e.clientX - r.left, e.clientY - r.top, e.deltaY < 0 ? 0.5 : -0.5);
    }, { passive: false });
  }
  static world(lon, lat) {
    const s = Math.sin(Math.max(-85.05, Math.min(85.05, lat)) * Math.PI / 180);
    return [(lon + 180) / 360 * 256, (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * 256];
  }
  size() { return [this.canvas.width / this.ratio, this.canvas.height / this.ratio]; }
  // Screen position (CSS pixels) of a world point.
  screen(wx, wy) {
    const scale = Math.pow(2, this.zoom), [w, h] = this.size();
    return [(wx - this.center[0]) * scale + w / 2, (wy - this.center[1]) * scale + h / 2];
  }
  toWorld(sx, sy) {
    const scale = Math.pow(2, this.zoom), [w, h] = this.size();
    return [(sx - w / 2) / scale + this.center[0], (sy - h / 2) / scale + this.center[1]];
  }
  metersToPixels(meters, lat) {
    return meters / (156543.03392 * Math.cos(lat * Math.PI / 180) / Math.pow(2, this.zoom));
  }
  zoomAt(sx, sy, delta) {
    const before = this.toWorld(sx, sy);
    this.zoom = Math.max(1, Math.min(21, this.zoom + delta));
    const after = this.toWorld(sx, sy);
    this.center = [this.center[0] + before[0] - after[0], this.center[1] + before[1] - after[1]];
    this.request();
  }
  fit(points, padding = 40) {
    if (!points.length) return;
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (const [lon, lat] of points) {
      const [x, y] = CanvasMap.world(lon, lat);
      minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
    }
    const [w, h] = this.size();
    const span = Math.max(maxX - minX, maxY - minY, 1e-6);
    this.zoom = Math.max(1, Math.min(18, Math.log2(Math.max(50, Math.min(w, h) - 2 * padding) / span)));
    this.center = [(minX + maxX) / 2, (minY + maxY) / 2];
    this.request();
  }
  focus(lon, lat, zoom) {
    this.center = CanvasMap.world(lon, lat);
    if (zoom) this.zoom = Math.max(this.zoom, zoom);
    this.request();
  }
  request() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }
  drawTiles(ctx) {
    const z = Math.max(0, Math.min(19, Math.round(this.zoom)));
    const scale = Math.pow(2, this.zoom - z), [w, h] = this.size();
    const [x0, y0] = this.toWorld(0, 0), [x1, y1] = this.toWorld(w, h);
    const n = Math.pow(2, z), f = n / 256;
    for (let ty = Math.max(0, Math.floor(y0 * f)); ty <= Math.min(n - 1, Math.floor(y1 * f)); ty++) {
      for (let tx = Math.max(0, Math.floor(x0 * f)); tx <= Math.min(n - 1, Math.floor(x1 * f)); tx++) {
        const url = this.tiles.replace("{z}", z).replace("{x}", tx).replace("{y}", ty);
        let image = this.tileCache.get(url);
        if (!image) {
          if (this.tileCache.size > 500) this.tileCache.clear();
          image = new Image();
          image.onload = () => this.request();
          image.src = url;
          this.tileCache.set(url, image);
        }
        if (image.complete && image.naturalWidth) {
          const [sx, sy] = this.screen(tx / f, ty / f);
          ctx.drawImage(image, sx, sy, 256 * scale + 0.5, 256 * scale + 0.5);
        }
      }
    }
  }
  draw() {
    const ctx = this.ctx, [w, h] = this.size();
    ctx.setTransform(this.ratio, 0, 0, this.ratio, 0, 0);
    ctx.fillStyle = "#eef1f4";
    ctx.fillRect(0, 0, w, h);
    if (this.tiles) this.drawTiles(ctx);
    for (const layer of this.layers) layer(ctx, this);
  }
}
// Draws a geofence ({circle: [lon, lat, radius]} or {polygon: rings}) with the given colours.
function drawGeofence(ctx, map, fence, stroke, fill) {
  ctx.beginPath();
  if (fence.circle) {
    const [lon, lat, radius] = fence.circle;
    const [x, y] = map.screen(...CanvasMap.world(lon, lat));
    ctx.arc(x, y, Math.max(2, map.metersToPixels(radius, lat)), 0, 2 * Math.PI);
  } else if (fence.polygon) {
    for (const ring of fence.polygon) {
      ring.forEach(([lon, lat], i) => {
        const [x, y] = map.screen(...CanvasMap.world(lon, lat));
        if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
      });
      ctx.closePath();
    }
  }
  ctx.fillStyle = fill; ctx.fill();
  ctx.strokeStyle = stroke; ctx.lineWidth = 1; ctx.stroke();
}
function fenceCenter(fence) {
  if (fence.circle) return [fence.circle[0], fence.circle[1]];
  const ring = fence.polygon[0];
  let x = 0, y = 0;
  for (const [lon, lat] of ring) { x += lon; y += lat; }
  return [x / ring.length, y / ring.length];
}
"""#
}
