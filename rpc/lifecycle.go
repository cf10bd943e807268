package rpc

import "encoding/json"

// ProtocolVersion is the wire protocol version cdevd speaks.
const ProtocolVersion = "1.0"

// RegistrySchemaVersion is the runtimeRegistry contract version.
const RegistrySchemaVersion = "1.0"

// ClientInfo names a client.
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// ClientCapabilities are what a client declares at initialize.
type ClientCapabilities struct {
	OptOutNotificationMethods []string `json:"optOutNotificationMethods,omitempty" doc:"Notification methods (e.g. event/message_delta) this client does not want."`
}

// InitializeParams opens a session of the protocol on a connection. Both
// spellings of client info are accepted because existing clients send either.
type InitializeParams struct {
	ProtocolVersion string              `json:"protocolVersion,omitempty"`
	ClientInfo      *ClientInfo         `json:"clientInfo,omitempty"`
	ClientInfoSnake *ClientInfo         `json:"client_info,omitempty" doc:"Alias of clientInfo."`
	Capabilities    *ClientCapabilities `json:"capabilities,omitempty"`
}

// ServerInfo names the server.
type ServerInfo struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	ID       string `json:"id" doc:"This cdevd's own id: made once and kept in its state directory, the same across restarts and addresses; a client tells machines apart by it."`
	Hostname string `json:"hostname" doc:"The name of the machine cdevd runs on, for people to recognise it (not unique; use id)."`
}

// DeviceInfo is the device a connection authenticated as.
type DeviceInfo struct {
	ID    string `json:"id" doc:"\"owner\" for the static token, else the paired device's id."`
	Name  string `json:"name"`
	Scope string `json:"scope" enum:"control,watch" doc:"control may call every method; watch may read but not act (-32003)."`
}

// InitializeResult is the answer to initialize.
type InitializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	ServerInfo      ServerInfo         `json:"serverInfo"`
	ServerInfoSnake ServerInfo         `json:"server_info" doc:"Same as serverInfo; read by the iOS client."`
	ClientID        string             `json:"clientId" doc:"This connection's id, after its device's id (device:connection); permission_resolved's resolved_by names it."`
	Device          DeviceInfo         `json:"device" doc:"Who this connection belongs to: the owner (the static token) or a paired device."`
	Epoch           string             `json:"epoch" doc:"A new id per server start; event seqs are meaningful within one epoch."`
	Capabilities    ServerCapabilities `json:"capabilities"`
}

// ServerCapabilities lists the runtimes and how to route to them, and the
// workspace features this server has.
type ServerCapabilities struct {
	SupportedAgents []string        `json:"supportedAgents" doc:"Equal to the ids of runtimeRegistry.runtimes."`
	RuntimeRegistry RuntimeRegistry `json:"runtimeRegistry"`
	Features        []string        `json:"features" doc:"The workspace features this server has (files, search, presence, git…): each one's methods are all answered."`
}

// RuntimeRegistry is the runtime capability registry contract.
type RuntimeRegistry struct {
	SchemaVersion  string    `json:"schemaVersion"`
	GeneratedAt    string    `json:"generatedAt" doc:"RFC 3339 time the registry was built." format:"date-time"`
	DefaultRuntime string    `json:"defaultRuntime"`
	Routing        Routing   `json:"routing"`
	Runtimes       []Runtime `json:"runtimes"`
}

// Routing says which param selects a runtime and where it is required.
type Routing struct {
	AgentTypeField    string   `json:"agentTypeField"`
	DefaultAgentType  string   `json:"defaultAgentType"`
	RequiredOnMethods []string `json:"requiredOnMethods"`
}

// RuntimeStatus says whether a runtime can be used.
type RuntimeStatus string

// Runtime statuses.
const (
	RuntimeActive     RuntimeStatus = "active"
	RuntimePreview    RuntimeStatus = "preview"
	RuntimeDeprecated RuntimeStatus = "deprecated"
	RuntimeDisabled   RuntimeStatus = "disabled"
)

// Enum lists the values of RuntimeStatus.
func (RuntimeStatus) Enum() []string {
	return []string{string(RuntimeActive), string(RuntimePreview), string(RuntimeDeprecated), string(RuntimeDisabled)}
}

// ListSource says where a runtime's session list comes from.
type ListSource string

// Session list sources.
const (
	ListWorkspaceHistory ListSource = "workspaceHistory"
	ListRuntimeScoped    ListSource = "runtimeScoped"
)

// Enum lists the values of ListSource.
func (ListSource) Enum() []string {
	return []string{string(ListWorkspaceHistory), string(ListRuntimeScoped)}
}

// ScopeSource says whether messages and watch are scoped by workspace.
type ScopeSource string

// Message and watch sources.
const (
	ScopeWorkspace ScopeSource = "workspaceScoped"
	ScopeRuntime   ScopeSource = "runtimeScoped"
)

// Enum lists the values of ScopeSource.
func (ScopeSource) Enum() []string { return []string{string(ScopeWorkspace), string(ScopeRuntime)} }

