// Package console is cdevd's web console: a small page served at / on
// cdevd's own port that drives every runtime over the same WebSocket API as
// any other client.
//
// The assets are embedded (go:embed), so `go build` alone gives a working
// console. dist/ is what is served: index.html and style.css are written by
// hand there; dist/*.js are compiled from web/*.ts by the TypeScript
// compiler pinned in package.json (`go generate ./console`), committed, and
// checked by TestDistIsFresh. web/client.ts is the protocol client (no DOM),
// written so that it can become the TypeScript client package; web/app.ts
// is the page.
//
// The page takes the token from the URL's fragment (#token=…, which
// browsers never send), keeps it in sessionStorage and removes it from the
// address bar. Every response carries a strict Content-Security-Policy: no
// inline script or style, nothing from another origin, no framing.
package console

//go:generate ../node_modules/.bin/tsc -p web
