package langchaingo

import (
	"github.com/tmc/langchaingo/llms"

	"github.com/git-snap/git-snap/snapshot"
)

// roles maps LangChainGo's message types to the roles git-snap's views
// read (OpenAI's): "assistant" is what stats count as a model call.
var roles = map[llms.ChatMessageType]string{
	llms.ChatMessageTypeHuman:    "user",
	llms.ChatMessageTypeAI:       "assistant",
	llms.ChatMessageTypeSystem:   "system",
	llms.ChatMessageTypeTool:     "tool",
	llms.ChatMessageTypeFunction: "function",
}

// Encode gives the JSON object a message is stored as: "role" for
// git-snap and other readers, "type" for LangChainGo, and the fields of
// LangChainGo's message types under their JSON names. Messages of types
// LangChainGo does not define keep their type, content and name only.
func Encode(m llms.ChatMessage) map[string]any {
	t := m.GetType()
	role, ok := roles[t]
	if !ok {
		role = string(t)
	}
	out := map[string]any{"role": role, "type": string(t)}
	if c := m.GetContent(); c != "" {
		out["content"] = c // absent when empty: git-snap would show an empty text part
	}
	switch m := m.(type) {
	case llms.AIChatMessage:
		if m.FunctionCall != nil {
			out["function_call"] = functionCall(*m.FunctionCall)
		}
		if len(m.ToolCalls) > 0 {
			calls := make([]any, len(m.ToolCalls))
			for i, c := range m.ToolCalls {
				call := map[string]any{"id": c.ID, "type": c.Type}
				if c.FunctionCall != nil {
					call["function"] = functionCall(*c.FunctionCall)
				}
				calls[i] = call
			}
			out["tool_calls"] = calls
		}
		if m.ReasoningContent != "" {
			out["reasoning_content"] = m.ReasoningContent
		}
	case llms.GenericChatMessage:
		if m.Role != "" {
			out["role"] = m.Role
		}
		if m.Name != "" {
			out["name"] = m.Name
		}
	case llms.ToolChatMessage:
		out["tool_call_id"] = m.ID
	default:
		if n, ok := m.(llms.Named); ok && n.GetName() != "" {
			out["name"] = n.GetName() // FunctionChatMessage, and others' types
		}
	}
	return out
}

func functionCall(f llms.FunctionCall) map[string]any {
	return map[string]any{"name": f.Name, "arguments": f.Arguments}
}

// Decode reads a stored message back: by its LangChainGo "type" when it
// has one, else by its role, so that messages written by other programs
// in OpenAI's shape read too. A role LangChainGo has no type for reads
// as a GenericChatMessage with that role; content that is a list of
// blocks reads as its text.
func Decode(v any) llms.ChatMessage {
	obj, _ := v.(map[string]any)
	str := func(k string) string { s, _ := obj[k].(string); return s }
	content, ok := obj["content"].(string)
	if !ok && obj["content"] != nil {
		content = snapshot.ContentText(obj["content"])
	}
	t := llms.ChatMessageType(str("type"))
	if _, known := roles[t]; !known && t != llms.ChatMessageTypeGeneric {
		t = typeOfRole(str("role"))
	}
	switch t {
	case llms.ChatMessageTypeHuman:
		return llms.HumanChatMessage{Content: content}
	case llms.ChatMessageTypeAI:
		m := llms.AIChatMessage{Content: content, ReasoningContent: str("reasoning_content")}
		if f, ok := obj["function_call"].(map[string]any); ok {
			m.FunctionCall = readFunctionCall(f)
		}
		calls, _ := obj["tool_calls"].([]any)
		for _, c := range calls {
			co, _ := c.(map[string]any)
			call := llms.ToolCall{}
			call.ID, _ = co["id"].(string)
			call.Type, _ = co["type"].(string)
			if f, ok := co["function"].(map[string]any); ok {
				call.FunctionCall = readFunctionCall(f)
			}
			m.ToolCalls = append(m.ToolCalls, call)
		}
		return m
	case llms.ChatMessageTypeSystem:
		return llms.SystemChatMessage{Content: content}
	case llms.ChatMessageTypeTool:
		return llms.ToolChatMessage{ID: str("tool_call_id"), Content: content}
	case llms.ChatMessageTypeFunction:
		return llms.FunctionChatMessage{Name: str("name"), Content: content}
	}
	return llms.GenericChatMessage{Role: str("role"), Name: str("name"), Content: content}
}

// typeOfRole reads the roles of OpenAI and Anthropic messages.
func typeOfRole(role string) llms.ChatMessageType {
	switch role {
	case "user", "human":
		return llms.ChatMessageTypeHuman
	case "assistant", "ai", "model":
		return llms.ChatMessageTypeAI
	case "system", "developer":
		return llms.ChatMessageTypeSystem
	case "tool":
		return llms.ChatMessageTypeTool
	case "function":
		return llms.ChatMessageTypeFunction
	}
	return llms.ChatMessageTypeGeneric
}

func readFunctionCall(f map[string]any) *llms.FunctionCall {
	fc := &llms.FunctionCall{}
	fc.Name, _ = f["name"].(string)
	fc.Arguments, _ = f["arguments"].(string)
	return fc
}
