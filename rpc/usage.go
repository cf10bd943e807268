package rpc

// Usage, limits and context: the plan's rate-limit windows each runtime's CLI
// reports, how full a session's context window is, and tokens summed from
// the stored transcripts.

// Usage methods.
const (
	MethodUsageLimits  = "usage/limits"
	MethodUsageSummary = "usage/summary"
)

// Usage events.
const (
	EventRateLimits   = "rate_limits"
	EventContextUsage = "context_usage"
)

// LimitStatus says whether a rate-limit window still lets requests through.
type LimitStatus string

// Limit statuses.
const (
	LimitAllowed  LimitStatus = "allowed"
	LimitWarning  LimitStatus = "warning"  // allowed, near the limit
	LimitRejected LimitStatus = "rejected" // the limit is reached until resets_at
)

// Enum lists the values of LimitStatus.
func (LimitStatus) Enum() []string { return []string{"allowed", "warning", "rejected"} }

// RateLimitWindow is one window of a plan's rate limits as the runtime's
// CLI last reported it.
type RateLimitWindow struct {
	ID            string      `json:"id" doc:"The window as the CLI names it: five_hour, seven_day, seven_day_opus, overage… (Claude Code); primary, secondary (Codex)."`
	UsedPercent   *float64    `json:"used_percent,omitempty" doc:"How much of the window is used, 0–100. Absent when the CLI did not say: Claude Code says it only once a window nears its limit."`
	WindowMinutes int64       `json:"window_minutes,omitempty" doc:"The window's length, when known."`
	ResetsAt      string      `json:"resets_at,omitempty" format:"date-time" doc:"When the window starts afresh."`
	Status        LimitStatus `json:"status,omitempty"`
	UpdatedAt     string      `json:"updated_at" format:"date-time" doc:"When the CLI last reported this window."`
}

// RuntimeLimits are one runtime's known rate-limit windows.
type RuntimeLimits struct {
	AgentType string            `json:"agent_type"`
	Windows   []RateLimitWindow `json:"windows"`
}

// UsageLimitsParams asks for the known rate limits.
type UsageLimitsParams struct {
	AgentType string `json:"agent_type,omitempty" doc:"One runtime; all of them when empty."`
}

// UsageLimitsResult answers usage/limits: the runtimes whose CLI has
// reported limits since cdevd first saw them (kept across restarts).
type UsageLimitsResult struct {
	Runtimes []RuntimeLimits `json:"runtimes"`
}

// RateLimitsEvent says a runtime's rate limits changed; it is sent to the
// watchers of the session whose CLI reported them.
type RateLimitsEvent struct {
	EventHeader
	Windows []RateLimitWindow `json:"windows" doc:"Every window known for the runtime, after the change."`
}

// ContextUsage is how full a session's context window is, as its CLI
// reported it after the last model call.
type ContextUsage struct {
	UsedTokens   int64   `json:"used_tokens" doc:"Tokens the context held at the last model call."`
	WindowTokens int64   `json:"window_tokens,omitempty" doc:"The model's context window, when the CLI says it."`
	UsedPercent  float64 `json:"used_percent,omitempty" doc:"used_tokens of window_tokens, 0–100, when the window is known."`
	UpdatedAt    string  `json:"updated_at" format:"date-time"`
}

// ContextUsageEvent says how full the session's context window is now.
type ContextUsageEvent struct {
	EventHeader
	ContextUsage
}

// MaxUsageDays bounds usage/summary's days.
const MaxUsageDays = 366

// UsageSummaryParams asks for tokens per day.
type UsageSummaryParams struct {
	WorkspaceID string `json:"workspace_id,omitempty" doc:"One workspace; every workspace when empty."`
	Days        int    `json:"days,omitempty" minimum:"1" maximum:"366" doc:"Days back from today (UTC), today included; 7 by default."`
}

// TokenTotals are tokens summed over assistant messages.
type TokenTotals struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	Messages                 int   `json:"messages" doc:"Assistant messages counted (Codex: model calls, which its rollouts count)."`
}

// UsageDay is one day's tokens in one workspace with one runtime.
type UsageDay struct {
	Date        string `json:"date" doc:"YYYY-MM-DD, UTC."`
	WorkspaceID string `json:"workspace_id"`
	AgentType   string `json:"agent_type"`
	TokenTotals
}

// UsageCost says what usage/summary knows of what the counted calls cost.
type UsageCost string

// CostUnknown: the CLIs' stored transcripts record no cost (Claude Code
// prints one on stdout with each result, but its transcript keeps none;
// Codex's rollouts and Gemini's chat files count tokens only), so cdevd
// cannot sum one. Unknown is not zero.
const CostUnknown UsageCost = "unknown"

func (UsageCost) Enum() []string { return []string{string(CostUnknown)} }

// UsageSummaryResult answers usage/summary.
type UsageSummaryResult struct {
	From  string      `json:"from" doc:"First day counted, YYYY-MM-DD (UTC)."`
	To    string      `json:"to" doc:"Last day counted (today), YYYY-MM-DD (UTC)."`
	Days  []UsageDay  `json:"days" doc:"Days with usage, by date, workspace and runtime."`
	Total TokenTotals `json:"total"`
	Cost  UsageCost   `json:"cost" doc:"What the counted calls cost: always \"unknown\" (not zero), since none of the runtimes' stored transcripts records a cost (Claude Code, Codex and Gemini as their pinned versions write them); a live turn's turn_completed has Claude Code's cost_usd."`
}
