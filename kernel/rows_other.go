//go:build !amd64 || purego

package kernel

// Never called: HasAVX512 is false outside amd64.
func maxZ(n int, x *float32) float32                                { panic("kernel: no AVX-512") }
func scaleZ(n int, x *float32, s float32)                           { panic("kernel: no AVX-512") }
func meanVarZ(n int, x *float32) (sum, sq float32)                  { panic("kernel: no AVX-512") }
func normZ(n int, y, xhat, x, gain, bias *float32, mu, inv float32) { panic("kernel: no AVX-512") }
