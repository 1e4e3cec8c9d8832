//go:build amd64 && !purego

#include "textflag.h"

// The int8 GEMM's tiles (see int8.go for the arithmetic): int32 sums of
// rows of quantised activations (stride lda bytes) times a packed panel
// of 32 outputs, k/4 groups of 32×4 bytes. The VNNI tile scales them into
// C itself; the AVX2 tile writes them to out (32 int32 a row) for Go to
// scale. Neither saturates.

// ZERO16 zeroes the sixteen accumulators Z0 to Z15.
#define ZERO16 \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z6, Z6, Z6; \
	VPXORD Z7, Z7, Z7; \
	VPXORD Z8, Z8, Z8; \
	VPXORD Z9, Z9, Z9; \
	VPXORD Z10, Z10, Z10; \
	VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; \
	VPXORD Z13, Z13, Z13; \
	VPXORD Z14, Z14, Z14; \
	VPXORD Z15, Z15, Z15

// func int8VNNI8x32(kg int, u *uint8, lda int, panel *int8, c *float32, ldc int, rowScale, colScale *float32, corr *int32, bias *float32, rows int, mask uint32, beta float32, relu uint32)
//
// Up to eight rows of u = q + 128 (unsigned) by the panel, straight into
// C: per group of four inputs, two 64-byte loads of the panel (16
// outputs × 4 inputs each), and for each row one VPBROADCASTD of its four
// bytes and two VPDPBUSD, each 64 multiply-adds into 16 int32
// accumulators. Then, per row, C = float(acc − corr)·colScale·rowScale
// + bias (+ beta·C when beta ≠ 0), then max(0, ·) when relu ≠ 0, stored
// under the column mask, for the first rows rows (the rest are padding);
// bias holds 32 values (zeros for none), so neither the bias nor a
// following ReLU costs a pass of its own over C.
TEXT ·int8VNNI8x32(SB), NOSPLIT, $0-100
	MOVQ kg+0(FP), CX
	MOVQ u+8(FP), SI
	MOVQ lda+16(FP), R8
	MOVQ panel+24(FP), BX
	LEAQ (SI)(R8*2), R9
	ADDQ R8, R9
	LEAQ (R9)(R8*2), R12
	ADDQ R8, R12
	ZERO16
	TESTQ CX, CX
	JE vnnistore
vnniloop:
	VMOVDQU32 (BX), Z16
	VMOVDQU32 64(BX), Z17
	VPBROADCASTD (SI), Z18
	VPDPBUSD Z16, Z18, Z0
	VPDPBUSD Z17, Z18, Z1
	VPBROADCASTD (SI)(R8*1), Z19
	VPDPBUSD Z16, Z19, Z2
	VPDPBUSD Z17, Z19, Z3
	VPBROADCASTD (SI)(R8*2), Z20
	VPDPBUSD Z16, Z20, Z4
	VPDPBUSD Z17, Z20, Z5
	VPBROADCASTD (R9), Z21
	VPDPBUSD Z16, Z21, Z6
	VPDPBUSD Z17, Z21, Z7
	VPBROADCASTD (R9)(R8*1), Z22
	VPDPBUSD Z16, Z22, Z8
	VPDPBUSD Z17, Z22, Z9
	VPBROADCASTD (R9)(R8*2), Z23
	VPDPBUSD Z16, Z23, Z10
	VPDPBUSD Z17, Z23, Z11
	VPBROADCASTD (R12), Z24
	VPDPBUSD Z16, Z24, Z12
	VPDPBUSD Z17, Z24, Z13
	VPBROADCASTD (R12)(R8*1), Z25
	VPDPBUSD Z16, Z25, Z14
	VPDPBUSD Z17, Z25, Z15
	ADDQ $4, SI
	ADDQ $4, R9
	ADDQ $4, R12
	ADDQ $128, BX
	DECQ CX
	JNE vnniloop
