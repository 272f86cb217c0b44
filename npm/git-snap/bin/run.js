"use strict";
// Runs one of git-snap's programs from the package npm installed for this
// system, @git-snap/<platform>-<arch>: an optional dependency of this one,
// of which npm installs the one whose os and cpu fields match. The
// arguments, the standard streams and the exit status pass through.

const { spawnSync } = require("child_process");
const os = require("os");

module.exports = function run(program) {
  const pkg = `@git-snap/${process.platform}-${process.arch}`;
  const file = program + (process.platform === "win32" ? ".exe" : "");
  let exe;
  try {
    exe = require.resolve(`${pkg}/bin/${file}`);
  } catch {
    process.stderr.write(
      `${program}: ${pkg} is not installed: git-snap is built for linux, darwin and win32 on x64 and arm64, ` +
        `and npm installs the package for this system unless optional dependencies are left out (--omit=optional). ` +
        `Release archives: https://github.com/git-snap/git-snap/releases\n`,
    );
    process.exit(1);
  }
  // The terminal sends these to the program too, which decides what
  // they do (a pager may be running): this process waits for it.
  for (const signal of ["SIGINT", "SIGQUIT"]) {
    process.on(signal, () => {});
  }
  const r = spawnSync(exe, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
  if (r.error) {
    process.stderr.write(`${program}: ${exe}: ${r.error.message}\n`);
    process.exit(1);
  }
  if (r.signal) {
    // End as the program ended, by its signal; but Node ignores SIGPIPE
    // and opens a debugger port on SIGUSR1, so for those (and should
    // the signal not end this process) exit as a shell reports a
    // signal, 128 + its number, never 0.
    if (r.signal !== "SIGPIPE" && r.signal !== "SIGUSR1") {
      process.removeAllListeners(r.signal);
      process.kill(process.pid, r.signal);
    }
    process.exit(128 + (os.constants.signals[r.signal] || 0));
  }
  process.exit(r.status);
};
