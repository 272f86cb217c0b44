#!/usr/bin/env node
"use strict";
require("./run.js")("git-snap-hook");