vnnistore:
	MOVQ c+32(FP), DI
	MOVQ ldc+40(FP), R11
	SHLQ $2, R11
	MOVQ rowScale+48(FP), DX
	MOVQ colScale+56(FP), R10
	MOVQ corr+64(FP), R13
	MOVQ bias+72(FP), R14
	MOVQ rows+80(FP), CX
	MOVL mask+88(FP), AX
	KMOVW AX, K1
	SHRL $16, AX
	KMOVW AX, K2
	VMOVDQU32 (R13), Z16
	VMOVDQU32 64(R13), Z17
	VMOVUPS (R10), Z18
	VMOVUPS 64(R10), Z19
	VMOVUPS (R14), Z22
	VMOVUPS 64(R14), Z23
	VBROADCASTSS beta+92(FP), Z21
	MOVL beta+92(FP), AX
	SHLL $1, AX              // zero for beta = ±0
	MOVL relu+96(FP), R9
	VPXORD Z24, Z24, Z24
	VBROADCASTSS 0(DX), Z20
	VPSUBD Z16, Z0, Z0
	VCVTDQ2PS Z0, Z0
	VMULPS Z18, Z0, Z0
	VMULPS Z20, Z0, Z0
	VADDPS Z22, Z0, Z0
	VPSUBD Z17, Z1, Z1
	VCVTDQ2PS Z1, Z1
	VMULPS Z19, Z1, Z1
	VMULPS Z20, Z1, Z1
	VADDPS Z23, Z1, Z1
	TESTL AX, AX
	JE vnninobeta0
	VFMADD231PS (DI), Z21, K1, Z0
	VFMADD231PS 64(DI), Z21, K2, Z1
vnninobeta0:
	TESTL R9, R9
	JE vnninorelu0
	VMAXPS Z0, Z24, Z0       // max(0, x), NaN kept
	VMAXPS Z1, Z24, Z1
vnninorelu0:
	VMOVUPS Z0, K1, (DI)
	VMOVUPS Z1, K2, 64(DI)
	DECQ CX
	JE vnnidone
	ADDQ R11, DI
	VBROADCASTSS 4(DX), Z20
	VPSUBD Z16, Z2, Z2
	VCVTDQ2PS Z2, Z2
	VMULPS Z18, Z2, Z2
	VMULPS Z20, Z2, Z2
	VADDPS Z22, Z2, Z2
	VPSUBD Z17, Z3, Z3
	VCVTDQ2PS Z3, Z3
	VMULPS Z19, Z3, Z3
	VMULPS Z20, Z3, Z3
	VADDPS Z23, Z3, Z3
	TESTL AX, AX
	JE vnninobeta1
	VFMADD231PS (DI), Z21, K1, Z2
	VFMADD231PS 64(DI), Z21, K2, Z3
vnninobeta1:
	TESTL R9, R9
	JE vnninorelu1
	VMAXPS Z2, Z24, Z2       // max(0, x), NaN kept
	VMAXPS Z3, Z24, Z3
vnninorelu1:
	VMOVUPS Z2, K1, (DI)
	VMOVUPS Z3, K2, 64(DI)
	DECQ CX
	JE vnnidone
	ADDQ R11, DI
	VBROADCASTSS 8(DX), Z20
	VPSUBD Z16, Z4, Z4
	VCVTDQ2PS Z4, Z4
	VMULPS Z18, Z4, Z4
	VMULPS Z20, Z4, Z4
	VADDPS Z22, Z4, Z4
	VPSUBD Z17, Z5, Z5
	VCVTDQ2PS Z5, Z5
	VMULPS Z19, Z5, Z5
	VMULPS Z20, Z5, Z5
	VADDPS Z23, Z5, Z5
	TESTL AX, AX
	JE vnninobeta2
	VFMADD231PS (DI), Z21, K1, Z4
	VFMADD231PS 64(DI), Z21, K2, Z5
vnninobeta2:
	TESTL R9, R9
	JE vnninorelu2
	VMAXPS Z4, Z24, Z4       // max(0, x), NaN kept
	VMAXPS Z5, Z24, Z5
