package embed

import (
	"fmt"
	"os"
	"time"
)

// Conversion reports what Convert did.
type Conversion struct {
	Words, Dim int
	Read       time.Duration // reading the source
	Load       time.Duration // reading the compact file back
	Size       int64         // bytes of the compact file
	Identity   string        // the vectors' identity (Vectors.Identity)
}

// Convert reads the vectors in from (format as Load takes it), writes them
// to out in the compact format (Save) and reads that back, so that a file
// that would not load is an error now rather than when it is used. When
// from cannot be read, the Conversion is zero (Identity "").
func Convert(from, format, out string) (Conversion, error) {
	start := time.Now()
	v, err := Load(from, format)
	if err != nil {
		return Conversion{}, err
	}
	c := Conversion{Words: v.Len(), Dim: v.Dim, Read: time.Since(start), Identity: v.Identity()}
	if err := Save(out, v); err != nil {
		return c, err
	}
	start = time.Now()
	if _, err := Load(out, "as2"); err != nil {
		return c, fmt.Errorf("embed: reading back %s: %w", out, err)
	}
	c.Load = time.Since(start)
	st, err := os.Stat(out)
	if err != nil {
		return c, fmt.Errorf("embed: %w", err)
	}
	c.Size = st.Size()
	return c, nil
}
