// Package lineindex is the history store's index of a JSON Lines file: the
// places of the lines a format keeps and the facts it gathers besides,
// extended from the old end when the file grows (a big file scanned in
// parts on every core), cached within a memory budget, and persisted so that
// a restarted daemon does not scan a big file again. The store
// (runtimes/history) owns it; a format embeds Index in its own index type.
package lineindex
