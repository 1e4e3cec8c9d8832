package nn

import (
	"fmt"
	"math/rand/v2"
	"runtime"
)

// Recurrent layers. Each sequence layer projects all inputs at once (one
// GEMM for the T steps, x·Wx + b), then runs the recurrence. The Elman RNN's
// recurrence is one fused op (ElmanRNN); GRU and LSTM steps are composed of
// Tape ops, so backpropagation through time falls out of the ops' backward
// passes. A zero initial state is represented by nil, which skips the
// recurrent product at the first step.

// SeqLayer maps a sequence [T, In] to a sequence [T, OutDim()].
type SeqLayer[T Float] interface {
	Forward(tp *Tape[T], xs *Var[T]) *Var[T]
	OutDim() int
}

// initRecurrent gives Wx Glorot values per gate and each gate's [H, H] block
// of Wh an orthogonal matrix (Saxe et al. 2014).
func initRecurrent[T Float](wx, wh *Tensor[T], in, hidden, gates int, rng *rand.Rand) {
	GlorotUniform(wx, in, hidden, rng)
	block := NewTensor[T](hidden, hidden)
	for g := 0; g < gates; g++ {
		Orthogonal(block, 1, rng)
		for i := 0; i < hidden; i++ {
			copy(wh.Data[i*gates*hidden+g*hidden:], block.Data[i*hidden:(i+1)*hidden])
		}
	}
}

// RNN is the Elman network h_t = tanh(x_t·Wx + h_{t−1}·Wh + b) (Elman 1990).
type RNN[T Float] struct {
	Wx, Wh, B *Param[T] // [In, H], [H, H], [H]
	Hidden    int
}

// NewRNN creates an Elman RNN layer with parameters name.wx, name.wh, name.bias.
func NewRNN[T Float](ps *Params[T], name string, in, hidden int, rng *rand.Rand) *RNN[T] {
	r := &RNN[T]{Wx: ps.New(name+".wx", in, hidden), Wh: ps.New(name+".wh", hidden, hidden), B: ps.New(name+".bias", hidden), Hidden: hidden}
	initRecurrent(r.Wx.Value, r.Wh.Value, in, hidden, 1, rng)
	return r
}

// OutDim is the hidden size.
func (r *RNN[T]) OutDim() int { return r.Hidden }

// Cell computes one step from x [In] and the previous state h [H] (nil for
// zero).
func (r *RNN[T]) Cell(tp *Tape[T], x, h *Var[T]) *Var[T] {
	return r.step(tp, tp.Linear(x, tp.Param(r.Wx), tp.Param(r.B)), h)
}

func (r *RNN[T]) step(tp *Tape[T], xp, h *Var[T]) *Var[T] {
	if h != nil {
		xp = tp.Add(xp, tp.MatMul(h, tp.Param(r.Wh)))
	}
	return tp.Tanh(xp)
}

// Forward runs the RNN over xs [T, In], giving the states [T, H].
func (r *RNN[T]) Forward(tp *Tape[T], xs *Var[T]) *Var[T] {
	return tp.ElmanRNN(tp.Linear(xs, tp.Param(r.Wx), tp.Param(r.B)), tp.Param(r.Wh))
}