// Runtime is one runtime's capability record.
type Runtime struct {
	ID                                    string           `json:"id"`
	DisplayName                           string           `json:"displayName"`
	Status                                RuntimeStatus    `json:"status"`
	SessionListSource                     ListSource       `json:"sessionListSource"`
	SessionMessagesSource                 ScopeSource      `json:"sessionMessagesSource"`
	SessionWatchSource                    ScopeSource      `json:"sessionWatchSource"`
	RequiresWorkspaceActivationOnResume   bool             `json:"requiresWorkspaceActivationOnResume"`
	RequiresSessionResolutionOnNewSession bool             `json:"requiresSessionResolutionOnNewSession"`
	SupportsResume                        bool             `json:"supportsResume"`
	SupportsInteractiveQuestions          bool             `json:"supportsInteractiveQuestions"`
	SupportsPermissions                   bool             `json:"supportsPermissions"`
	SupportsSteering                      bool             `json:"supportsSteering" doc:"session/steer sends input into the running turn; otherwise it is refused with -32602 (session/send queues instead)."`
	SupportsHistory                       bool             `json:"supportsHistory" doc:"history, messages and watch of stored sessions work for this runtime. False when cdevd cannot read the runtime's stored sessions (a declared ACP agent): those methods then fail with a runtime error."`
	PermissionModes                       []PermissionMode `json:"permissionModes" doc:"The permission_mode values this runtime accepts; any other is refused with -32602."`
	SupportsConfigure                     bool             `json:"supportsConfigure" doc:"session/configure changes a running session's model, effort and permission mode from its next turn on."`
	Models                                []RuntimeModel   `json:"models,omitempty" doc:"The models the runtime's CLI offers, as it lists them, refreshed with detection; absent when it could not say (then any model is passed on to it)."`
	DefaultModel                          string           `json:"defaultModel,omitempty" doc:"The model a session gets when it asks for none."`
	DefaultEffort                         string           `json:"defaultEffort,omitempty" doc:"The effort a session gets when it asks for none."`
	Commands                              []SlashCommand   `json:"commands,omitempty" doc:"The slash commands the CLI offers everywhere; a prompt \"/name args\" runs one."`
	CommandsPerSession                    bool             `json:"commandsPerSession,omitempty" doc:"A session may have more commands than these (the workspace's own)."`
	Attachments                           []AttachmentKind `json:"attachments" doc:"The attachment kinds session/send and session/start accept for this runtime; any other is refused with -32602."`
	Methods                               RuntimeMethods   `json:"methods"`
	Availability                          Availability     `json:"availability"`
}

// RuntimeMethods maps a runtime's operations to RPC methods.
type RuntimeMethods struct {
	History  string `json:"history"`
	Messages string `json:"messages"`
	Watch    string `json:"watch"`
	Unwatch  string `json:"unwatch"`
	Start    string `json:"start"`
	Send     string `json:"send"`
	Stop     string `json:"stop"`
	Input    string `json:"input"`
	Respond  string `json:"respond"`
	State    string `json:"state,omitempty"`
	// Configure is session/configure where the runtime supports it.
	Configure string `json:"configure,omitempty"`
}

// Availability is what detecting a runtime's CLI on this machine found.
type Availability struct {
	Installed bool       `json:"installed"`
	Version   string     `json:"version,omitempty"`
	Reason    string     `json:"reason,omitempty" doc:"Why the runtime is not usable, and how to fix it, when it is not."`
	Login     LoginState `json:"login,omitempty" doc:"Whether the CLI can answer (logged in, or an API key or provider configured), as its own status command or credential files say, found without a model request. loggedOut comes with status disabled and a reason; unknown does not disable the runtime. Absent when not checked (the CLI was not found)."`
}

// LoginState says whether a runtime's CLI can answer.
type LoginState string

// Login states.
const (
	LoggedIn     LoginState = "loggedIn"
	LoggedOut    LoginState = "loggedOut"
	LoginUnknown LoginState = "unknown"
)

// Enum lists the values of LoginState.
func (LoginState) Enum() []string {
	return []string{string(LoggedIn), string(LoggedOut), string(LoginUnknown)}
}

// InitializedParams is the (ignored) initialized notification.
type InitializedParams struct{}

// DiscoverParams takes nothing.
type DiscoverParams struct{}

// DiscoverResult is the OpenRPC document rpc.discover returns, typed to its
// first level (the OpenRPC meta-schema describes the rest).
type DiscoverResult struct {
	OpenRPC    string          `json:"openrpc" doc:"The OpenRPC version of the document (https://spec.open-rpc.org)."`
	Info       DocumentInfo    `json:"info"`
	Servers    json.RawMessage `json:"servers,omitempty" schema:"array"`
	Methods    json.RawMessage `json:"methods" schema:"array"`
	Components json.RawMessage `json:"components,omitempty" schema:"object"`
}

// DocumentInfo is the info object of the OpenRPC document.
type DocumentInfo struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version" doc:"The protocol version (initialize's protocolVersion)."`
}
