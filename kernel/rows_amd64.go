//go:build amd64 && !purego

package kernel

//go:noescape
func maxZ(n int, x *float32) float32

//go:noescape
func scaleZ(n int, x *float32, s float32)

//go:noescape
func meanVarZ(n int, x *float32) (sum, sq float32)

//go:noescape
func normZ(n int, y, xhat, x, gain, bias *float32, mu, inv float32)
