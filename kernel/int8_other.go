//go:build !amd64 || purego

package kernel

// Never called: hasVNNI and HasAVX2FMA are false outside amd64.
func gemmInt8VNNI(m int, u []int8, scale []float32, w *Int8Matrix, bias []float32, beta float32, relu bool, c []float32, ldc int, s *int8Scratch) {
	panic("kernel: no VNNI kernel")
}

// Never called, as gemmInt8VNNI.
func int8TileAVX2(kp int, q []int8, panel []int8, acc []int32) { panic("kernel: no AVX2 kernel") }

// quantizeRowAsm: only the generic quantisation outside amd64.
func quantizeRowAsm(q []int8, x []float32, flip int8) (float32, bool) { return 0, false }
