package kernel

import (
	"fmt"
	"os"
	"strings"
)

// Path is a family of kernels: each step up needs more of the CPU and
// runs the same arithmetic wider.
type Path int

// The paths, lowest first. Generic is plain Go (gonum for float GEMM), on
// every architecture.
const (
	Generic Path = iota
	AVX2         // AVX2 and FMA, 8 floats a register
	AVX512       // AVX-512 F/BW/DQ/VL, 16 floats a register
)

// EnvVar names the environment variable that forces a lower path
// (generic, avx2 or avx512), so that tests and CI can run every path on one
// machine. A path the CPU lacks cannot be forced: it falls to the best
// the CPU has.
const EnvVar = "AS2_KERNEL"

func (p Path) String() string {
	switch p {
	case AVX2:
		return "avx2"
	case AVX512:
		return "avx512"
	}
	return "generic"
}

// parsePath reads a path's name as EnvVar takes it.
func parsePath(s string) (Path, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "generic", "go", "purego":
		return Generic, nil
	case "avx2":
		return AVX2, nil
	case "avx512", "avx-512":
		return AVX512, nil
	}
	return Generic, fmt.Errorf("kernel: %s=%q: want generic, avx2 or avx512", EnvVar, s)
}

// features is what the CPU offers the kernels, read once at start-up.
type features struct {
	AVX2FMA bool // AVX2 and FMA with the YMM state saved by the OS
	AVX512  bool // AVX-512 F, BW, DQ and VL with the ZMM state saved
	VNNI    bool // AVX-512 VNNI (VPDPBUSD), needs AVX512
}

// best is the highest path f supports.
func (f features) best() Path {
	switch {
	case f.AVX512:
		return AVX512
	case f.AVX2FMA:
		return AVX2
	}
	return Generic
}

var (
	cpuFeatures = detect()
	active      Path
	envNote     string // why the path is not the best the CPU has
	// HasAVX2FMA reports that the AVX2 kernels (or wider) run: the CPU and
	// OS support them and EnvVar does not force the generic path.
	HasAVX2FMA bool
	// HasAVX512 reports that the AVX-512 kernels run.
	HasAVX512 bool
	// hasVNNI: the int8 GEMM uses VPDPBUSD (on the AVX-512 path only).
	hasVNNI bool
)

func init() {
	p := cpuFeatures.best()
	if s, ok := os.LookupEnv(EnvVar); ok && s != "" {
		want, err := parsePath(s)
		switch {
		case err != nil:
			envNote = fmt.Sprintf("%v (ignored)", err)
			fmt.Fprintf(os.Stderr, "as2: %s\n", envNote)
		case want > p:
			envNote = fmt.Sprintf("%s=%s: the CPU lacks it", EnvVar, want)
		case want < p:
			p = want
			envNote = fmt.Sprintf("forced by %s=%s", EnvVar, want)
		}
	}
	setPath(p)
}

// setPath switches every kernel to path p (at most the CPU's best), for
// init and for tests that run each path in one process.
func setPath(p Path) {
	p = min(p, cpuFeatures.best())
	active = p
	HasAVX2FMA = p >= AVX2
	HasAVX512 = p >= AVX512
	hasVNNI = p >= AVX512 && cpuFeatures.VNNI
}

// Active returns the path the kernels run.
func Active() Path { return active }

// Describe says which kernels run, for `as2 bench` and reports: "avx512
// (AVX-512F/BW/DQ/VL, VNNI)", "avx2 (AVX2/FMA)" or "generic (pure Go)",
// with the reason when EnvVar changed it.
func Describe() string {
	var s string
	switch active {
	case AVX512:
		s = "avx512 (AVX-512F/BW/DQ/VL"
		if hasVNNI {
			s += ", VNNI"
		}
		s += ")"
	case AVX2:
		s = "avx2 (AVX2/FMA)"
	default:
		s = "generic (pure Go)"
	}
	if envNote != "" {
		s += "; " + envNote
	}
	return s
}
