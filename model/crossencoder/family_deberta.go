package crossencoder

import _ "github.com/as2/as2/encoder/deberta" // DeBERTa-v2/v3 checkpoints (LoadHF, OpenHF)
