//go:build !unix

package rollout

func cpuNow() int64 { return 0 }
