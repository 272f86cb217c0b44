package capture

import (
	"strings"
	"time"
)

// countQwen counts a Qwen Code chat: a turn is a user record of the
// user's own (provenance real_user) with text; one model call per
// assistant record, its usageMetadata (the prompt less its cached part
// as input, the cached part as cache reads, candidates and thoughts as
// output); a tool call per functionCall part, its result per
// functionResponse part, failed when the record's toolCallResult says
// so; answers are assistant records with text.
func countQwen(records []map[string]any) counts {
	var c counts
	for _, r := range records {
		c.span(r)
		parts, _ := field(r, "message", "parts").([]any)
		switch text(r, "type") {
		case "user":
			if text(r, "provenance") == "real_user" {
				c.Turns++
				c.Messages++
			}
		case "assistant":
			c.ModelCalls++
			cached := integer(r, "usageMetadata", "cachedContentTokenCount")
			c.Input += integer(r, "usageMetadata", "promptTokenCount") - cached
			c.CacheRead += cached
			c.Output += integer(r, "usageMetadata", "candidatesTokenCount") + integer(r, "usageMetadata", "thoughtsTokenCount")
			said := false
			for _, p := range parts {
				if field(p, "functionCall") != nil {
					c.ToolCalls++
					c.Messages++
				}
				said = said || strings.TrimSpace(text(p, "text")) != ""
			}
			if said {
				c.Messages++
			}
		case "tool_result":
			for _, p := range parts {
				if field(p, "functionResponse") != nil {
					c.Messages++
					if text(r, "toolCallResult", "status") != "success" {
						c.ToolFailures++
					}
				}
			}
		}
	}
	return c
}

// countPi counts a pi session: message entries only; a turn is a user
// message; one model call per assistant message, its usage (input is
// uncached); a tool call per toolCall block, its result per toolResult
// message (failed when isError); answers are assistant messages with
// text; times are every entry's.
func countPi(records []map[string]any) counts {
	var c counts
	for _, r := range records {
		c.span(r)
		if text(r, "type") != "message" {
			continue
		}
		switch text(r, "message", "role") {
		case "user":
			c.Turns++
			c.Messages++
		case "assistant":
			c.ModelCalls++
			c.Input += integer(r, "message", "usage", "input")
			c.CacheRead += integer(r, "message", "usage", "cacheRead")
			c.CacheWrite += integer(r, "message", "usage", "cacheWrite")
			c.Output += integer(r, "message", "usage", "output")
			blocks, _ := field(r, "message", "content").([]any)
			said := false
			for _, b := range blocks {
				switch text(b, "type") {
				case "toolCall":
					c.ToolCalls++
					c.Messages++
				case "text":
					said = said || strings.TrimSpace(text(b, "text")) != ""
				}
			}
			if said {
				c.Messages++
			}
		case "toolResult":
			c.Messages++
			if field(r, "message", "isError") == true {
				c.ToolFailures++
			}
		}
	}
	return c
}

// countCline counts a Cline messages document: a turn is a user message
// with text; one model call per assistant message, its metrics
// (inputTokens less the cache reads and writes as input); a tool call
// per tool_use block, its result per tool_result block (failed when
// is_error, or a command in it did not succeed); times are the
// messages' ts.
func countCline(doc map[string]any) counts {
	var c counts
	msgs, _ := doc["messages"].([]any)
	for _, raw := range msgs {
		at := time.UnixMilli(integer(raw, "ts")).UTC()
		if c.First.IsZero() || at.Before(c.First) {
			c.First = at
		}
		if at.After(c.Last) {
			c.Last = at
		}
		blocks, _ := field(raw, "content").([]any)
		said := false
		for _, b := range blocks {
			switch text(b, "type") {
			case "text":
				said = said || strings.TrimSpace(text(b, "text")) != ""
			case "tool_use":
				c.ToolCalls++
				c.Messages++
			case "tool_result":
				c.Messages++
				failed := field(b, "is_error") == true
				items, _ := field(b, "content").([]any)
				for _, it := range items {
					failed = failed || field(it, "success") == false
				}
				if failed {
					c.ToolFailures++
				}
			}
		}
		switch text(raw, "role") {
		case "user":
			if said {
				c.Turns++
				c.Messages++
			}
		case "assistant":
			c.ModelCalls++
			read, write := integer(raw, "metrics", "cacheReadTokens"), integer(raw, "metrics", "cacheWriteTokens")
			c.Input += integer(raw, "metrics", "inputTokens") - read - write
			c.CacheRead += read
			c.CacheWrite += write
			c.Output += integer(raw, "metrics", "outputTokens")
			if said {
				c.Messages++
			}
		}
	}
	return c
}

// countDroid counts a Droid session: message records that are no hook's
// (hookEventName) and no context Droid adds (a "context-" id, a system
// reminder); a turn is a user message with text; one model call per
// assistant message; a tool call per tool_use block, its result per
// tool_result block (failed when is_error); the tokens are the totals
// of its settings document (inputTokens uncached).
func countDroid(records []map[string]any, settings map[string]any) counts {
	var c counts
	for _, r := range records {
		c.span(r)
		if text(r, "type") != "message" || field(r, "message", "hookEventName") != nil {
			continue
		}
		blocks, _ := field(r, "message", "content").([]any)
		said := false
		for _, b := range blocks {
			switch text(b, "type") {
			case "text":
				said = said || strings.TrimSpace(text(b, "text")) != ""
			case "tool_use":
				c.ToolCalls++
				c.Messages++
			case "tool_result":
				c.Messages++
				if field(b, "is_error") == true {
					c.ToolFailures++
				}
			}
		}
		switch text(r, "message", "role") {
		case "user":
			if said && !strings.HasPrefix(text(r, "id"), "context-") && !strings.Contains(droidText(blocks), "<system-reminder>") {
				c.Turns++
				c.Messages++
			}
		case "assistant":
			c.ModelCalls++
			if said {
				c.Messages++
			}
		}
	}
	c.Input = integer(settings, "tokenUsage", "inputTokens")
	c.CacheRead = integer(settings, "tokenUsage", "cacheReadTokens")
	c.CacheWrite = integer(settings, "tokenUsage", "cacheCreationTokens")
	c.Output = integer(settings, "tokenUsage", "outputTokens") + integer(settings, "tokenUsage", "thinkingTokens")
	return c
}

// droidText is the text of a message's blocks.
func droidText(blocks []any) string {
	var out []string
	for _, b := range blocks {
		out = append(out, text(b, "text"))
	}
	return strings.Join(out, "\n")
}
