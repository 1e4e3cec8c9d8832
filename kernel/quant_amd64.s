//go:build amd64 && !purego

#include "textflag.h"

// The int8 GEMM's per-row quantisation on the AVX-512 path, 16 floats at
// a time, the last n mod 16 under a mask.

// func absMaxBitsZ(n int, x *float32) uint32
//
// max over i < n of the bits of |x[i]|: as integers these order like the
// values, with +Inf at 0x7f800000 and every NaN above it, so one unsigned
// max finds the largest magnitude and any NaN.
TEXT ·absMaxBitsZ(SB), NOSPLIT, $0-20
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	VPXORD Z0, Z0, Z0
	MOVL $0x7fffffff, AX
	VPBROADCASTD AX, Z1
amloop:
	CMPQ CX, $16
	JL amtail
	VPANDD (SI), Z1, Z2
	VPMAXUD Z2, Z0, Z0
	ADDQ $64, SI
	SUBQ $16, CX
	JMP amloop
amtail:
	TESTQ CX, CX
	JE amreduce
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1
	VMOVDQU32.Z (SI), K1, Z2
	VPANDD Z2, Z1, Z2
	VPMAXUD Z2, Z0, Z0
amreduce:
	VEXTRACTI64X4 $1, Z0, Y2
	VPMAXUD Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X2
	VPMAXUD X2, X0, X0
	VPSHUFD $0x4e, X0, X2
	VPMAXUD X2, X0, X0
	VPSHUFD $0xb1, X0, X2
	VPMAXUD X2, X0, X0
	VMOVD X0, AX
	MOVL AX, ret+16(FP)
	VZEROUPPER
	RET

// func quantZ(n int, x *float32, inv float32, q *int8, flip uint32)
//
// q[i] = round(x[i]·inv) ^ flip's low byte for i < n: VCVTPS2DQ rounds
// to nearest even (the MXCSR default, as Go leaves it), VPMOVSDB narrows
// with saturation, then the XOR (0x80 turns q into VPDPBUSD's q + 128).
TEXT ·quantZ(SB), NOSPLIT, $0-36
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	VBROADCASTSS inv+16(FP), Z3
	MOVQ q+24(FP), DI
	MOVL flip+32(FP), AX
	VPBROADCASTD AX, X4
qloop:
	CMPQ CX, $16
	JL qtail
	VMULPS (SI), Z3, Z0
	VCVTPS2DQ Z0, Z0
	VPMOVSDB Z0, X0
	VPXOR X4, X0, X0
	VMOVDQU X0, (DI)
	ADDQ $64, SI
	ADDQ $16, DI
	SUBQ $16, CX
	JMP qloop
qtail:
	TESTQ CX, CX
	JE qdone
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1
	VMOVUPS.Z (SI), K1, Z0
	VMULPS Z3, Z0, Z0
	VCVTPS2DQ Z0, Z0
	VPMOVSDB Z0, X0
	VPXOR X4, X0, X0
	VMOVDQU8 X0, K1, (DI)
qdone:
	VZEROUPPER
	RET

// func absMaxBitsAVX2(n int, x *float32) uint32
//
// absMaxBitsZ on the AVX2 path for the first n = a multiple of 8 values.
TEXT ·absMaxBitsAVX2(SB), NOSPLIT, $0-20
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	VPXOR Y0, Y0, Y0
	VPCMPEQD Y1, Y1, Y1
	VPSRLD $1, Y1, Y1        // 0x7fffffff
	SHRQ $3, CX
	JZ am2reduce
am2loop:
	VPAND (SI), Y1, Y2
	VPMAXUD Y2, Y0, Y0
	ADDQ $32, SI
	DECQ CX
	JNZ am2loop
am2reduce:
	VEXTRACTI128 $1, Y0, X2
	VPMAXUD X2, X0, X0
	VPSHUFD $0x4e, X0, X2
	VPMAXUD X2, X0, X0
	VPSHUFD $0xb1, X0, X2
	VPMAXUD X2, X0, X0
	VMOVD X0, AX
	MOVL AX, ret+16(FP)
	VZEROUPPER
	RET

// func quantAVX2(n int, x *float32, inv float32, q *int8, flip uint32)
//
// quantZ on the AVX2 path for the first n = a multiple of 8 values: the
// int32s narrow with saturation through VPACKSSDW and VPACKSSWB.
TEXT ·quantAVX2(SB), NOSPLIT, $0-36
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	VBROADCASTSS inv+16(FP), Y3
	MOVQ q+24(FP), DI
	MOVL flip+32(FP), AX
	VMOVD AX, X4
	VPBROADCASTD X4, X4
	SHRQ $3, CX
	JZ q2done
q2loop:
	VMULPS (SI), Y3, Y0
	VCVTPS2DQ Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPACKSSDW X1, X0, X0
	VPACKSSWB X0, X0, X0
	VPXOR X4, X0, X0
	VMOVQ X0, (DI)
	ADDQ $32, SI
	ADDQ $8, DI
	DECQ CX
	JNZ q2loop
q2done:
	VZEROUPPER
	RET