// ElmanRNN is the recurrence of an Elman RNN as one op: given the projected
// inputs proj [T, H] (x_t·Wx + b) and Wh [H, H], it returns the states
// h_t = tanh(proj_t + h_{t−1}·Wh), h_{−1} = 0, as [T, H]. Fusing the steps
// lets backpropagation through time (Werbos 1990) form the recurrent weight
// gradient as one product, dWh = H[0:T−1]ᵀ·dA[1:T], instead of T rank-1
// updates.
func (tp *Tape[T]) ElmanRNN(proj, wh *Var[T]) *Var[T] {
	steps, hid := mustMatrix("ElmanRNN", proj)
	if r, c := mustMatrix("ElmanRNN weights", wh); r != hid || c != hid {
		panic(fmt.Sprintf("nn: ElmanRNN: proj %v, wh %v", proj.Value.Shape, wh.Value.Shape))
	}
	y := tp.out(anyGrad(proj, wh), steps, hid)
	hs := y.Value.Data
	copy(hs, proj.Value.Data)
	for t := 0; t < steps; t++ {
		row := hs[t*hid : (t+1)*hid]
		if t > 0 { // a_t = proj_t + h_{t−1}·Wh
			gemm(false, false, 1, hid, hid, 1, hs[(t-1)*hid:t*hid], hid, wh.Value.Data, hid, 1, row, hid)
		}
		for j, v := range row {
			row[j] = tanh(v)
		}
	}
	if y.Grad == nil {
		return y
	}
	tp.record(func() {
		da := tp.arena.alloc(steps * hid) // gradient w.r.t. the pre-activations a_t
		for t := steps - 1; t >= 0; t-- {
			dat := da[t*hid : (t+1)*hid]
			copy(dat, y.Grad.Data[t*hid:(t+1)*hid])
			if t < steps-1 { // dh_t += da_{t+1}·Whᵀ
				gemm(false, true, 1, hid, hid, 1, da[(t+1)*hid:(t+2)*hid], hid, wh.Value.Data, hid, 1, dat, hid)
			}
			for j, h := range hs[t*hid : (t+1)*hid] {
				dat[j] *= 1 - h*h
			}
		}
		if proj.Grad != nil {
			addTo(proj.Grad.Data, da)
		}
		if wh.Grad != nil && steps > 1 {
			gemm(true, false, hid, hid, steps-1, 1, hs, hid, da[hid:], hid, 1, wh.Grad.Data, hid)
		}
	})
	return y
}

// GRU is the gated recurrent unit (Cho et al. 2014) in the cuDNN/PyTorch
// form, with gates in the order reset, update, new:
//
//	r = σ(x·Wxr + bxr + h·Whr + bhr)     z = σ(x·Wxz + bxz + h·Whz + bhz)
//	n = tanh(x·Wxn + bxn + r⊙(h·Whn + bhn))     h' = (1−z)⊙n + z⊙h
type GRU[T Float] struct {
	Wx, Wh, Bx, Bh *Param[T] // [In, 3H], [H, 3H], [3H], [3H]
	Hidden         int
}

// NewGRU creates a GRU layer with parameters name.wx, name.wh, name.bx, name.bh.
func NewGRU[T Float](ps *Params[T], name string, in, hidden int, rng *rand.Rand) *GRU[T] {
	g := &GRU[T]{Wx: ps.New(name+".wx", in, 3*hidden), Wh: ps.New(name+".wh", hidden, 3*hidden),
		Bx: ps.New(name+".bx", 3*hidden), Bh: ps.New(name+".bh", 3*hidden), Hidden: hidden}
	initRecurrent(g.Wx.Value, g.Wh.Value, in, hidden, 3, rng)
	return g
}

// OutDim is the hidden size.
func (g *GRU[T]) OutDim() int { return g.Hidden }

// Cell computes one step from x [In] and h [H] (nil for zero).
func (g *GRU[T]) Cell(tp *Tape[T], x, h *Var[T]) *Var[T] {
	return g.step(tp, tp.Linear(x, tp.Param(g.Wx), tp.Param(g.Bx)), h)
}

func (g *GRU[T]) step(tp *Tape[T], xp, h *Var[T]) *Var[T] {
	H := g.Hidden
	hp := tp.Param(g.Bh) // h·Wh + bh, which is just bh for a zero state
	if h != nil {
		hp = tp.Linear(h, tp.Param(g.Wh), hp)
	}
	rz := tp.Sigmoid(tp.Add(tp.SliceCols(xp, 0, 2*H), tp.SliceCols(hp, 0, 2*H)))
	r, z := tp.SliceCols(rz, 0, H), tp.SliceCols(rz, H, 2*H)
	n := tp.Tanh(tp.Add(tp.SliceCols(xp, 2*H, 3*H), tp.Mul(r, tp.SliceCols(hp, 2*H, 3*H))))
	if h == nil {
		return tp.Sub(n, tp.Mul(z, n))
	}
	return tp.Add(n, tp.Mul(z, tp.Sub(h, n))) // = (1−z)⊙n + z⊙h
}

