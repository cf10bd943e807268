// Package console is cdevd's web console: a small page served at / on
// cdevd's own port that drives every runtime over the same WebSocket API as
// any other client.
//
// The assets are embedded (go:embed), so `go build` alone gives a working
// console. dist/ is what is served: index.html, style.css, favicon.svg and
// sw.js (the service worker that shows pushed notifications) are written by
// hand there; dist/app.js is the page's modules (web/*.ts, entry web/app.ts)
// bundled by esbuild with the TypeScript client package they import
// (clients/ts, the protocol, no DOM) and the pinned marked, DOMPurify and
// highlight.js, after tsc --strict has checked them (`go generate
// ./console`, tools pinned in package.json). It is committed and checked by
// TestDistIsFresh, its size by TestBundleBudget.
//
// The page takes the token from the URL's fragment (#token=…, which
// browsers never send), keeps it in sessionStorage and removes it from the
// address bar. Every response carries a strict Content-Security-Policy: no
// inline script or style, nothing from another origin, no framing.
package console

//go:generate ../node_modules/.bin/tsc -p web
//go:generate ../node_modules/.bin/esbuild web/app.ts --bundle --format=esm --target=es2022 --charset=utf8 --log-level=warning --outfile=dist/app.js
