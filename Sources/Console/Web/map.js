// A Web Mercator map on a canvas: pan (drag), zoom (wheel, buttons), optional raster tiles under it, and layers
// drawn over it with a projection. No library and no network of its own: the arithmetic is in geo.js.
"use strict";
class CanvasMap {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.center = [128, 128]; // world pixels at zoom 0 (0..256)
    this.zoom = 2;
    this.tiles = null;        // {url: template with {z}/{x}/{y}, maxZoom}
    this.tileCache = new Map();
    this.tilesDrawn = 0;      // tiles drawn by the last frame (the browser check reads it)
    this.layers = [];
    this.onClick = null;
    this.ratio = 1;
    const resize = () => {
      const r = canvas.getBoundingClientRect();
      this.ratio = window.devicePixelRatio || 1;
      canvas.width = Math.max(1, Math.round(r.width * this.ratio));
      canvas.height = Math.max(1, Math.round(r.height * this.ratio));
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
  size() { return [this.canvas.width / this.ratio, this.canvas.height / this.ratio]; }
  view() { const [width, height] = this.size(); return { center: this.center, zoom: this.zoom, width, height }; }
  // Screen position (CSS pixels) of a world point.
  screen(wx, wy) { return Geo.screen(this.view(), wx, wy); }
  toWorld(sx, sy) { return Geo.toWorld(this.view(), sx, sy); }
  metersToPixels(meters, lat) { return Geo.metersToPixels(meters, lat, this.zoom); }
  zoomAt(sx, sy, delta) {
    ({ center: this.center, zoom: this.zoom } = Geo.zoomAbout(this.view(), sx, sy, delta));
    this.request();
  }
  fit(points, padding = 40) {
    const [width, height] = this.size();
    const view = Geo.fit(points, width, height, padding);
    if (!view) return;
    ({ center: this.center, zoom: this.zoom } = view);
    this.request();
  }
  focus(lon, lat, zoom) {
    this.center = Geo.world(lon, lat);
    if (zoom) this.zoom = Math.max(this.zoom, zoom);
    this.request();
  }
  // Draws tiles from `template` ({z}, {x}, {y}) under the layers; past `maxZoom` the deepest tiles are scaled up.
  setTiles(template, maxZoom) {
    this.tiles = template ? { url: template, maxZoom: maxZoom ?? 19 } : null;
    this.tileCache.clear();
    this.request();
  }
  request() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }
  drawTiles(ctx) {
    let drawn = 0;
    for (const tile of Geo.tilesInView(this.view(), this.tiles.maxZoom)) {
      const url = Geo.tileUrl(this.tiles.url, tile);
      let image = this.tileCache.get(url);
      if (!image) {
        if (this.tileCache.size > 500) this.tileCache.clear();
        image = new Image();
        image.onload = () => this.request();
        image.src = url;
        this.tileCache.set(url, image);
      }
      if (image.complete && image.naturalWidth) {
        ctx.drawImage(image, tile.sx, tile.sy, tile.size + 0.5, tile.size + 0.5);
        drawn++;
      }
    }
    this.tilesDrawn = drawn;
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
    const [x, y] = map.screen(...Geo.world(lon, lat));
    ctx.arc(x, y, Math.max(2, map.metersToPixels(radius, lat)), 0, 2 * Math.PI);
  } else if (fence.polygon) {
    for (const ring of fence.polygon) {
      ring.forEach(([lon, lat], i) => {
        const [x, y] = map.screen(...Geo.world(lon, lat));
        if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
      });
      ctx.closePath();
    }
  }
  ctx.fillStyle = fill; ctx.fill();
  ctx.strokeStyle = stroke; ctx.lineWidth = 1; ctx.stroke();
}
// The base map the console names ({tiles, tilesMaxZoom, tilesAttribution} from /api/map), with its
// attribution in the page's #attribution.
function showBaseMap(map, config) {
  if (!config || !config.tiles) return;
  map.setTiles(config.tiles, config.tilesMaxZoom);
  const credit = document.getElementById("attribution");
  if (credit && config.tilesAttribution) { credit.textContent = config.tilesAttribution; credit.hidden = false; }
}
