// Package testkit groups the helpers that only tests and benchmarks import:
// shareddata finds the real benchmarks (or skips), benchdata loads them for
// the neural rankers, tinydata holds hand-made inputs, modelfile round-trips
// a model through its file. Nothing outside
// _test.go files may import them.
package testkit
