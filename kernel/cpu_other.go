//go:build !amd64 || purego

package kernel

// detect: without the amd64 kernels only the generic path exists.
func detect() features { return features{} }
