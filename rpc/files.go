package rpc

// The Explorer: a workspace's files and directories, one file's content,
// and a fuzzy search over the workspace's paths. Paths in params and
// results are relative to the workspace, with "/" between names.

// FilesListParams lists one directory of a workspace.
type FilesListParams struct {
	WorkspaceID string `json:"workspace_id"`
	Directory   string `json:"directory,omitempty" doc:"Relative to the workspace; omitted or empty for its root."`
	Limit       int    `json:"limit,omitempty" minimum:"0" maximum:"2000" doc:"Entries per page, directories first (default and 0: 500)."`
	Offset      int    `json:"offset,omitempty" minimum:"0"`
}

// FileEntry is one file (or symlink) in a listing.
type FileEntry struct {
	Path        string `json:"path" doc:"Relative to the workspace."`
	Name        string `json:"name"`
	Directory   string `json:"directory" doc:"The directory holding it, relative to the workspace (\"\" at the root)."`
	Extension   string `json:"extension,omitempty" doc:"Without the dot, lower case."`
	SizeBytes   int64  `json:"size_bytes"`
	ModifiedAt  string `json:"modified_at,omitempty" format:"date-time"`
	IsBinary    bool   `json:"is_binary" doc:"From the first 8 KiB: a NUL byte or invalid UTF-8."`
	IsSensitive bool   `json:"is_sensitive" doc:"A file that commonly holds secrets (.env, private keys, *.pem, credentials)."`
	GitTracked  *bool  `json:"git_tracked,omitempty" doc:"In a git work tree only: git tracks it."`
	GitIgnored  *bool  `json:"git_ignored,omitempty" doc:"In a git work tree only: git ignores it."`
	IsSymlink   bool   `json:"is_symlink"`
}

// DirEntry is one directory in a listing.
type DirEntry struct {
	Path         string `json:"path" doc:"Relative to the workspace."`
	Name         string `json:"name"`
	FolderCount  int    `json:"folder_count" doc:"Directories directly inside."`
	FileCount    int    `json:"file_count" doc:"Files directly inside."`
	LastModified string `json:"last_modified,omitempty" format:"date-time"`
}

// Pagination is where a page lies in a listing.
type Pagination struct {
	Limit   int  `json:"limit"`
	Offset  int  `json:"offset"`
	HasMore bool `json:"has_more"`
}

// FilesListResult is one page of a directory: its directories, then its
// files, each sorted by name. The .git directory is never listed.
type FilesListResult struct {
	Directory        string      `json:"directory"`
	Files            []FileEntry `json:"files"`
	Directories      []DirEntry  `json:"directories"`
	TotalFiles       int         `json:"total_files"`
	TotalDirectories int         `json:"total_directories"`
	Pagination       Pagination  `json:"pagination"`
}

// FileGetParams reads one file of a workspace.
type FileGetParams struct {
	WorkspaceID string `json:"workspace_id"`
	Path        string `json:"path" doc:"Relative to the workspace."`
}

// FileEncoding is how FileGetResult.Content is encoded.
type FileEncoding string

// File encodings.
const (
	EncodingUTF8   FileEncoding = "utf-8"
	EncodingBase64 FileEncoding = "base64"
)

// Enum lists the values of FileEncoding.
func (FileEncoding) Enum() []string { return []string{"utf-8", "base64"} }

// FileGetResult is a file's content, up to the cap (1 MiB).
type FileGetResult struct {
	Path        string       `json:"path"`
	Content     string       `json:"content"`
	Encoding    FileEncoding `json:"encoding" doc:"base64 for binary content."`
	Size        int64        `json:"size" doc:"The whole file's size in bytes."`
	Truncated   bool         `json:"truncated" doc:"Content holds only the first 1 MiB (cut at a character boundary for text)."`
	IsBinary    bool         `json:"is_binary"`
	IsSensitive bool         `json:"is_sensitive"`
}

// SearchParams searches the paths of a workspace.
type SearchParams struct {
	Query           string `json:"query"`
	Mode            string `json:"mode,omitempty" doc:"fuzzy (the default and the only mode)."`
	Limit           int    `json:"limit,omitempty" minimum:"0" maximum:"500" doc:"Default and 0: 50."`
	ExcludeBinaries bool   `json:"exclude_binaries,omitempty"`
	WorkspaceID     string `json:"workspace_id,omitempty" doc:"Omitted (as the iOS app does): the workspace this connection last subscribed to or activated a session in."`
}

// SearchHit is one path that matches.
type SearchHit struct {
	Path       string  `json:"path" doc:"Relative to the workspace."`
	Name       string  `json:"name"`
	Directory  string  `json:"directory"`
	Extension  string  `json:"extension,omitempty"`
	SizeBytes  int64   `json:"size_bytes"`
	ModifiedAt string  `json:"modified_at,omitempty" format:"date-time"`
	IsBinary   bool    `json:"is_binary"`
	MatchScore float64 `json:"match_score" doc:"Higher is better; comparable within one answer only."`
}

// SearchResult is the best matches, best first.
type SearchResult struct {
	Query       string      `json:"query"`
	Mode        string      `json:"mode"`
	WorkspaceID string      `json:"workspace_id"`
	Results     []SearchHit `json:"results"`
	Total       int         `json:"total" doc:"Every path that matches (results holds at most limit of them)."`
	ElapsedMS   float64     `json:"elapsed_ms"`
	HasMore     bool        `json:"has_more"`
}
