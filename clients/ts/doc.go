// Package ts is cdevd's TypeScript client (@cdevd/client); the Go side only
// regenerates its types and runs its checks in go test (ts_test.go).
package ts

//go:generate node gen.mjs
