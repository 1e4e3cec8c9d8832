package crossencoder

// The Hugging Face families LoadHF and OpenHF read: each package registers
// itself with encoder.RegisterHF, so linking it in is all a family needs.
import (
	_ "github.com/as2/as2/encoder/bert"
	_ "github.com/as2/as2/encoder/roberta"
)
