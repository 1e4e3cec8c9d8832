package crossencoder

// ModernBERT (encoder/modernbert) is a Hugging Face family LoadHF reads.
import _ "github.com/as2/as2/encoder/modernbert"