vnninorelu2:
	VMOVUPS Z4, K1, (DI)
	VMOVUPS Z5, K2, 64(DI)
	DECQ CX
	JE vnnidone
	ADDQ R11, DI
	VBROADCASTSS 12(DX), Z20
	VPSUBD Z16, Z6, Z6
	VCVTDQ2PS Z6, Z6
	VMULPS Z18, Z6, Z6
	VMULPS Z20, Z6, Z6
	VADDPS Z22, Z6, Z6
	VPSUBD Z17, Z7, Z7
	VCVTDQ2PS Z7, Z7
	VMULPS Z19, Z7, Z7
	VMULPS Z20, Z7, Z7
	VADDPS Z23, Z7, Z7
	TESTL AX, AX
	JE vnninobeta3
	VFMADD231PS (DI), Z21, K1, Z6
	VFMADD231PS 64(DI), Z21, K2, Z7
vnninobeta3:
	TESTL R9, R9
	JE vnninorelu3
	VMAXPS Z6, Z24, Z6       // max(0, x), NaN kept
	VMAXPS Z7, Z24, Z7
vnninorelu3:
	VMOVUPS Z6, K1, (DI)
	VMOVUPS Z7, K2, 64(DI)
	DECQ CX
	JE vnnidone
	ADDQ R11, DI
	VBROADCASTSS 16(DX), Z20
	VPSUBD Z16, Z8, Z8
	VCVTDQ2PS Z8, Z8
	VMULPS Z18, Z8, Z8
	VMULPS Z20, Z8, Z8
	VADDPS Z22, Z8, Z8
	VPSUBD Z17, Z9, Z9
	VCVTDQ2PS Z9, Z9
	VMULPS Z19, Z9, Z9
	VMULPS Z20, Z9, Z9
	VADDPS Z23, Z9, Z9
	TESTL AX, AX
	JE vnninobeta4
	VFMADD231PS (DI), Z21, K1, Z8
	VFMADD231PS 64(DI), Z21, K2, Z9
vnninobeta4:
	TESTL R9, R9
	JE vnninorelu4
	VMAXPS Z8, Z24, Z8       // max(0, x), NaN kept
	VMAXPS Z9, Z24, Z9
vnninorelu4:
	VMOVUPS Z8, K1, (DI)
	VMOVUPS Z9, K2, 64(DI)
	DECQ CX
	JE vnnidone
	ADDQ R11, DI
	VBROADCASTSS 20(DX), Z20
	VPSUBD Z16, Z10, Z10
	VCVTDQ2PS Z10, Z10
	VMULPS Z18, Z10, Z10
	VMULPS Z20, Z10, Z10
	VADDPS Z22, Z10, Z10
	VPSUBD Z17, Z11, Z11
	VCVTDQ2PS Z11, Z11
	VMULPS Z19, Z11, Z11
	VMULPS Z20, Z11, Z11
	VADDPS Z23, Z11, Z11
	TESTL AX, AX
	JE vnninobeta5
	VFMADD231PS (DI), Z21, K1, Z10
	VFMADD231PS 64(DI), Z21, K2, Z11
vnninobeta5:
	TESTL R9, R9
	JE vnninorelu5
	VMAXPS Z10, Z24, Z10       // max(0, x), NaN kept
	VMAXPS Z11, Z24, Z11
vnninorelu5:
	VMOVUPS Z10, K1, (DI)
	VMOVUPS Z11, K2, 64(DI)
	DECQ CX
	JE vnnidone
	ADDQ R11, DI
	VBROADCASTSS 24(DX), Z20
	VPSUBD Z16, Z12, Z12
	VCVTDQ2PS Z12, Z12
	VMULPS Z18, Z12, Z12
	VMULPS Z20, Z12, Z12
	VADDPS Z22, Z12, Z12
	VPSUBD Z17, Z13, Z13
	VCVTDQ2PS Z13, Z13
	VMULPS Z19, Z13, Z13
	VMULPS Z20, Z13, Z13
	VADDPS Z23, Z13, Z13
	TESTL AX, AX
	JE vnninobeta6
	VFMADD231PS (DI), Z21, K1, Z12
	VFMADD231PS 64(DI), Z21, K2, Z13
