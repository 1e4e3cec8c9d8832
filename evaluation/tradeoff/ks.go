package tradeoff

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseKs reads a list of k, the candidates a cascade's first stage passes
// on (Sweep's ks): positive integers separated by commas, as in "1,5,10".
func ParseKs(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("%q: want positive integers separated by commas", s)
		}
		out = append(out, k)
	}
	return out, nil
}
