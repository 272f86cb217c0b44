#!/usr/bin/env node
"use strict";
// Makes git-snap's npm packages from the binaries of a GoReleaser build,
// as esbuild and Biome ship theirs: @git-snap/<platform>-<arch> for each
// system, holding git-snap and git-snap-hook, with os and cpu fields so
// that npm installs only the one that runs here; and git-snap, whose
// commands run the one npm installed (bin/run.js), each an optional
// dependency of it at the same version.
//
//   node npm/build.js DIST OUT
//
// DIST is GoReleaser's dist folder (artifacts.json, metadata.json), run
// from the folder GoReleaser ran in; OUT gets one folder a package, for
// npm pack or npm publish (the platform packages first).

const fs = require("fs");
const path = require("path");

const platforms = { linux: "linux", darwin: "darwin", windows: "win32" };
const arches = { amd64: "x64", arm64: "arm64" };
const programs = ["git-snap", "git-snap-hook"];

function main(dist, out) {
  if (!dist || !out) {
    process.stderr.write("usage: node npm/build.js DIST OUT\n");
    process.exit(2);
  }
  const root = path.join(__dirname, "..");
  const { version } = readJSON(path.join(dist, "metadata.json"));
  if (typeof version !== "string" || !/^\d+\.\d+\.\d+/.test(version)) {
    throw new Error(`${path.join(dist, "metadata.json")} has no version (x.y.z): run GoReleaser first`);
  }
  const binaries = readJSON(path.join(dist, "artifacts.json")).filter(
    (a) => a.type === "Binary" && programs.includes(a.extra && a.extra.Binary),
  );
  if (binaries.length === 0) {
    // A git-snap package with no platform package would install and
    // then run nowhere.
    throw new Error(`${path.join(dist, "artifacts.json")} lists no binary of ${programs.join(" or ")}: run GoReleaser first`);
  }
  const main = readJSON(path.join(__dirname, "git-snap", "package.json"));
  const packages = {};
  for (const b of binaries) {
    const os = platforms[b.goos];
    const cpu = arches[b.goarch];
    if (!os || !cpu) {
      throw new Error(`no npm platform for ${b.goos}/${b.goarch}`);
    }
    const name = `@git-snap/${os}-${cpu}`;
    const dir = path.join(out, `${os}-${cpu}`);
    if (!packages[name]) {
      packages[name] = dir;
      fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
      writeJSON(path.join(dir, "package.json"), {
        name,
        version,
        description: `git-snap and git-snap-hook for ${os} on ${cpu}: installed by the git-snap package`,
        license: main.license,
        author: main.author,
        homepage: main.homepage,
        repository: main.repository,
        os: [os],
        cpu: [cpu],
        files: ["bin/"],
        preferUnplugged: true,
      });
      fs.copyFileSync(path.join(root, "LICENSE"), path.join(dir, "LICENSE"));
    }
    const file = path.join(dir, "bin", b.extra.Binary + b.extra.Ext);
    fs.copyFileSync(b.path, file);
    fs.chmodSync(file, 0o755);
  }
  for (const [name, dir] of Object.entries(packages)) {
    for (const p of programs) {
      const ext = name.includes("win32") ? ".exe" : "";
      if (!fs.existsSync(path.join(dir, "bin", p + ext))) {
        throw new Error(`${name} has no ${p}${ext}: the build made no binary of it`);
      }
    }
  }
  const dir = path.join(out, "git-snap");
  fs.cpSync(path.join(__dirname, "git-snap"), dir, { recursive: true });
  main.version = version;
  main.optionalDependencies = Object.fromEntries(Object.keys(packages).sort().map((n) => [n, version]));
  writeJSON(path.join(dir, "package.json"), main);
  fs.copyFileSync(path.join(root, "LICENSE"), path.join(dir, "LICENSE"));
  fs.copyFileSync(path.join(root, "README.md"), path.join(dir, "README.md"));
  process.stdout.write(`git-snap ${version} and ${Object.keys(packages).sort().join(", ")} in ${out}\n`);
}

function readJSON(file) {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

function writeJSON(file, value) {
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
}

try {
  main(process.argv[2], process.argv[3]);
} catch (e) {
  process.stderr.write(`npm/build.js: ${e.message}; publish nothing from ${process.argv[3]}\n`);
  process.exit(2);
}
