// git-snap: records this project's OpenCode sessions.
// Written by "git snap install opencode"; "git snap uninstall opencode" removes it.
import { mkdir, writeFile, rename } from "node:fs/promises"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"

const COMMAND = "git-snap hook opencode"

export const GitSnap = async ({ client, directory }) => {
  const dir = join(tmpdir(), "git-snap-opencode-" + userInfo().uid)
  const record = async (event, sessionID, extra) => {
    if (!sessionID) return
    try {
      const info = await client.session.get({ path: { id: sessionID } })
      const messages = await client.session.messages({ path: { id: sessionID } })
      await mkdir(dir, { recursive: true, mode: 0o700 })
      const path = join(dir, sessionID + ".json")
      await writeFile(path + ".tmp", JSON.stringify({ info: info.data, messages: messages.data }), { mode: 0o600 })
      await rename(path + ".tmp", path)
      const payload = JSON.stringify({ hook_event_name: event, session_id: sessionID, transcript_path: path, cwd: directory, ...extra })
      const proc = Bun.spawn(["sh", "-c", COMMAND], { cwd: directory, stdin: new Blob([payload]), stdout: "ignore", stderr: "ignore" })
      await proc.exited
    } catch {}
  }
  return {
    event: async ({ event }) => {
      if (event.type === "session.idle") await record("session.idle", event.properties.sessionID)
    },
    "tool.execute.after": async (input) => {
      await record("tool.execute.after", input.sessionID, { tool_name: input.tool })
    },
    "experimental.session.compacting": async (input) => {
      await record("session.compacting", input.sessionID)
    },
  }
}
