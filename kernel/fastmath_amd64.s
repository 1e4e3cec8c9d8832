//go:build amd64 && !purego

#include "textflag.h"

// Element-wise exponential and GELU over n floats, n a multiple of 8, with
// the constants as 8-wide rows of c (see fastmath_amd64.go for the rows):
// the polynomials of nn's scalar exp32 and gelu32, one FMA per term. The
// clamps put x second in VMAXPS/VMINPS, which then return x when it is
// NaN, so a NaN comes out as NaN, as the scalar code gives it.

// func expAVX(n int, dst, src *float32, scale, m float32, c *[expRows][8]float32) float32
// dst[i] = exp(scale·(src[i] − m)); returns Σ dst[i].
TEXT ·expAVX(SB), NOSPLIT, $0-44
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	VBROADCASTSS scale+24(FP), Y11
	VBROADCASTSS m+28(FP), Y12
	MOVQ c+32(FP), BX
	VXORPS Y4, Y4, Y4
	VMOVUPS 0(BX), Y13  // -87
	VMOVUPS 32(BX), Y14 // 88
	SHRQ $3, CX
	JZ expsum
exploop:
	VMOVUPS (SI), Y0
	VSUBPS Y12, Y0, Y0       // x − m
	VMULPS Y11, Y0, Y0       // scale·(x − m)
	VMAXPS Y0, Y13, Y0
	VMINPS Y0, Y14, Y0
	VMOVUPS 96(BX), Y1       // 0.5
	VFMADD231PS 64(BX), Y0, Y1 // x·log2(e) + 0.5
	VROUNDPS $1, Y1, Y1      // n = floor(·)
	VFNMADD231PS 128(BX), Y1, Y0 // r = x − n·C1
	VFNMADD231PS 160(BX), Y1, Y0 // r −= n·C2
	VMOVUPS 192(BX), Y2      // p = c0
	VFMADD213PS 224(BX), Y0, Y2 // p = p·r + c1
	VFMADD213PS 256(BX), Y0, Y2
	VFMADD213PS 288(BX), Y0, Y2
	VFMADD213PS 320(BX), Y0, Y2
	VFMADD213PS 352(BX), Y0, Y2 // … + c5
	VMULPS Y0, Y0, Y3        // r²
	VFMADD213PS Y0, Y3, Y2   // p·r² + r
	VADDPS 384(BX), Y2, Y2   // + 1
	VCVTTPS2DQ Y1, Y1
	VPADDD 416(BX), Y1, Y1   // n + 127
	VPSLLD $23, Y1, Y1       // 2^n
	VMULPS Y1, Y2, Y2
	VMOVUPS Y2, (DI)
	VADDPS Y2, Y4, Y4
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ exploop
expsum:
	VEXTRACTF128 $1, Y4, X5
	VADDPS X5, X4, X4
	VHADDPS X4, X4, X4
	VHADDPS X4, X4, X4
	VZEROUPPER
	MOVSS X4, ret+40(FP)
	RET

// func geluAVX(n int, dst, src *float32, c *[geluRows][8]float32)
// dst[i] = GELU(src[i]) = v/2·(1 + erf(v/√2)), erf by a rational function.
TEXT ·geluAVX(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	MOVQ c+24(FP), BX
	VMOVUPS 32(BX), Y13 // -4
	VMOVUPS 64(BX), Y14 // 4
	SHRQ $3, CX
	JZ geluend
geluloop:
	VMOVUPS (SI), Y0         // v
	VMULPS 0(BX), Y0, Y1     // x = v/√2
	VMAXPS Y1, Y13, Y1
	VMINPS Y1, Y14, Y1
	VMULPS Y1, Y1, Y2        // x²
	VMOVUPS 96(BX), Y3       // p = p0
	VFMADD213PS 128(BX), Y2, Y3 // p = p·x² + p1
	VFMADD213PS 160(BX), Y2, Y3
	VFMADD213PS 192(BX), Y2, Y3
	VFMADD213PS 224(BX), Y2, Y3
	VFMADD213PS 256(BX), Y2, Y3
	VFMADD213PS 288(BX), Y2, Y3 // … + p6
	VMOVUPS 320(BX), Y4      // q = q0
	VFMADD213PS 352(BX), Y2, Y4 // q = q·x² + q1
	VFMADD213PS 384(BX), Y2, Y4
	VFMADD213PS 416(BX), Y2, Y4
	VFMADD213PS 448(BX), Y2, Y4 // … + q4
	VMULPS Y1, Y3, Y3        // p·x
	VDIVPS Y4, Y3, Y3        // erf(x) = p·x/q
	VADDPS 480(BX), Y3, Y3   // 1 + erf
	VMULPS Y0, Y3, Y3        // · v
	VMULPS 512(BX), Y3, Y3   // · 1/2
	VMOVUPS Y3, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ geluloop
geluend:
	VZEROUPPER
	RET
