package report

import (
	"bufio"
	"context"
	"html/template"
	"io"
	"sync"
)

// HTMLOptions choose what WriteHTML writes.
type HTMLOptions struct {
	// Fragment writes only the <article> of the session, for a page that
	// has its own <html>, <head> and the CSS (the web viewer).
	Fragment bool
	// Turn, when set, is given each turn before it is written: the web
	// viewer renders the answers' Markdown into Item.HTML there.
	Turn func(t *Turn)
}

// CSS styles the document WriteHTML writes: a whole page carries it in
// a <style> element; a page that embeds fragments serves it itself.
// Classes: article.snap-report; header.session; section.turn (id
// "turn-N", data-turn N); blockquote.prompt; div.text (the answer);
// details.thinking, details.context; details.tool-call (id "tool-I-J",
// data-tool the tool's name) with .failed or .no-result, its
// section.change (a diff of what it edits), section.input and
// section.result; details.tool-result for a result
// whose call is before the range; details.subagent (id "subagent-NAME"),
// a subagent's thread, after the tool call that ran it or where it began,
// holding its items; div.checkpoint (id "checkpoint-NAME");
// div.compaction; section.files with details.file-diff; p.not-shown.
const CSS = `
.snap-report{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;max-width:980px;margin:0 auto;padding:16px}
.snap-report h1{font-size:1.6em;border-bottom:1px solid #d0d7de;padding-bottom:.3em}
.snap-report h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #d0d7de;padding-bottom:.2em}
.snap-report h3{font-size:1em}
.snap-report table.header{border-collapse:collapse}
.snap-report table.header th{text-align:left;padding:2px 16px 2px 0;color:#59636e;font-weight:600;vertical-align:top}
.snap-report table.header td{padding:2px 0;overflow-wrap:anywhere}
.snap-report pre,.snap-report code{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.snap-report pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:8px 12px;white-space:pre-wrap;overflow-wrap:anywhere;max-height:40em;overflow:auto;margin:4px 0}
.snap-report .text{white-space:pre-wrap;overflow-wrap:anywhere;margin:8px 0}
.snap-report blockquote.prompt{white-space:pre-wrap;overflow-wrap:anywhere;margin:8px 0;padding:8px 12px;border-left:4px solid #0969da;background:#ddf4ff;border-radius:0 6px 6px 0}
.snap-report details{border:1px solid #d0d7de;border-radius:6px;margin:6px 0;padding:0 8px}
.snap-report details>summary{cursor:pointer;padding:4px 0;overflow-wrap:anywhere}
.snap-report details.tool-call>summary{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
.snap-report details.failed{border-color:#cf222e;background:#ffebe9}
.snap-report details.thinking,.snap-report details.context{color:#59636e;border-style:dashed}
.snap-report details.subagent{margin-left:24px;border-left:4px solid #8250df;background:#fbf8ff}
.snap-report details.subagent>summary{color:#8250df;font-weight:600}
.snap-report .label{color:#59636e;font-size:12px;text-transform:uppercase;letter-spacing:.04em;margin:6px 0 0}
.snap-report .checkpoint{margin:12px 0;padding:4px 8px;border-left:4px solid #1a7f37;background:#dafbe1;font-weight:600}
.snap-report .not-shown{color:#59636e;font-size:13px;margin-top:2em}
.snap-report .compaction{margin:12px 0;color:#59636e;font-style:italic;text-align:center}
.snap-report .diff .add{color:#1a7f37;background:#dafbe1}
.snap-report .diff .del{color:#cf222e;background:#ffebe9}
.snap-report .diff .hunk{color:#8250df}
.snap-report .diff .head{font-weight:600}
@media (prefers-color-scheme:dark){
.snap-report{color:#e6edf3;background:#0d1117}
.snap-report pre{background:#161b22;border-color:#30363d}
.snap-report blockquote.prompt{background:#0c2d6b;border-color:#4493f8}
.snap-report details{border-color:#30363d}
.snap-report details.failed{background:#3c1618;border-color:#f85149}
.snap-report details.subagent{background:#1c1530;border-left-color:#a371f7}
.snap-report .checkpoint{background:#04260f}
.snap-report .diff .add{color:#3fb950;background:#0f2d1a}
.snap-report .diff .del{color:#f85149;background:#3c1618}
}
`

