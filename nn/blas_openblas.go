//go:build openblas && cgo

package nn

/*
#cgo LDFLAGS: -lopenblas
// Prototypes are declared here rather than taken from <cblas.h>, whose path
// differs between distributions; the ABI (32-bit ints, CBLAS enums) is fixed.
void cblas_sgemm(int order, int transA, int transB, int m, int n, int k,
	float alpha, const float *a, int lda, const float *b, int ldb,
	float beta, float *c, int ldc);
void cblas_dgemm(int order, int transA, int transB, int m, int n, int k,
	double alpha, const double *a, int lda, const double *b, int ldb,
	double beta, double *c, int ldc);
char *openblas_get_corename(void);
void openblas_set_num_threads(int n);
*/
import "C"

import (
	"os"
	"strings"
	"syscall"
	"unsafe"
)

const (
	cblasRowMajor = 101
	cblasNoTrans  = 111
	cblasTrans    = 112
)

func cTrans(t bool) C.int {
	if t {
		return cblasTrans
	}
	return cblasNoTrans
}

func sgemm(tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	C.cblas_sgemm(cblasRowMajor, cTrans(tA), cTrans(tB), C.int(m), C.int(n), C.int(k),
		C.float(alpha), (*C.float)(unsafe.Pointer(&a[0])), C.int(lda),
		(*C.float)(unsafe.Pointer(&b[0])), C.int(ldb),
		C.float(beta), (*C.float)(unsafe.Pointer(&c[0])), C.int(ldc))
}

func dgemm(tA, tB bool, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	C.cblas_dgemm(cblasRowMajor, cTrans(tA), cTrans(tB), C.int(m), C.int(n), C.int(k),
		C.double(alpha), (*C.double)(unsafe.Pointer(&a[0])), C.int(lda),
		(*C.double)(unsafe.Pointer(&b[0])), C.int(ldb),
		C.double(beta), (*C.double)(unsafe.Pointer(&c[0])), C.int(ldc))
}

func init() {
	// We parallelise across questions ourselves (see Workers); OpenBLAS's own
	// threads would then only contend for the same two cores, and its
	// threading overhead dominates for our small matrices anyway.
	if os.Getenv("OPENBLAS_NUM_THREADS") == "" {
		C.openblas_set_num_threads(1)
	}
}

// BLASName describes the matrix-multiply backend, for reports: "openblas"
// followed by the kernel family OpenBLAS actually selected.
func BLASName() string {
	return "openblas " + strings.ToLower(C.GoString(C.openblas_get_corename()))
}

// reexecGuard marks a process that EnsureBLASEnv already re-executed, so a
// failed detection can never loop.
const reexecGuard = "AS2_NN_BLAS_REEXEC"

// EnsureBLASEnv works around OpenBLAS builds (Debian's 0.3.21 among them)
// that do not recognise recent CPUs and silently fall back to slow generic
// kernels. OpenBLAS reads OPENBLAS_CORETYPE once, when the shared library is
// loaded, so it cannot be set from Go after start-up: if it is unset, this
// function derives it from /proc/cpuinfo (avx512f → SkylakeX, avx2 →
// Haswell), also sets OPENBLAS_NUM_THREADS=1 unless set, and re-executes the
// binary with the same arguments via syscall.Exec. Call it first thing in
// main (and in TestMain). It returns normally when nothing needs doing or
// the re-exec is impossible; then OpenBLAS simply runs its default kernels.
func EnsureBLASEnv() {
	if os.Getenv("OPENBLAS_CORETYPE") != "" || os.Getenv(reexecGuard) != "" {
		return
	}
	core := detectCoreType()
	if core == "" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	os.Setenv("OPENBLAS_CORETYPE", core)
	if os.Getenv("OPENBLAS_NUM_THREADS") == "" {
		os.Setenv("OPENBLAS_NUM_THREADS", "1")
	}
	os.Setenv(reexecGuard, "1")
	_ = syscall.Exec(exe, os.Args, os.Environ()) // returns only on failure
}

func detectCoreType() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	return coreTypeFromCPUInfo(string(b))
}
