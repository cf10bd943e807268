package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	qrcode "github.com/skip2/go-qrcode"

	"github.com/cdevd/cdevd/auth"
	"github.com/cdevd/cdevd/daemon"
)

// ownerAPI calls the running cdevd's HTTP API with the owner's token, as
// `cdevd pair` and `cdevd devices` do: they change the daemon's state
// (pairings live in its memory, devices in its store), so they ask it
// rather than write its files behind its back.
type ownerAPI struct {
	base, token string
}

func newOwnerAPI(addr string) (*ownerAPI, error) {
	h, err := home()
	if err != nil {
		return nil, err
	}
	if err := daemon.PrepareHome(h); err != nil {
		return nil, err
	}
	tok, _, err := daemon.LoadToken(h, os.Getenv("CDEVD_TOKEN"))
	if err != nil {
		return nil, err
	}
	return &ownerAPI{base: "http://" + addr, token: tok}, nil
}

// call sends body (if any) as JSON and decodes the answer into out.
func (a *ownerAPI) call(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("cdevd is not reachable at %s (is `cdevd serve` running? --addr names where): %w", a.base, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(raw, &e) == nil && e.Error != "" {
			return fmt.Errorf("cdevd answered %d: %s", resp.StatusCode, e.Error)
		}
		return fmt.Errorf("cdevd answered %d: %s", resp.StatusCode, strings.TrimSpace(string(raw)))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(raw, out)
}

// pairAnswer is what `cdevd pair` uses of /api/pair/new's answer: the
// ticket, the address a phone can reach, and the QR code's payload (made
// by cdevd, as the console's is).
type pairAnswer struct {
	auth.Ticket
	auth.Addresses
	QRPayload string `json:"qr_payload"`
}

func pair(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pair", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", daemon.DefaultAddr, "the running cdevd's listen address")
	name := fs.String("name", "", "the new device's name (default: its app's name)")
	scope := fs.String("scope", "control", "control (may do everything) or watch (may read, not act)")
	asJSON := fs.Bool("json", false, "print the pairing as JSON (for scripts)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%q is not a flag: pair takes flags only", fs.Arg(0))
	}
	if _, err := auth.ParseScope(*scope); err != nil {
		return fmt.Errorf("--scope: %w", err)
	}
	api, err := newOwnerAPI(*addr)
	if err != nil {
		return err
	}
	var p pairAnswer
	if err := api.call("POST", "/api/pair/new", map[string]string{"name": *name, "scope": *scope}, &p); err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	q, err := qrcode.New(p.QRPayload, qrcode.Medium)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, q.ToSmallString(false))
	exp, _ := time.Parse(time.RFC3339, p.ExpiresAt)
	codeExp, _ := time.Parse(time.RFC3339, p.CodeExpiresAt)
	fmt.Fprintf(stdout, "\nScan the QR code with the app, or type this host and code:\n\n")
	fmt.Fprintf(stdout, "  code:    %s  (until %s)\n", p.Code, codeExp.Local().Format("15:04:05"))
	fmt.Fprintf(stdout, "  address: %s  (WebSocket %s)\n", p.HTTP, p.WS)
	fmt.Fprintf(stdout, "  device:  %s, scope %s; the QR code works once, until %s\n",
		nameOr(p.Name), p.Scope, exp.Local().Format("15:04:05"))
	if p.ApprovalRequired {
		fmt.Fprintf(stdout, "\nThe pairing then waits for you: `cdevd devices approve %s` (or reject).\n", p.RequestID)
	}
	return nil
}

func nameOr(n string) string {
	if n == "" {
		return "(named after its app)"
	}
	return n
}

const devicesUsage = `usage: cdevd devices [--addr host:port] <list | revoke ID | approve REQUEST | reject REQUEST>`

func devices(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("devices", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", daemon.DefaultAddr, "the running cdevd's listen address")
	asJSON := fs.Bool("json", false, "list as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		rest = []string{"list"}
	}
	api, err := newOwnerAPI(*addr)
	if err != nil {
		return err
	}
	switch {
	case rest[0] == "list" && len(rest) == 1:
		var l struct {
			Devices  []auth.Device  `json:"devices"`
			Requests []auth.Request `json:"requests"`
		}
		if err := api.call("GET", "/api/devices", nil, &l); err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(l)
		}
		printDevices(stdout, l.Devices, l.Requests)
		return nil
	case len(rest) == 2 && (rest[0] == "revoke" || rest[0] == "approve" || rest[0] == "reject"):
		if err := api.call("POST", "/api/devices/"+rest[0], map[string]string{"id": rest[1]}, nil); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %s\n", map[string]string{"revoke": "revoked", "approve": "approved", "reject": "rejected"}[rest[0]], rest[1])
		return nil
	}
	return fmt.Errorf("%s", devicesUsage)
}

func printDevices(w io.Writer, ds []auth.Device, rs []auth.Request) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSCOPE\tCREATED\tLAST SEEN\tFROM\tCLIENT")
	for _, d := range ds {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.ID, d.Name, d.Scope, d.Created.Local().Format(time.DateTime),
			d.LastSeen.Local().Format(time.DateTime), d.LastSeenAddr, d.Client)
	}
	tw.Flush()
	if len(ds) == 0 {
		fmt.Fprintln(w, "(no paired devices: `cdevd pair` pairs one)")
	}
	if len(rs) > 0 {
		fmt.Fprintln(w, "\nPairings in progress:")
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "REQUEST\tNAME\tSCOPE\tSTATUS\tFROM\tCLIENT\tEXPIRES")
		for _, r := range rs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Name, r.Scope, r.Status, r.Address, r.Client, r.ExpiresAt)
		}
		tw.Flush()
	}
}
