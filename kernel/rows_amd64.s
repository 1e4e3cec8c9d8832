//go:build amd64 && !purego

#include "textflag.h"

// Row kernels on the AVX-512 path for the transformer's softmax and
// LayerNorm, 16 floats at a time with the last n mod 16 under a mask.
// Each sets up K1 for the tail as: K1 = (1 << (n mod 16)) − 1.

#define TAILMASK \
	MOVQ CX, AX \
	ANDQ $15, AX \
	MOVL $1, DX \
	SHLXL AX, DX, DX \
	DECL DX \
	KMOVW DX, K1

// func maxZ(n int, x *float32) float32
// max over x[0:n], n ≥ 1 (NaNs: see MaxOf).
TEXT ·maxZ(SB), NOSPLIT, $0-20
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	VBROADCASTSS (SI), Z0
	VMOVAPS Z0, Z1
	TAILMASK
	SHRQ $4, CX
	JZ maxztail
maxzloop:
	VMAXPS (SI), Z0, Z0
	ADDQ $64, SI
	DECQ CX
	JNZ maxzloop
maxztail:
	VMAXPS (SI), Z1, K1, Z1
	VMAXPS Z1, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VMAXPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0x4e, X0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0xb1, X0, X1
	VMAXPS X1, X0, X0
	VMOVSS X0, ret+16(FP)
	VZEROUPPER
	RET

// func scaleZ(n int, x *float32, s float32)
// x[i] *= s for i < n.
TEXT ·scaleZ(SB), NOSPLIT, $0-20
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	VBROADCASTSS s+16(FP), Z2
	TAILMASK
	SHRQ $4, CX
	JZ scaleztail
scalezloop:
	VMULPS (SI), Z2, Z0
	VMOVUPS Z0, (SI)
	ADDQ $64, SI
	DECQ CX
	JNZ scalezloop
scaleztail:
	VMULPS.Z (SI), Z2, K1, Z0
	VMOVUPS Z0, K1, (SI)
	VZEROUPPER
	RET

// func meanVarZ(n int, x *float32) (sum, sq float32)
// Σ x[i] and Σ (x[i] − Σ/n)², two passes, for LayerNorm.
TEXT ·meanVarZ(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ CX, R8              // n, kept
	MOVQ SI, R9              // x, kept
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	TAILMASK
	SHRQ $4, CX
	JZ mvsumtail
mvsumloop:
	VADDPS (SI), Z0, Z0
	ADDQ $64, SI
	DECQ CX
	JNZ mvsumloop
mvsumtail:
	VADDPS.Z (SI), Z1, K1, Z1
	VADDPS Z1, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, sum+16(FP)
	VCVTSI2SSQ R8, X2, X2
	VDIVSS X2, X0, X0        // mean
	VBROADCASTSS X0, Z3
	MOVQ R8, CX
	MOVQ R9, SI
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	SHRQ $4, CX
	JZ mvsqtail
mvsqloop:
	VMOVUPS (SI), Z4
	VSUBPS Z3, Z4, Z4
	VFMADD231PS Z4, Z4, Z0
	ADDQ $64, SI
	DECQ CX
	JNZ mvsqloop
mvsqtail:
	VMOVUPS.Z (SI), K1, Z4
	VSUBPS.Z Z3, Z4, K1, Z4
	VFMADD231PS Z4, Z4, Z1
	VADDPS Z1, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VMOVSS X0, sq+20(FP)
	VZEROUPPER
	RET

// func normZ(n int, y, xhat, x, gain, bias *float32, mu, inv float32)
// xhat[i] = (x[i] − mu)·inv, y[i] = xhat[i]·gain[i] + bias[i].
TEXT ·normZ(SB), NOSPLIT, $0-56
	MOVQ n+0(FP), CX
	MOVQ y+8(FP), DI
	MOVQ xhat+16(FP), R10
	MOVQ x+24(FP), SI
	MOVQ gain+32(FP), R8
	MOVQ bias+40(FP), R9
	VBROADCASTSS mu+48(FP), Z2
	VBROADCASTSS inv+52(FP), Z3
	TAILMASK
	SHRQ $4, CX
	JZ normztail
normzloop:
	VMOVUPS (SI), Z0
	VSUBPS Z2, Z0, Z0
	VMULPS Z3, Z0, Z0
	VMOVUPS Z0, (R10)
	VMOVUPS (R9), Z1
	VFMADD231PS (R8), Z0, Z1
	VMOVUPS Z1, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R10
	ADDQ $64, R8
	ADDQ $64, R9
	DECQ CX
	JNZ normzloop
normztail:
	VMOVUPS.Z (SI), K1, Z0
	VSUBPS Z2, Z0, Z0
	VMULPS Z3, Z0, Z0
	VMOVUPS Z0, K1, (R10)
	VMOVUPS.Z (R9), K1, Z1
	VFMADD231PS.Z (R8), Z0, K1, Z1
	VMOVUPS Z1, K1, (DI)
	VZEROUPPER
	RET
