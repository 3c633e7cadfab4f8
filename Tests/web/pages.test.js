// The pages and their scripts fit together (Sources/Console/Web): every file a page names exists, and each
// script comes after the scripts that define the globals it uses. A mistake here shows only in a browser.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");

const web = path.join(__dirname, "../../Sources/Console/Web");
const read = (name) => fs.readFileSync(path.join(web, name), "utf8");
const pages = fs.readdirSync(web).filter((name) => name.endsWith(".html"));
const scripts = fs.readdirSync(web).filter((name) => name.endsWith(".js"));

// A script's code without its comments and string literals, where words are not uses.
const code = (name) => read(name).replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "").replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, '""');

// The globals each script shares: its top-level classes and functions, and capitalized constants (Geo, Format,
// COLORS, …). Lower-case constants are left out: a local variable of another script may have the same name.
const defined = new Map(scripts.map((name) => [name, [
  ...read(name).matchAll(/^(?:class|function)\s+([A-Za-z_$][\w$]*)|^(?:const|let)\s+([A-Z][\w$]*)\s*=/gm),
].map((m) => m[1] ?? m[2])]));

test("there are pages and scripts to check", () => {
  assert.ok(pages.includes("console.html") && pages.includes("tracking.html"));
  assert.ok(scripts.length >= 5);
});

for (const page of pages) {
  test(`${page}: every asset it names is a file here`, () => {
    for (const [, asset] of read(page).matchAll(/(?:src|href)="\/assets\/([^"]+)"/g)) {
      assert.ok(fs.existsSync(path.join(web, asset)), `${page} names /assets/${asset}, which is not in Sources/Console/Web`);
    }
  });

  test(`${page}: each script comes after the scripts whose globals it uses`, () => {
    const order = [...read(page).matchAll(/<script src="\/assets\/([^"]+)"><\/script>/g)].map((m) => m[1]);
    for (const [index, script] of order.entries()) {
      const source = code(script);
      for (const [other, names] of defined) {
        if (other === script) continue;
        for (const name of names) {
          if (defined.get(script).includes(name)) continue;  // its own
          if (!new RegExp(`(?<![\\w$.])${name.replace("$", "\\$")}\\b`).test(source)) continue;
          const at = order.indexOf(other);
          assert.ok(at >= 0 && at < index, `${page}: ${script} uses ${name} from ${other}, which ${at < 0 ? "the page does not load" : "comes after it"}`);
        }
      }
    }
  });
}

test("no inline script or style: the pages' Content-Security-Policy allows files from the console only", () => {
  for (const page of pages) {
    const html = read(page);
    assert.ok(!/<script(?![^>]*\ssrc=)[^>]*>/.test(html), `${page} has an inline <script>`);
    assert.ok(!/<style[\s>]/.test(html) && !/\sstyle="/.test(html), `${page} has inline style`);
    assert.ok(!/\son[a-z]+="/.test(html), `${page} has an inline event handler`);
  }
});
