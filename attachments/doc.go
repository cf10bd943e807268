// Package attachments keeps the images and files clients send with their
// prompts: the iOS app's upload (POST /api/images, http.go) and the
// attachments of session/send and session/start (resolve.go). Each is
// stored once, privately, under $CDEVD_HOME/attachments (folder 0700, file
// 0600, written whole then renamed), where the agent, which runs as the
// same user, can read it; a sweeper removes it when it expires.
//
// Nothing a client says reaches a path or a type: an item's file name is
// an id cdevd draws, its type is sniffed from its bytes, and an image that
// is not PNG, JPEG, GIF or WebP is refused.
package attachments
