// Package liveagents is the live-agent suite: each real agent CLI,
// installed from npm at the version versions.json pins, runs a scenario
// against a stub model server on 127.0.0.1 (package modelapi) with
// git-snap's hooks installed, and the tests check what git-snap recorded
// against what the agent wrote and the stub sent; Claude Code also calls
// git-snap's MCP server (git snap mcp) for a past session. It holds only tests;
// they skip unless GIT_SNAP_LIVE_AGENTS is set (=latest runs the newest
// published versions instead of the pinned ones). CONTRIBUTING.md, "Live
// agents", says how to run it.
//
// Adding an agent is a line in versions.json (its npm package, version
// and executable), one file here with its driver (how to point it at the
// stub, run a prompt, resume, where its transcript is, the hook events a
// prompt fires, the gates its hooks need (and, for a gate with which the
// agent does not run at all, how it refuses), a request of its API that
// is not the recording's) and a test calling runScenario with it; and,
// when it speaks an API modelapi lacks, one file there.
package liveagents