vnninobeta6:
	TESTL R9, R9
	JE vnninorelu6
	VMAXPS Z12, Z24, Z12       // max(0, x), NaN kept
	VMAXPS Z13, Z24, Z13
vnninorelu6:
	VMOVUPS Z12, K1, (DI)
	VMOVUPS Z13, K2, 64(DI)
	DECQ CX
	JE vnnidone
	ADDQ R11, DI
	VBROADCASTSS 28(DX), Z20
	VPSUBD Z16, Z14, Z14
	VCVTDQ2PS Z14, Z14
	VMULPS Z18, Z14, Z14
	VMULPS Z20, Z14, Z14
	VADDPS Z22, Z14, Z14
	VPSUBD Z17, Z15, Z15
	VCVTDQ2PS Z15, Z15
	VMULPS Z19, Z15, Z15
	VMULPS Z20, Z15, Z15
	VADDPS Z23, Z15, Z15
	TESTL AX, AX
	JE vnninobeta7
	VFMADD231PS (DI), Z21, K1, Z14
	VFMADD231PS 64(DI), Z21, K2, Z15
vnninobeta7:
	TESTL R9, R9
	JE vnninorelu7
	VMAXPS Z14, Z24, Z14       // max(0, x), NaN kept
	VMAXPS Z15, Z24, Z15
vnninorelu7:
	VMOVUPS Z14, K1, (DI)
	VMOVUPS Z15, K2, 64(DI)
vnnidone:
	VZEROUPPER
	RET

// func int8VNNISparse1x256(ng int, groups *int32, u *uint8, panels *int8, c *float32, rowScale, colScale, bias *float32, beta float32, relu uint32)
//
// One row of u = q + 128 whose q are all ≥ 0 (a ReLU's output), by eight
// panels (256 outputs) in the sparse layout (per group of four inputs,
// the eight panels' 128 bytes side by side: 1,024 bytes, read in one
// sweep), over only the ng groups listed in groups: the rest hold q = 0
// and add nothing. Per listed group, one VPBROADCASTD of its four bytes
// less 128 (q itself, a valid unsigned operand) and sixteen VPDPBUSD
// straight from memory.
// The sums are the dense tile's acc − corr exactly, and they are scaled
// into C with its operations in its order, so C is the same bits:
// float(sum)·colScale·rowScale + bias (+ beta·C when beta ≠ 0, under K1),
// then max(Z24, ·), Z24 being 0 for relu and −Inf (which changes nothing,
// NaN kept) without.
#define SPARSEOUT(z, off) \
	VCVTDQ2PS z, z; \
	VMULPS off(R10), z, z; \
	VMULPS Z20, z, z; \
	VADDPS off(R14), z, z; \
	VFMADD231PS off(DI), Z21, K1, z; \
	VMAXPS z, Z24, z; \
	VMOVUPS z, off(DI)

TEXT ·int8VNNISparse1x256(SB), NOSPLIT, $0-72
	MOVQ ng+0(FP), CX
	MOVQ groups+8(FP), SI
	MOVQ u+16(FP), DX
	MOVQ panels+24(FP), BX
	MOVL $0x80808080, AX
	VPBROADCASTD AX, Z17
	ZERO16
	TESTQ CX, CX
	JE sparsestore
sparseloop:
	MOVL (SI), AX            // g
	VPBROADCASTD (DX)(AX*4), Z16
	VPXORD Z17, Z16, Z16     // q = u − 128
	SHLQ $10, AX             // g's 1,024 bytes
	ADDQ BX, AX
	VPDPBUSD 0(AX), Z16, Z0
	VPDPBUSD 64(AX), Z16, Z1
	VPDPBUSD 128(AX), Z16, Z2
	VPDPBUSD 192(AX), Z16, Z3
	VPDPBUSD 256(AX), Z16, Z4
	VPDPBUSD 320(AX), Z16, Z5
	VPDPBUSD 384(AX), Z16, Z6
	VPDPBUSD 448(AX), Z16, Z7
	VPDPBUSD 512(AX), Z16, Z8
	VPDPBUSD 576(AX), Z16, Z9
	VPDPBUSD 640(AX), Z16, Z10
	VPDPBUSD 704(AX), Z16, Z11
	VPDPBUSD 768(AX), Z16, Z12
	VPDPBUSD 832(AX), Z16, Z13
	VPDPBUSD 896(AX), Z16, Z14
	VPDPBUSD 960(AX), Z16, Z15
	ADDQ $4, SI
	DECQ CX
	JNE sparseloop
