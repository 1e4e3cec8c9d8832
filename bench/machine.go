package bench

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/as2/as2/kernel"
	"github.com/as2/as2/nn"
)

// Machine describes where a benchmark runs: the CPU model, the cores Go
// uses, the Go version and the numeric kernels.
func Machine() string {
	cpu := runtime.GOARCH
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	return fmt.Sprintf("%s, %d cores, %s, %s", cpu, runtime.GOMAXPROCS(0), runtime.Version(), Kernels())
}

// Kernels names the numeric kernels this process computes with: nn's
// BLAS backend (pure Go, or OpenBLAS with -tags openblas) and the path
// package kernel picked at start-up from the CPU's features, or forced
// lower by kernel.EnvVar. It is the one place every report's header takes
// them from.
func Kernels() string {
	blas := nn.BLASName()
	// The pure-Go backend's name also guesses at the kernels ("pure Go,
	// AVX2/FMA kernels"), which kernel.Describe says exactly.
	if !strings.HasPrefix(blas, "openblas") {
		blas = "pure Go"
	}
	return fmt.Sprintf("%s, kernels %s", blas, kernel.Describe())
}
