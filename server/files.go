package server

import (
	"context"
	"strconv"

	"github.com/cdevd/cdevd/internal/jsonstr"
	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/transport"
	"github.com/cdevd/cdevd/workspaces/files"
)

// The Explorer family: a workspace's files, one file, and search.

func (s *Server) fileMethods() family {
	return family{
		rpc.MethodFilesList: read(withClient(s.filesList)),
		rpc.MethodFileGet:   read(withClient(s.fileGet)),
		rpc.MethodSearch:    read(withClient(s.repositorySearch)),
	}
}

func (s *Server) filesList(ctx context.Context, _ *client, p rpc.FilesListParams) (rpc.FilesListResult, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return rpc.FilesListResult{}, err
	}
	w, err := s.ws.Get(p.WorkspaceID)
	if err != nil {
		return rpc.FilesListResult{}, err
	}
	// git_tracked and git_ignored come from the search index (git ls-files,
	// kept fresh), so that a listing runs no git of its own.
	git, err := s.search.GitState(ctx, w)
	if err != nil {
		s.log.Debug("files/list without git flags")
		git = nil
	}
	return files.List(w, p, git)
}

func (s *Server) fileGet(_ context.Context, c *client, p rpc.FileGetParams) (transport.Encoded, error) {
	if err := required("workspace_id", p.WorkspaceID); err != nil {
		return nil, err
	}
	if err := required("path", p.Path); err != nil {
		return nil, err
	}
	w, err := s.ws.Get(p.WorkspaceID)
	if err != nil {
		return nil, err
	}
	res, err := files.Read(w, p.Path)
	// The name asked for and the file it resolved to: a symlink must not
	// launder a .env.
	if (err == nil && res.IsSensitive || files.Sensitive(p.Path)) && !s.maySeeSensitive(c) {
		return nil, rpc.InvalidPath(p.Path, "holds secrets, which this device may not read")
	}
	if err != nil {
		return nil, err
	}
	return encodeFileGet(res), nil
}

// encodeFileGet is encoding/json's encoding of res, written directly: the
// answer is mostly one string of up to 1 MiB (more in base64), and
// encoding/json's growing buffers and copies of it were most of a 1 MB
// file's round trip (TestEncodeFileGetIsEncodingJSON holds the two equal).
func encodeFileGet(res rpc.FileGetResult) transport.Encoded {
	b := make([]byte, 0, len(res.Content)+len(res.Content)/16+len(res.Path)+160)
	b = append(b, `{"path":`...)
	b = jsonstr.Append(b, res.Path)
	b = append(b, `,"content":`...)
	b = jsonstr.Append(b, res.Content)
	b = append(b, `,"encoding":`...)
	b = jsonstr.Append(b, string(res.Encoding))
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, res.Size, 10)
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, res.Truncated)
	b = append(b, `,"is_binary":`...)
	b = strconv.AppendBool(b, res.IsBinary)
	b = append(b, `,"is_sensitive":`...)
	b = strconv.AppendBool(b, res.IsSensitive)
	return append(b, '}')
}

// maySeeSensitive says who may read files that commonly hold secrets
// (.env, private keys): a device allowed to act, which can run an agent
// that reads them anyway; never a watch device, which is meant to look at
// the work, not at the machine's credentials.
func (s *Server) maySeeSensitive(c *client) bool { return c.conn.Principal().CanAct() }

func (s *Server) repositorySearch(ctx context.Context, c *client, p rpc.SearchParams) (rpc.SearchResult, error) {
	id := p.WorkspaceID
	if id == "" {
		id = c.lastWorkspace()
	}
	if id == "" {
		return rpc.SearchResult{}, rpc.InvalidParams("workspace_id",
			"no workspace: subscribe to one (workspace/subscribe) or activate a session in one first, or name it")
	}
	w, err := s.ws.Get(id)
	if err != nil {
		return rpc.SearchResult{}, err
	}
	return s.search.Search(ctx, w, p)
}