// pageTemplate is parsed on first use, so that commands that never
// render HTML do not pay for it at start-up.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"headerRows": headerRows, "turnTitle": turnTitle, "toolClass": toolClass, "toolSummary": toolSummary,
		"fileSummary": fileSummary, "diffLines": diffLines, "notShown": notShown, "css": func() template.CSS { return template.CSS(CSS) },
	}).Parse(`{{define "page-head"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>Session {{.Name}}</title>
<style>{{css}}</style>
</head>
<body>
{{end}}
{{define "page-foot"}}
</body>
</html>
{{end}}
{{define "article-head"}}<article class="snap-report">
<header class="session">
<h1>Session {{.Name}}</h1>
<table class="header">
{{range headerRows .}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>
{{end}}</table>
</header>
{{end}}
{{define "nothing"}}<p>Nothing happened in this range.</p>{{end}}
{{define "article-foot"}}
{{with notShown .}}<p class="not-shown">{{.}}</p>{{end}}
</article>{{end}}
{{define "turn"}}<section class="turn" id="{{.ID}}" data-turn="{{.N}}">
<h2>{{turnTitle .}}</h2>
{{if .Prompt}}<blockquote class="prompt">{{.Prompt}}</blockquote>
{{end}}{{range .Items}}{{template "item" .}}{{end}}{{if .Files}}<section class="files">
<h3>Files changed</h3>
{{range .Files}}<details class="file-diff" open><summary>{{fileSummary .}}</summary>
{{if .Patch}}<pre class="diff">{{template "diff" .Patch}}</pre>{{end}}
</details>
{{end}}</section>
{{end}}</section>
{{end}}
{{define "diff"}}{{range diffLines .}}{{if .Class}}<span class="{{.Class}}">{{.Text}}</span>{{else}}{{.Text}}{{end}}{{end}}{{end}}
{{define "item"}}{{if and (eq .Kind "text") .HTML}}<div class="markdown" id="{{.ID}}">{{.HTML}}</div>
{{else if eq .Kind "text"}}<div class="text" id="{{.ID}}">{{.Text}}</div>
{{else if eq .Kind "thinking"}}<details class="thinking" id="{{.ID}}"><summary>thinking</summary><div class="text">{{.Text}}</div></details>
{{else if eq .Kind "context"}}<details class="context" id="{{.ID}}"><summary>{{.Role}} text</summary><div class="text">{{.Text}}</div></details>
{{else if eq .Kind "checkpoint"}}<div class="checkpoint" id="{{.ID}}">⚑ checkpoint {{.Text}}</div>
{{else if eq .Kind "compaction"}}<div class="compaction" id="{{.ID}}">— the conversation was compacted here —</div>
{{else if eq .Kind "subagent"}}{{template "subagent" .Subagent}}
{{else if .Tool}}<details class="{{toolClass .}}" id="{{.ID}}" data-tool="{{.Tool.Name}}"><summary>{{toolSummary .}}</summary>
{{if and (eq .Kind "tool") .Tool.Diff}}<section class="change"><p class="label">change</p><pre class="diff">{{template "diff" .Tool.Diff}}</pre></section>
{{end}}{{if eq .Kind "tool"}}<section class="input"><p class="label">input</p><pre>{{.Tool.Input}}</pre></section>
{{end}}<section class="result">{{if .Tool.HasResult}}<p class="label">result{{if .Tool.Failed}} (failed){{end}}</p><pre>{{.Tool.Result}}</pre>{{else}}<p class="label">no result recorded</p>{{end}}</section>
</details>
{{with .Tool.Subagent}}{{template "subagent" .}}{{end}}{{end}}{{end}}
{{define "subagent"}}<details class="subagent" id="{{.ID}}"><summary>subagent {{.Name}} · {{len .Items}} entries, {{.ToolCalls}} tool calls</summary>
{{range .Items}}{{template "item" .}}{{end}}</details>
{{end}}`))
})

// WriteHTML writes the session as one HTML page with its CSS inline and
// no script, no external resource (a Content-Security-Policy forbids
// both), or with o.Fragment only its <article>. Everything from the
// transcript is escaped by html/template: it is text, never markup.
// A session from Open is written a turn at a time as it is read
// (Session.EachTurn), so that a long one is never held whole.
func WriteHTML(ctx context.Context, w io.Writer, s *Session, o HTMLOptions) error {
	bw := bufio.NewWriter(w)
	t := pageTemplate()
	if !o.Fragment {
		if err := t.ExecuteTemplate(bw, "page-head", s); err != nil {
			return err
		}
	}
	if err := t.ExecuteTemplate(bw, "article-head", s); err != nil {
		return err
	}
	n := 0
	err := s.EachTurn(ctx, func(turn *Turn) error {
		n++
		if o.Turn != nil {
			o.Turn(turn)
		}
		return t.ExecuteTemplate(bw, "turn", turn)
	})
	if err != nil {
		return err
	}
	if n == 0 {
		if err := t.ExecuteTemplate(bw, "nothing", nil); err != nil {
			return err
		}
	}
	if err := t.ExecuteTemplate(bw, "article-foot", s); err != nil {
		return err
	}
	if !o.Fragment {
		if err := t.ExecuteTemplate(bw, "page-foot", s); err != nil {
			return err
		}
	}
	return bw.Flush()
}