// Forward runs the GRU over xs [T, In], giving the states [T, H].
func (g *GRU[T]) Forward(tp *Tape[T], xs *Var[T]) *Var[T] {
	proj := tp.Linear(xs, tp.Param(g.Wx), tp.Param(g.Bx))
	hs := make([]*Var[T], proj.Value.Rows())
	var h *Var[T]
	for t := range hs {
		h = g.step(tp, tp.Row(proj, t), h)
		hs[t] = h
	}
	return tp.Stack(hs...)
}

// LSTM is the long short-term memory (Hochreiter & Schmidhuber 1997) with a
// forget gate (Gers et al. 2000), gates in the order input, forget, cell,
// output:
//
//	[i f g o] = x·Wx + h·Wh + b;  c' = σ(f)⊙c + σ(i)⊙tanh(g);  h' = σ(o)⊙tanh(c')
//
// The forget-gate bias starts at 1 (Jozefowicz et al. 2015) so that memory
// is kept by default early in training.
type LSTM[T Float] struct {
	Wx, Wh, B *Param[T] // [In, 4H], [H, 4H], [4H]
	Hidden    int
}

// NewLSTM creates an LSTM layer with parameters name.wx, name.wh, name.bias.
func NewLSTM[T Float](ps *Params[T], name string, in, hidden int, rng *rand.Rand) *LSTM[T] {
	l := &LSTM[T]{Wx: ps.New(name+".wx", in, 4*hidden), Wh: ps.New(name+".wh", hidden, 4*hidden), B: ps.New(name+".bias", 4*hidden), Hidden: hidden}
	initRecurrent(l.Wx.Value, l.Wh.Value, in, hidden, 4, rng)
	for i := hidden; i < 2*hidden; i++ {
		l.B.Value.Data[i] = 1
	}
	return l
}

// OutDim is the hidden size.
func (l *LSTM[T]) OutDim() int { return l.Hidden }

// Cell computes one step from x [In] and the state (h, c), each nil for
// zero, returning the new (h, c).
func (l *LSTM[T]) Cell(tp *Tape[T], x, h, c *Var[T]) (*Var[T], *Var[T]) {
	return l.step(tp, tp.Linear(x, tp.Param(l.Wx), tp.Param(l.B)), h, c)
}

func (l *LSTM[T]) step(tp *Tape[T], gates, h, c *Var[T]) (*Var[T], *Var[T]) {
	H := l.Hidden
	if h != nil {
		gates = tp.Add(gates, tp.MatMul(h, tp.Param(l.Wh)))
	}
	ifg := tp.Sigmoid(tp.SliceCols(gates, 0, 2*H))
	i, f := tp.SliceCols(ifg, 0, H), tp.SliceCols(ifg, H, 2*H)
	g := tp.Tanh(tp.SliceCols(gates, 2*H, 3*H))
	o := tp.Sigmoid(tp.SliceCols(gates, 3*H, 4*H))
	cNew := tp.Mul(i, g)
	if c != nil {
		cNew = tp.Add(tp.Mul(f, c), cNew)
	}
	return tp.Mul(o, tp.Tanh(cNew)), cNew
}

// Forward runs the LSTM over xs [T, In], giving the hidden states [T, H].
func (l *LSTM[T]) Forward(tp *Tape[T], xs *Var[T]) *Var[T] {
	proj := tp.Linear(xs, tp.Param(l.Wx), tp.Param(l.B))
	hs := make([]*Var[T], proj.Value.Rows())
	var h, c *Var[T]
	for t := range hs {
		h, c = l.step(tp, tp.Row(proj, t), h, c)
		hs[t] = h
	}
	return tp.Stack(hs...)
}

