package encoder

import "github.com/as2/as2/nn"

// Frozen is a sentence prepared for a model that does not train its
// encoder (compare-aggregate over a language model, as the Comp-Clip paper
// uses ELMo; HAS and the dual encoders over USE-Lite): its tokens and, for
// a network encoder, its token states, computed once when the sentence is
// prepared instead of in every forward pass of every epoch.
type Frozen[T nn.Float] struct {
	Tokens Tokens
	States *nn.Tensor[T] // nil for static vectors, a cheap lookup left to Encode
}

// NonEmpty returns t, or for an empty sentence one token without a vector:
// a sentence still needs one step.
func NonEmpty(t Tokens) Tokens {
	if t.Len() == 0 {
		return Tokens{Text: []string{""}, IDs: []int{-1}}
	}
	return t
}

// Freeze prepares toks for a model that keeps enc frozen. An encoder with
// parameters is a network whose states are the same in every epoch: they
// are computed here, on a tape from pool.
func Freeze[T nn.Float](enc Encoder[T], pool *nn.TapePool[T], toks Tokens) Frozen[T] {
	f := Frozen[T]{Tokens: toks}
	if enc.Params().Count() > 0 {
		f.States = pool.Value(func(tp *nn.Tape[T]) *nn.Var[T] { return enc.Encode(tp, toks) })
	}
	return f
}

// Encode returns the sentence's token states [Tokens.Len(), Dim] on tp:
// the prepared ones as a constant, or enc's.
func (f Frozen[T]) Encode(tp *nn.Tape[T], enc Encoder[T]) *nn.Var[T] {
	if f.States != nil {
		return tp.Const(f.States)
	}
	return enc.Encode(tp, f.Tokens)
}