sparsestore:
	MOVQ c+32(FP), DI
	MOVQ rowScale+40(FP), AX
	VBROADCASTSS (AX), Z20
	MOVQ colScale+48(FP), R10
	MOVQ bias+56(FP), R14
	VBROADCASTSS beta+64(FP), Z21
	MOVL beta+64(FP), AX
	SHLL $1, AX              // zero for beta = ±0
	KXORW K1, K1, K1
	TESTL AX, AX
	JE sparsenobeta
	KXNORW K1, K1, K1
sparsenobeta:
	MOVL $0xff800000, AX     // −Inf
	MOVL relu+68(FP), R9
	TESTL R9, R9
	JE sparserelu
	XORL AX, AX
sparserelu:
	VPBROADCASTD AX, Z24
	SPARSEOUT(Z0, 0)
	SPARSEOUT(Z1, 64)
	SPARSEOUT(Z2, 128)
	SPARSEOUT(Z3, 192)
	SPARSEOUT(Z4, 256)
	SPARSEOUT(Z5, 320)
	SPARSEOUT(Z6, 384)
	SPARSEOUT(Z7, 448)
	SPARSEOUT(Z8, 512)
	SPARSEOUT(Z9, 576)
	SPARSEOUT(Z10, 640)
	SPARSEOUT(Z11, 704)
	SPARSEOUT(Z12, 768)
	SPARSEOUT(Z13, 832)
	SPARSEOUT(Z14, 896)
	SPARSEOUT(Z15, 960)
	VZEROUPPER
	RET

// func int8AVX2x2x32(kg int, q *int8, lda int, panel *int8, out *int32)
//
// Two rows of q (signed) by the panel: per group of four inputs, four
// 32-byte loads of the panel (8 outputs × 4 inputs each); for each row,
// the broadcast four bytes' absolute values (VPABSB) times the weights
// with their signs (VPSIGNB), pairs summed to int16 by VPMADDUBSW (at most
// 2·127·127, no saturation) and to int32 by VPMADDWD with ones.
TEXT ·int8AVX2x2x32(SB), NOSPLIT, $0-40
	MOVQ kg+0(FP), CX
	MOVQ q+8(FP), SI
	MOVQ lda+16(FP), R8
	MOVQ panel+24(FP), BX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	VPCMPEQW Y15, Y15, Y15
	VPSRLW $15, Y15, Y15     // int16 ones
	TESTQ CX, CX
	JE avx2store
avx2loop:
	VMOVDQU 0(BX), Y8
	VMOVDQU 32(BX), Y9
	VMOVDQU 64(BX), Y10
	VMOVDQU 96(BX), Y11
	VPBROADCASTD (SI), Y12
	VPABSB Y12, Y13
	VPSIGNB Y12, Y8, Y14
	VPMADDUBSW Y14, Y13, Y14
	VPMADDWD Y15, Y14, Y14
	VPADDD Y14, Y0, Y0
	VPSIGNB Y12, Y9, Y14
	VPMADDUBSW Y14, Y13, Y14
	VPMADDWD Y15, Y14, Y14
	VPADDD Y14, Y1, Y1
	VPSIGNB Y12, Y10, Y14
	VPMADDUBSW Y14, Y13, Y14
	VPMADDWD Y15, Y14, Y14
	VPADDD Y14, Y2, Y2
	VPSIGNB Y12, Y11, Y14
	VPMADDUBSW Y14, Y13, Y14
	VPMADDWD Y15, Y14, Y14
	VPADDD Y14, Y3, Y3
	VPBROADCASTD (SI)(R8*1), Y12
	VPABSB Y12, Y13
	VPSIGNB Y12, Y8, Y14
	VPMADDUBSW Y14, Y13, Y14
	VPMADDWD Y15, Y14, Y14
	VPADDD Y14, Y4, Y4
	VPSIGNB Y12, Y9, Y14
	VPMADDUBSW Y14, Y13, Y14
	VPMADDWD Y15, Y14, Y14
	VPADDD Y14, Y5, Y5
	VPSIGNB Y12, Y10, Y14
	VPMADDUBSW Y14, Y13, Y14
	VPMADDWD Y15, Y14, Y14
	VPADDD Y14, Y6, Y6
	VPSIGNB Y12, Y11, Y14
	VPMADDUBSW Y14, Y13, Y14
	VPMADDWD Y15, Y14, Y14
	VPADDD Y14, Y7, Y7
	ADDQ $4, SI
	ADDQ $128, BX
	DECQ CX
	JNE avx2loop
