package weaviate

import (
	"context"
	"errors"
	"fmt"
)

// ErrNotEmpty is OpenEmpty's error for a class that already holds
// objects.
var ErrNotEmpty = errors.New("the class is not empty")

// OpenEmpty opens (with opts.Create, creating) the class opts names for a
// new pool of answers. A class that already holds objects is emptied
// first only if replace: they may be another pool's.
func OpenEmpty(ctx context.Context, opts Options, replace bool) (*Index, error) {
	x, err := Open(ctx, opts)
	if err != nil || x.Len() == 0 {
		return x, err
	}
	if !replace {
		return nil, fmt.Errorf("%w: class %s at %s already holds %d objects: replace them (they may be another pool's), or name another class", ErrNotEmpty, x.Class(), x.URL(), x.Len())
	}
	if err := x.Delete(ctx); err != nil {
		return nil, err
	}
	return Open(ctx, opts)
}
