package jsonl

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The schemas of the three formats' lines, each with the Go type that
// encoding/json decodes the same line into. They are declared here, as
// copies of those the readers declare (runtimes/claude/transcript's
// quick.go and scan.go; the Codex and Gemini readers' quick.go, which
// declare theirs as key tables today): the readers' types are unexported,
// and a test of this package cannot import a package that imports it. A
// reader's own fuzz test holds its reader, schema included, to its
// decoder; this one holds every kind of Field, nested the ways the formats
// nest them, to encoding/json.

type (
	claudeLine struct {
		Type        string         `json:"type"`
		UUID        string         `json:"uuid"`
		Timestamp   string         `json:"timestamp"`
		IsMeta      bool           `json:"isMeta"`
		IsSidechain bool           `json:"isSidechain"`
		Message     *claudeMessage `json:"message"`
	}
	claudeMessage struct {
		ID      string        `json:"id"`
		Role    string        `json:"role"`
		Model   string        `json:"model"`
		Content []claudeBlock `json:"content"`
		Usage   *claudeUsage  `json:"usage"`
	}
	claudeBlock struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
		IsError   bool            `json:"is_error"`
		Source    json.RawMessage `json:"source"`
	}
	claudeUsage struct {
		InputTokens              int64 `json:"input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	}
	// claudeFacts is what a scan reads of every line, forgiving values of
	// another type (see TextKey).
	claudeFacts struct {
		Type        Text            `json:"type"`
		IsMeta      bool            `json:"isMeta"`
		IsSidechain bool            `json:"isSidechain"`
		Message     json.RawMessage `json:"message"`
		GitBranch   Text            `json:"gitBranch"`
	}
)

var (
	claudeLineSchema = NewSchema(
		StringKey("type", func(l *claudeLine) *string { return &l.Type }),
		StringKey("uuid", func(l *claudeLine) *string { return &l.UUID }),
		StringKey("timestamp", func(l *claudeLine) *string { return &l.Timestamp }),
		BoolKey("isMeta", func(l *claudeLine) *bool { return &l.IsMeta }),
		BoolKey("isSidechain", func(l *claudeLine) *bool { return &l.IsSidechain }),
		PtrKey("message", func(l *claudeLine) **claudeMessage { return &l.Message }, claudeMessageSchema),
	)
	claudeMessageSchema = NewSchema(
		StringKey("id", func(m *claudeMessage) *string { return &m.ID }),
		StringKey("role", func(m *claudeMessage) *string { return &m.Role }),
		StringKey("model", func(m *claudeMessage) *string { return &m.Model }),
		SliceKey("content", func(m *claudeMessage) *[]claudeBlock { return &m.Content }, claudeBlockSchema),
		PtrKey("usage", func(m *claudeMessage) **claudeUsage { return &m.Usage }, claudeUsageSchema),
	)
	claudeBlockSchema = NewSchema(
		StringKey("type", func(b *claudeBlock) *string { return &b.Type }),
		StringKey("text", func(b *claudeBlock) *string { return &b.Text }),
		StringKey("thinking", func(b *claudeBlock) *string { return &b.Thinking }),
		StringKey("id", func(b *claudeBlock) *string { return &b.ID }),
		StringKey("name", func(b *claudeBlock) *string { return &b.Name }),
		RawKey("input", func(b *claudeBlock) *json.RawMessage { return &b.Input }),
		StringKey("tool_use_id", func(b *claudeBlock) *string { return &b.ToolUseID }),
		RawKey("content", func(b *claudeBlock) *json.RawMessage { return &b.Content }),
		BoolKey("is_error", func(b *claudeBlock) *bool { return &b.IsError }),
		RawKey("source", func(b *claudeBlock) *json.RawMessage { return &b.Source }),
	)
	claudeUsageSchema = NewSchema(
		IntKey("input_tokens", func(u *claudeUsage) *int64 { return &u.InputTokens }),
		IntKey("output_tokens", func(u *claudeUsage) *int64 { return &u.OutputTokens }),
		IntKey("cache_creation_input_tokens", func(u *claudeUsage) *int64 { return &u.CacheCreationInputTokens }),
		IntKey("cache_read_input_tokens", func(u *claudeUsage) *int64 { return &u.CacheReadInputTokens }),
	)
	claudeFactsSchema = NewSchema(
		TextKey("type", func(f *claudeFacts) *Text { return &f.Type }),
		TrueKey("isMeta", func(f *claudeFacts) *bool { return &f.IsMeta }),
		TrueKey("isSidechain", func(f *claudeFacts) *bool { return &f.IsSidechain }),
		BorrowedKey("message", func(f *claudeFacts) *json.RawMessage { return &f.Message }),
		TextKey("gitBranch", func(f *claudeFacts) *Text { return &f.GitBranch }),
	)
)

// UnmarshalJSON decodes what TextKey reads, for encoding/json to be held
// to: a string's content; any other value leaves t as it is.
func (t *Text) UnmarshalJSON(b []byte) error {
	if b[0] != '"' {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*t = Text(s)
	return nil
}

type (
	codexLine struct {
		Timestamp string       `json:"timestamp"`
		Type      string       `json:"type"`
		Payload   codexPayload `json:"payload"`
	}
	codexPayload struct {
		Type    string      `json:"type"`
		ID      string      `json:"id"`
		Cwd     string      `json:"cwd"`
		Item    *codexItem  `json:"item"`
		Summary []codexText `json:"summary"`
	}
	codexText struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	codexItem struct {
		Type             string        `json:"type"`
		ID               string        `json:"id"`
		Content          []codexText   `json:"content"`
		Command          []string      `json:"command"`
		Status           string        `json:"status"`
		AggregatedOutput string        `json:"aggregated_output"`
		ExitCode         *int          `json:"exit_code"`
		Changes          []codexChange `json:"changes"`
	}
	codexChange struct {
		Path string    `json:"path"`
		Kind codexKind `json:"kind"`
		Diff string    `json:"diff"`
	}
	codexKind struct {
		Type     string `json:"type"`
		MovePath string `json:"move_path"`
	}
	// codexFacts is what a scan reads of every line (the reader's facts,
	// flat there), forgiving types of another type but for a token
	// count's time and info.
	codexFacts struct {
		Type      Text              `json:"type"`
		Timestamp Text              `json:"timestamp"`
		Payload   codexFactsPayload `json:"payload"`
	}
	codexFactsPayload struct {
		Type Text            `json:"type"`
		Item *codexFactsItem `json:"item"`
		Info *codexInfo      `json:"info"`
	}
	codexFactsItem struct {
		Type Text `json:"type"`
	}
	codexInfo struct {
		Total codexUsage `json:"total_token_usage"`
		Last  codexUsage `json:"last_token_usage"`
	}
	codexUsage struct {
		Input      int64 `json:"input_tokens"`
		Cached     int64 `json:"cached_input_tokens"`
		CacheWrite int64 `json:"cache_write_input_tokens"`
		Output     int64 `json:"output_tokens"`
	}
)

var (
	codexLineSchema = NewSchema(
		StringKey("timestamp", func(l *codexLine) *string { return &l.Timestamp }),
		StringKey("type", func(l *codexLine) *string { return &l.Type }),
		StructKey("payload", func(l *codexLine) *codexPayload { return &l.Payload }, codexPayloadSchema),
	)
	codexPayloadSchema = NewSchema(
		StringKey("type", func(p *codexPayload) *string { return &p.Type }),
		StringKey("id", func(p *codexPayload) *string { return &p.ID }),
		StringKey("cwd", func(p *codexPayload) *string { return &p.Cwd }),
		PtrKey("item", func(p *codexPayload) **codexItem { return &p.Item }, codexItemSchema),
		SliceKey("summary", func(p *codexPayload) *[]codexText { return &p.Summary }, codexTextSchema),
	)
	codexTextSchema = NewSchema(
		StringKey("type", func(t *codexText) *string { return &t.Type }),
		StringKey("text", func(t *codexText) *string { return &t.Text }),
	)
	codexItemSchema = NewSchema(
		StringKey("type", func(it *codexItem) *string { return &it.Type }),
		StringKey("id", func(it *codexItem) *string { return &it.ID }),
		SliceKey("content", func(it *codexItem) *[]codexText { return &it.Content }, codexTextSchema),
		StringsKey("command", func(it *codexItem) *[]string { return &it.Command }),
		StringKey("status", func(it *codexItem) *string { return &it.Status }),
		StringKey("aggregated_output", func(it *codexItem) *string { return &it.AggregatedOutput }),
		FuncKey("exit_code", func(b []byte, at int, it *codexItem) int {
			var n int64
			e := Int(b, at, &n)
			if e < 0 || int64(int(n)) != n {
				return -1
			}
			it.ExitCode = new(int)
			*it.ExitCode = int(n)
			return e
		}),
		SliceKey("changes", func(it *codexItem) *[]codexChange { return &it.Changes }, codexChangeSchema),
	)
	codexChangeSchema = NewSchema(
		StringKey("path", func(c *codexChange) *string { return &c.Path }),
		StructKey("kind", func(c *codexChange) *codexKind { return &c.Kind }, codexKindSchema),
		StringKey("diff", func(c *codexChange) *string { return &c.Diff }),
	)
	codexKindSchema = NewSchema(
		StringKey("type", func(k *codexKind) *string { return &k.Type }),
		StringKey("move_path", func(k *codexKind) *string { return &k.MovePath }),
	)
	codexFactsSchema = NewSchema(
		TextKey("type", func(f *codexFacts) *Text { return &f.Type }),
		FuncKey("payload", func(b []byte, at int, f *codexFacts) int {
			return objectOr(b, at, &f.Payload, codexFactsPayloadSchema)
		}),
		FuncKey("timestamp", func(b []byte, at int, f *codexFacts) int {
			e := ValueEnd(b, at)
			if e < 0 || b[at] != '"' || bytes.IndexByte(b[at:e], '\\') >= 0 || !utf8.Valid(b[at:e]) {
				return -1
			}
			f.Timestamp = b[at+1 : e-1]
			return e
		}),
	)
	codexFactsPayloadSchema = NewSchema(
		TextKey("type", func(p *codexFactsPayload) *Text { return &p.Type }),
		FuncKey("item", func(b []byte, at int, p *codexFactsPayload) int {
			it := new(codexFactsItem)
			e := objectOr(b, at, it, codexFactsItemSchema)
			if e >= 0 && string(b[at:e]) != "null" {
				p.Item = it
			}
			return e
		}),
		FuncKey("info", func(b []byte, at int, p *codexFactsPayload) int {
			if b[at] == '{' {
				p.Info = new(codexInfo)
				return codexInfoSchema.ReadAt(b, at, p.Info)
			}
			if e := ValueEnd(b, at); e >= 0 && string(b[at:e]) == "null" {
				return e
			}
			return -1
		}),
	)
	codexFactsItemSchema = NewSchema(TextKey("type", func(it *codexFactsItem) *Text { return &it.Type }))
	codexInfoSchema      = NewSchema(
		StructKey("total_token_usage", func(in *codexInfo) *codexUsage { return &in.Total }, codexUsageSchema),
		StructKey("last_token_usage", func(in *codexInfo) *codexUsage { return &in.Last }, codexUsageSchema),
	)
	codexUsageSchema = NewSchema(
		IntKey("input_tokens", func(u *codexUsage) *int64 { return &u.Input }),
		IntKey("cached_input_tokens", func(u *codexUsage) *int64 { return &u.Cached }),
		IntKey("cache_write_input_tokens", func(u *codexUsage) *int64 { return &u.CacheWrite }),
		IntKey("output_tokens", func(u *codexUsage) *int64 { return &u.Output }),
	)
)

// objectOr reads the object at b[at] into dst by s, or skips a value of
// another type (which a decoding that forgives type errors leaves zero).
func objectOr[T any](b []byte, at int, dst *T, s *Schema[T]) int {
	if b[at] != '{' {
		return ValueEnd(b, at)
	}
	return s.ReadAt(b, at, dst)
}

type (
	geminiRecord struct {
		ID        string           `json:"id"`
		Timestamp string           `json:"timestamp"`
		Type      string           `json:"type"`
		Content   json.RawMessage  `json:"content"`
		Thoughts  []geminiThought  `json:"thoughts"`
		ToolCalls []geminiToolCall `json:"toolCalls"`
		Tokens    *geminiTokens    `json:"tokens"`
		Model     string           `json:"model"`
	}
	geminiThought struct {
		Subject     string `json:"subject"`
		Description string `json:"description"`
	}
	geminiTokens struct {
		Input  int64 `json:"input"`
		Output int64 `json:"output"`
		Cached int64 `json:"cached"`
	}
	geminiToolCall struct {
		ID     string          `json:"id"`
		Name   string          `json:"name"`
		Args   json.RawMessage `json:"args"`
		Result []geminiPart    `json:"result"`
		Status string          `json:"status"`
	}
	geminiPart struct {
		Text             *string         `json:"text"`
		Thought          bool            `json:"thought"`
		FunctionResponse *geminiResponse `json:"functionResponse"`
	}
	geminiResponse struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	}
)

var (
	geminiRecordSchema = NewSchema(
		StringKey("id", func(r *geminiRecord) *string { return &r.ID }),
		StringKey("timestamp", func(r *geminiRecord) *string { return &r.Timestamp }),
		StringKey("type", func(r *geminiRecord) *string { return &r.Type }),
		RawUncheckedKey("content", func(r *geminiRecord) *json.RawMessage { return &r.Content }),
		SliceKey("thoughts", func(r *geminiRecord) *[]geminiThought { return &r.Thoughts }, geminiThoughtSchema),
		SliceKey("toolCalls", func(r *geminiRecord) *[]geminiToolCall { return &r.ToolCalls }, geminiToolCallSchema),
		PtrKey("tokens", func(r *geminiRecord) **geminiTokens { return &r.Tokens }, geminiTokensSchema),
		StringKey("model", func(r *geminiRecord) *string { return &r.Model }),
	)
	geminiThoughtSchema = NewSchema(
		StringKey("subject", func(t *geminiThought) *string { return &t.Subject }),
		StringKey("description", func(t *geminiThought) *string { return &t.Description }),
	)
	geminiTokensSchema = NewSchema(
		IntKey("input", func(t *geminiTokens) *int64 { return &t.Input }),
		IntKey("output", func(t *geminiTokens) *int64 { return &t.Output }),
		IntKey("cached", func(t *geminiTokens) *int64 { return &t.Cached }),
	)
	geminiToolCallSchema = NewSchema(
		StringKey("id", func(c *geminiToolCall) *string { return &c.ID }),
		StringKey("name", func(c *geminiToolCall) *string { return &c.Name }),
		RawKey("args", func(c *geminiToolCall) *json.RawMessage { return &c.Args }),
		SliceKey("result", func(c *geminiToolCall) *[]geminiPart { return &c.Result }, geminiPartSchema),
		StringKey("status", func(c *geminiToolCall) *string { return &c.Status }),
	)
	geminiPartSchema = NewSchema(
		StringPtrKey("text", func(p *geminiPart) **string { return &p.Text }),
		BoolKey("thought", func(p *geminiPart) *bool { return &p.Thought }),
		PtrKey("functionResponse", func(p *geminiPart) **geminiResponse { return &p.FunctionResponse }, geminiResponseSchema),
	)
	geminiResponseSchema = NewSchema(
		StringKey("id", func(r *geminiResponse) *string { return &r.ID }),
		StringKey("name", func(r *geminiResponse) *string { return &r.Name }),
		RawUncheckedKey("response", func(r *geminiResponse) *json.RawMessage { return &r.Response }),
	)
)

// What Gemini's replay reads of a chat-file line of any kind (a header, a
// $set, a record) and of a $set's records (runtimes/gemini/chats' scan.go).
type (
	geminiLine struct {
		Set         *geminiSet      `json:"$set"`
		SessionID   *string         `json:"sessionId"`
		ProjectHash *string         `json:"projectHash"`
		StartTime   string          `json:"startTime"`
		LastUpdated string          `json:"lastUpdated"`
		ID          string          `json:"id"`
		Type        string          `json:"type"`
		Content     json.RawMessage `json:"content"`
		Thoughts    []geminiAny     `json:"thoughts"`
		ToolCalls   []geminiCallID  `json:"toolCalls"`
	}
	geminiSet struct {
		SessionID   string       `json:"sessionId"`
		ProjectHash string       `json:"projectHash"`
		StartTime   string       `json:"startTime"`
		LastUpdated string       `json:"lastUpdated"`
		Messages    []geminiInfo `json:"messages"`
	}
	geminiInfo struct {
		ID        string          `json:"id"`
		Type      string          `json:"type"`
		Content   json.RawMessage `json:"content"`
		Thoughts  []geminiAny     `json:"thoughts"`
		ToolCalls []geminiCallID  `json:"toolCalls"`
	}
	geminiCallID struct {
		ID string `json:"id"`
	}
	// geminiAny is an element only counted: encoding/json takes any value
	// into an empty struct but for a scalar, which the count refuses too.
	geminiAny struct{}
)

var (
	geminiLineSchema = NewSchema(
		PtrKey("$set", func(l *geminiLine) **geminiSet { return &l.Set }, geminiSetSchema),
		StringPtrKey("sessionId", func(l *geminiLine) **string { return &l.SessionID }),
		StringPtrKey("projectHash", func(l *geminiLine) **string { return &l.ProjectHash }),
		StringKey("startTime", func(l *geminiLine) *string { return &l.StartTime }),
		StringKey("lastUpdated", func(l *geminiLine) *string { return &l.LastUpdated }),
		StringKey("id", func(l *geminiLine) *string { return &l.ID }),
		StringKey("type", func(l *geminiLine) *string { return &l.Type }),
		RawUncheckedKey("content", func(l *geminiLine) *json.RawMessage { return &l.Content }),
		SliceKey("thoughts", func(l *geminiLine) *[]geminiAny { return &l.Thoughts }, geminiAnySchema),
		SliceKey("toolCalls", func(l *geminiLine) *[]geminiCallID { return &l.ToolCalls }, geminiCallIDSchema),
	)
	geminiSetSchema = NewSchema(
		StringKey("sessionId", func(s *geminiSet) *string { return &s.SessionID }),
		StringKey("projectHash", func(s *geminiSet) *string { return &s.ProjectHash }),
		StringKey("startTime", func(s *geminiSet) *string { return &s.StartTime }),
		StringKey("lastUpdated", func(s *geminiSet) *string { return &s.LastUpdated }),
		SliceKey("messages", func(s *geminiSet) *[]geminiInfo { return &s.Messages }, geminiInfoSchema),
	)
	geminiInfoSchema = NewSchema(
		StringKey("id", func(r *geminiInfo) *string { return &r.ID }),
		StringKey("type", func(r *geminiInfo) *string { return &r.Type }),
		RawUncheckedKey("content", func(r *geminiInfo) *json.RawMessage { return &r.Content }),
		SliceKey("thoughts", func(r *geminiInfo) *[]geminiAny { return &r.Thoughts }, geminiAnySchema),
		SliceKey("toolCalls", func(r *geminiInfo) *[]geminiCallID { return &r.ToolCalls }, geminiCallIDSchema),
	)
	geminiCallIDSchema = NewSchema(StringKey("id", func(c *geminiCallID) *string { return &c.ID }))
	geminiAnySchema    = NewSchema[geminiAny]()
)
