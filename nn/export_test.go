package nn

// Unexported ops, exposed to the external tests' gradient checks.

func (tp *Tape[T]) LinearColsForTest(x, w, b *Var[T], from, to int) *Var[T] {
	return tp.linearCols(x, w, b, from, to)
}