// Bidirectional runs Fwd over the sequence and Bwd over the reversed
// sequence and concatenates their states per step (Schuster & Paliwal
// 1997): row t is [fwd_t; bwd_t], where bwd_t has read steps T−1 … t.
type Bidirectional[T Float] struct {
	Fwd, Bwd SeqLayer[T]
}

// OutDim is the sum of both directions' sizes.
func (b *Bidirectional[T]) OutDim() int { return b.Fwd.OutDim() + b.Bwd.OutDim() }

// Forward maps xs [T, In] to [T, OutDim()].
func (b *Bidirectional[T]) Forward(tp *Tape[T], xs *Var[T]) *Var[T] {
	backward := func(tp *Tape[T]) *Var[T] { return tp.ReverseRows(b.Bwd.Forward(tp, tp.ReverseRows(xs))) }
	if tp.train || tp.grads != nil || xs.NeedsGrad() || runtime.GOMAXPROCS(0) == 1 {
		return tp.Concat(b.Fwd.Forward(tp, xs), backward(tp))
	}
	// Inference: the directions are independent, so the backward one runs
	// beside on a tape of its own (a scan is sequential within itself).
	var f, r *Var[T]
	together(func() { f = b.Fwd.Forward(tp, xs) }, func() {
		side := NewTape[T](nil, 0)
		side.SetTrain(false)
		r = backward(side)
	})
	return tp.Concat(f, r)
}

// NewBiRNN, NewBiGRU and NewBiLSTM create bidirectional layers whose two
// directions are named name.fwd and name.bwd.
func NewBiRNN[T Float](ps *Params[T], name string, in, hidden int, rng *rand.Rand) *Bidirectional[T] {
	return &Bidirectional[T]{NewRNN(ps, name+".fwd", in, hidden, rng), NewRNN(ps, name+".bwd", in, hidden, rng)}
}

// NewBiGRU: see NewBiRNN.
func NewBiGRU[T Float](ps *Params[T], name string, in, hidden int, rng *rand.Rand) *Bidirectional[T] {
	return &Bidirectional[T]{NewGRU(ps, name+".fwd", in, hidden, rng), NewGRU(ps, name+".bwd", in, hidden, rng)}
}

// NewBiLSTM: see NewBiRNN.
func NewBiLSTM[T Float](ps *Params[T], name string, in, hidden int, rng *rand.Rand) *Bidirectional[T] {
	return &Bidirectional[T]{NewLSTM(ps, name+".fwd", in, hidden, rng), NewLSTM(ps, name+".bwd", in, hidden, rng)}
}

// RecurrentKinds lists the layers NewRecurrent builds.
var RecurrentKinds = []string{"rnn", "birnn", "lstm", "bilstm", "gru", "bigru"}

// NewRecurrent builds the recurrent layer called kind (one of
// RecurrentKinds) over in-dimensional steps. hidden 0 takes the
// input size, and half of it per direction
// for the bidirectional layers, which keeps their output the input's size.
func NewRecurrent[T Float](kind string, ps *Params[T], name string, in, hidden int, rng *rand.Rand) (SeqLayer[T], error) {
	bi := len(kind) > 2 && kind[:2] == "bi"
	if hidden == 0 {
		hidden = in
		if bi {
			hidden = max(in/2, 1)
		}
	}
	switch kind {
	case "rnn":
		return NewRNN(ps, name, in, hidden, rng), nil
	case "birnn":
		return NewBiRNN(ps, name, in, hidden, rng), nil
	case "lstm":
		return NewLSTM(ps, name, in, hidden, rng), nil
	case "bilstm":
		return NewBiLSTM(ps, name, in, hidden, rng), nil
	case "gru":
		return NewGRU(ps, name, in, hidden, rng), nil
	case "bigru":
		return NewBiGRU(ps, name, in, hidden, rng), nil
	}
	return nil, fmt.Errorf("recurrent layer %q: want one of %v", kind, RecurrentKinds)
}
