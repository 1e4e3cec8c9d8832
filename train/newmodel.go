package train

import (
	"fmt"

	"github.com/as2/as2/model"
)

// NewModelFrom is NewModel with the encoder weights of the model file
// initEncoder ("": none), its errors naming the flags of as2 train that
// chose the encoder: "--encoder static, --embeddings FILE: ...".
func NewModelFrom(r model.Recipe, embeddings, format, initEncoder string) (model.Trainable, error) {
	var from model.Model
	if initEncoder != "" {
		var err error
		if from, err = model.Load(initEncoder); err != nil {
			return nil, fmt.Errorf("--init-encoder: %w", err)
		}
	}
	m, err := NewModel(r, embeddings, format, from)
	if err != nil {
		flags := "--encoder " + r.Encoder
		if embeddings != "" {
			flags += ", --embeddings " + embeddings
		}
		if initEncoder != "" {
			flags += ", --init-encoder " + initEncoder
		}
		return nil, fmt.Errorf("%s: %w", flags, err)
	}
	return m, nil
}
