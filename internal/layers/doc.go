// Package layers holds no code, only the test that keeps the house as
// docs/architecture.md draws it: every package in a layer, and no import
// from a lower layer back up to a higher one.
package layers
