package nn

import "strings"

// coreTypeFromCPUInfo maps the first "flags" line of /proc/cpuinfo to an
// OPENBLAS_CORETYPE value (see EnsureBLASEnv in the openblas build).
func coreTypeFromCPUInfo(cpuinfo string) string {
	for line := range strings.Lines(cpuinfo) {
		name, val, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(name) != "flags" {
			continue
		}
		flags := map[string]bool{}
		for _, f := range strings.Fields(val) {
			flags[f] = true
		}
		switch {
		case flags["avx512f"] && flags["avx512bw"] && flags["avx512vl"]:
			return "SkylakeX"
		case flags["avx2"] && flags["fma"]:
			return "Haswell"
		case flags["avx"]:
			return "SandyBridge"
		}
		return ""
	}
	return ""
}
