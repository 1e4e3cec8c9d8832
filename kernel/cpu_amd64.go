//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// detect reads the CPU's features; golang.org/x/sys/cpu also checks that
// the OS saves the YMM and ZMM state (XGETBV), without which the wide
// registers are unusable.
func detect() features {
	x := cpu.X86
	f := features{AVX2FMA: x.HasAVX2 && x.HasFMA}
	f.AVX512 = f.AVX2FMA && x.HasAVX512F && x.HasAVX512BW && x.HasAVX512DQ && x.HasAVX512VL
	f.VNNI = f.AVX512 && x.HasAVX512VNNI
	return f
}
