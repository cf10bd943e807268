package attachments

import (
	"bytes"
	"encoding/base64"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cdevd/cdevd/rpc"
	"github.com/cdevd/cdevd/runtimes"
)

// field is the param an error names, asserting it is -32602.
func field(t *testing.T, err error) string {
	t.Helper()
	var e *rpc.Error
	if !errors.As(err, &e) || e.Code != rpc.CodeInvalidParams {
		t.Fatalf("err %v, want -32602", err)
	}
	return e.Data.(map[string]any)["field"].(string)
}

func TestResolveInlineAndUploaded(t *testing.T) {
	s := openStore(t, Config{})
	img := pngBytes(t, 8, 8)
	up, err := s.Put(bytes.NewReader(img), true)
	if err != nil {
		t.Fatal(err)
	}
	csv := "a,b\n1,2\n"
	got, err := s.Resolve([]rpc.Attachment{
		{Kind: rpc.AttachImage, ID: up.ID},
		{Kind: rpc.AttachImage, Data: base64.StdEncoding.EncodeToString(jpegBytes(t)), MIMEType: "image/png"},
		{Kind: rpc.AttachFile, Data: base64.StdEncoding.EncodeToString([]byte(csv)), Name: "../../etc/passwd\n[x]"},
		{Kind: rpc.AttachFile, ID: up.ID, Name: "shot.png"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("got %d attachments", len(got))
	}
	if got[0].Path != up.Path || !bytes.Equal(got[0].Data, img) || got[0].MIMEType != "image/png" {
		t.Errorf("uploaded image: %+v", got[0])
	}
	// The type is the bytes', not the client's word.
	if got[1].MIMEType != "image/jpeg" || filepath.Ext(got[1].Path) != ".jpg" || len(got[1].Data) == 0 {
		t.Errorf("inline image: %+v", got[1])
	}
	// A name never reaches a path; it is cleaned for the prompt.
	if filepath.Dir(got[2].Path) != s.Dir() || strings.Contains(got[2].Path, "passwd") || got[2].Data != nil {
		t.Errorf("inline file: %+v", got[2])
	}
	if got[2].Name != "../../etc/passwdx" {
		t.Errorf("name %q, want it on one line without brackets", got[2].Name)
	}
	// A file is named to the agent with its path; images are not.
	text := runtimes.Turn{Prompt: "look", Attachments: got}.Text()
	want := "look\n\n[Attached files: \"../../etc/passwdx\" at " + got[2].Path + ", \"shot.png\" at " + up.Path + "]"
	if text != want {
		t.Errorf("Text() = %q, want %q", text, want)
	}
	if n := len(runtimes.Turn{Attachments: got}.Images()); n != 2 {
		t.Errorf("Images() has %d, want 2", n)
	}
}

func TestResolveRefusals(t *testing.T) {
	s := openStore(t, Config{MaxBytes: 4 << 10})
	txt, _ := s.Put(strings.NewReader("plain text"), false)
	png := base64.StdEncoding.EncodeToString(pngBytes(t, 4, 4))
	hundred := make([]rpc.Attachment, 100)
	for i := range hundred {
		hundred[i] = rpc.Attachment{Kind: rpc.AttachImage, Data: png}
	}
	for _, c := range []struct {
		name  string
		list  []rpc.Attachment
		field string
	}{
		{"100 attachments", hundred, "attachments"},
		{"unknown kind", []rpc.Attachment{{Kind: "audio", Data: png}}, "attachments[0].kind"},
		{"neither id nor data", []rpc.Attachment{{Kind: rpc.AttachImage}}, "attachments[0]"},
		{"both id and data", []rpc.Attachment{{Kind: rpc.AttachImage, ID: txt.ID, Data: png}}, "attachments[0]"},
		{"unknown upload", []rpc.Attachment{{Kind: rpc.AttachImage, ID: "att_" + strings.Repeat("a", 32)}}, "attachments[0].id"},
		{"an id with ../", []rpc.Attachment{{Kind: rpc.AttachImage, ID: "../" + txt.ID}}, "attachments[0].id"},
		{"not base64", []rpc.Attachment{{Kind: rpc.AttachImage, Data: "!!not base64!!"}}, "attachments[0].data"},
		{"text as an image", []rpc.Attachment{{Kind: rpc.AttachImage, Data: base64.StdEncoding.EncodeToString([]byte("hello"))}}, "attachments[0].data"},
		{"a file upload as an image", []rpc.Attachment{{Kind: rpc.AttachFile, Data: png}, {Kind: rpc.AttachImage, ID: txt.ID}}, "attachments[1].kind"},
		{"too large", []rpc.Attachment{{Kind: rpc.AttachFile, Data: base64.StdEncoding.EncodeToString(make([]byte, 5<<10))}}, "attachments[0].data"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.Resolve(c.list)
			if f := field(t, err); f != c.field {
				t.Fatalf("field %q (%v), want %q", f, err, c.field)
			}
		})
	}
}

func TestResolveCapsTheTurnsBytes(t *testing.T) {
	s := openStore(t, Config{MaxBytes: 30 << 20})
	big := append(pngBytes(t, 4, 4), make([]byte, 26<<20)...)
	up, err := s.Put(bytes.NewReader(big), true)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Resolve([]rpc.Attachment{{Kind: rpc.AttachImage, ID: up.ID}, {Kind: rpc.AttachImage, ID: up.ID}})
	if f := field(t, err); f != "attachments" {
		t.Fatalf("field %q, want attachments", f)
	}
}
