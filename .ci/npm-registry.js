#!/usr/bin/env node
"use strict";
// A registry on 127.0.0.1 that serves the npm packages in a folder of
// tarballs (npm pack's), so that .ci/release-check installs git-snap
// with npm as a user does, from the registry, resolving the platform
// package by its os and cpu, and with no network.
//
//   node .ci/npm-registry.js DIR   # prints its URL, serves until killed

const crypto = require("crypto");
const fs = require("fs");
const http = require("http");
const path = require("path");
const { execFileSync } = require("child_process");

const dir = process.argv[2];
const packuments = {};
const tarballs = {};

const server = http.createServer((req, res) => {
  const url = decodeURIComponent(req.url.split("?")[0]).replace(/^\/+/, "");
  if (tarballs[url]) {
    res.writeHead(200, { "content-type": "application/octet-stream" });
    res.end(fs.readFileSync(tarballs[url]));
  } else if (packuments[url]) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(packuments[url]));
  } else {
    res.writeHead(404, { "content-type": "application/json" });
    res.end('{"error":"not found"}');
  }
});

server.listen(0, "127.0.0.1", () => {
  const base = `http://127.0.0.1:${server.address().port}/`;
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".tgz"))) {
    const full = path.join(dir, file);
    const data = fs.readFileSync(full);
    const manifest = JSON.parse(execFileSync("tar", ["-xzOf", full, "package/package.json"], { encoding: "utf8" }));
    tarballs[`-/${file}`] = full;
    const p = (packuments[manifest.name] ??= { name: manifest.name, "dist-tags": {}, versions: {} });
    p["dist-tags"].latest = manifest.version;
    p.versions[manifest.version] = {
      ...manifest,
      _id: `${manifest.name}@${manifest.version}`,
      dist: {
        tarball: `${base}-/${file}`,
        shasum: crypto.createHash("sha1").update(data).digest("hex"),
        integrity: "sha512-" + crypto.createHash("sha512").update(data).digest("base64"),
      },
    };
  }
  process.stdout.write(base + "\n");
});