avx2store:
	MOVQ out+32(FP), DI
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	VMOVDQU Y4, 128(DI)
	VMOVDQU Y5, 160(DI)
	VMOVDQU Y6, 192(DI)
	VMOVDQU Y7, 224(DI)
	VZEROUPPER
	RET

DATA sparseIota<>+0(SB)/8, $0x0000000100000000
DATA sparseIota<>+8(SB)/8, $0x0000000300000002
DATA sparseIota<>+16(SB)/8, $0x0000000500000004
DATA sparseIota<>+24(SB)/8, $0x0000000700000006
DATA sparseIota<>+32(SB)/8, $0x0000000900000008
DATA sparseIota<>+40(SB)/8, $0x0000000b0000000a
DATA sparseIota<>+48(SB)/8, $0x0000000d0000000c
DATA sparseIota<>+56(SB)/8, $0x0000000f0000000e
GLOBL sparseIota<>(SB), RODATA|NOPTR, $64

// func sparseListZ(kg int, u *uint8, out *int32) int
//
// sparseGroups' scan of one row on the AVX-512 path: the indices of the
// kg dwords of u (four q + 128 each) that are not 0x80808080 (four zeros),
// compressed into out sixteen at a time (out needs room for the count
// plus 16), and their count; −1 as soon as a byte has its high bit clear
// (a q below zero). The last kg mod 16 dwords are read under a mask, the
// rest of the register holding 0x80808080 (four zeros).
TEXT ·sparseListZ(SB), NOSPLIT, $0-32
	MOVQ kg+0(FP), CX
	MOVQ u+8(FP), SI
	MOVQ out+16(FP), DI
	MOVQ DI, R8
	MOVL $0x80808080, AX
	VPBROADCASTD AX, Z16
	MOVL $16, AX
	VPBROADCASTD AX, Z18
	VMOVDQU32 sparseIota<>(SB), Z17
sl16:
	TESTQ CX, CX
	JLE sldone
	MOVL $0xffff, AX         // sixteen dwords, or the last CX under a mask
	CMPQ CX, $16
	JGE slmask
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
slmask:
	KMOVW AX, K3
	VMOVDQA32 Z16, Z1
	VMOVDQU32 (SI), K3, Z1
	VPTESTNMB Z16, Z1, K2    // bytes below 128: q < 0
	KORTESTQ K2, K2
	JNE slneg
	VPCMPUD $4, Z16, Z1, K1  // not four zeros
	VPCOMPRESSD Z17, K1, Z2
	VMOVDQU32 Z2, (DI)
	KMOVW K1, AX
	POPCNTL AX, AX
	LEAQ (DI)(AX*4), DI
	VPADDD Z18, Z17, Z17
	ADDQ $64, SI
	SUBQ $16, CX
	JMP sl16
sldone:
	SUBQ R8, DI
	SHRQ $2, DI
	MOVQ DI, ret+24(FP)
	VZEROUPPER
	RET
slneg:
	MOVQ $-1, ret+24(FP)
	VZEROUPPER
	RET
