package crossencoder

// DistilBERT (encoder/distilbert) is a Hugging Face family LoadHF reads.
import _ "github.com/as2/as2/encoder/distilbert"
