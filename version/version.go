// Package version is as2's version, in one place: the command prints it
// and model files record it.
package version

import "runtime/debug"

// Version is set at build time with
// -ldflags "-X github.com/as2/as2/version.Version=v1.2.3". Without it, a
// binary built by go install from a tagged module reports the module's
// version, and anything else the development version.
var Version = ""

// dev is the version of a build from a work tree.
const dev = "0.2.0-dev"

// String returns the version of this build.
func String() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return dev
}
