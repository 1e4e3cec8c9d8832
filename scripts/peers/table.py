#!/usr/bin/python3
"""Prints run.sh's results as a Markdown table per shape: each runtime's
rate in every round, and as2's ratios against ONNX Runtime fp32 and
PyTorch int8 computed within each round (the same window); and
families.sh's as one table of the Hugging Face families' base shapes, with
as2's ratios to PyTorch fp32 (float32) and PyTorch int8 (int8) per round.

    python3 scripts/peers/table.py /tmp/as2-peers/results.txt

Input lines: "<round> <runtime> <shape> <precision> <rate>",
"<round> kernels <description>" and "round N: load average ...".
"""
import collections
import sys

SHAPES = {
    "minilm": "MiniLM-L6 shape cross-encoder, 100 pairs of 128 tokens (pairs/s)",
    "uselite-cross": "built-in model's cross-encoder (USE-Lite), 100 pairs of 40 tokens (pairs/s)",
    "uselite-embed": "built-in model's sentence encoder (USE-Lite), 100 sentences of 32 tokens (sentences/s)",
}
FAMILIES = {
    "xlmr": "XLM-R base",
    "roberta": "RoBERTa base",
    "distilbert": "DistilBERT base",
    "electra": "ELECTRA base",
    "deberta": "DeBERTa-v3 base",
    "modernbert": "ModernBERT base",
}
ROWS = [
    (("as2", "float"), "as2 float32"),
    (("as2", "float-Score6x384"), "as2 float32 (BenchmarkScore6x384)"),
    (("as2", "float-single"), "as2 float32, one sentence a pass"),
    (("as2", "int8"), "as2 int8"),
    (("as2", "int8-single"), "as2 int8, one sentence a pass"),
    (("ort", "fp32"), "ONNX Runtime fp32"),
    (("torch", "fp32"), "PyTorch fp32"),
    (("torch", "int8"), "PyTorch int8 (dynamic)"),
]


def main(path):
    rate = {}  # (round, runtime, shape, precision) -> rate
    rounds, kernels, notes = [], set(), []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            w = line.split()
            if not w:
                continue
            if w[0] in ("round", "after:"):
                notes.append(line.strip())
                continue
            if len(w) >= 3 and w[1] == "kernels":
                kernels.add(" ".join(w[2:]))
                continue
            if len(w) != 5:
                sys.exit(f"{path}:{lineno}: want '<round> <runtime> <shape> <precision> <rate>', got {line.strip()!r}")
            try:
                r, v = int(w[0]), float(w[4])
            except ValueError:
                sys.exit(f"{path}:{lineno}: bad round or rate in {line.strip()!r}")
            rate[(r, w[1], w[2], w[3])] = v
            if r not in rounds:
                rounds.append(r)
    for n in notes:
        print(n)
    for k in sorted(kernels):
        print(f"as2 kernels: {k}")
    shapes = {w[2] for w in rate}
    if shapes & FAMILIES.keys():
        families(rate, rounds)
    for shape, title in SHAPES.items():
        if shape not in shapes:
            continue
        print(f"\n### {title}\n")
        runs = " | ".join(f"run {r}" for r in rounds)
        print(f"| runtime | {runs} | × ONNX Runtime fp32 | × PyTorch int8 |")
        print("|---|" + "---|" * (len(rounds) + 2))
        for (rt, prec), label in ROWS:
            vals = [rate.get((r, rt, shape, prec)) for r in rounds]
            if all(v is None for v in vals):
                continue

            def ratios(ref):
                out = []
                for r, v in zip(rounds, vals):
                    base = rate.get((r, ref[0], shape, ref[1]))
                    out.append(f"{v / base:.2f}" if v and base else "–")
                return ", ".join(out)

            cells = " | ".join(f"{v:.1f}" if v is not None else "–" for v in vals)
            print(f"| {label} | {cells} | {ratios(('ort', 'fp32'))} | {ratios(('torch', 'int8'))} |")


def families(rate, rounds):
    """One row per family and round: as2 and PyTorch, float32 and int8,
    and as2's ratio to PyTorch at the same precision in the same round."""
    print("\n### Hugging Face families at base shape, 32 pairs of 128 tokens (pairs/s)\n")
    print("| family | round | as2 float32 | PyTorch fp32 | × PyTorch fp32 | as2 int8 | PyTorch int8 | × PyTorch int8 |")
    print("|---|---|---|---|---|---|---|---|")
    cell = lambda v: f"{v:.2f}" if v is not None else "–"
    ratio = lambda a, b: f"{a / b:.2f}" if a and b else "–"
    for shape, title in FAMILIES.items():
        for r in rounds:
            af, tf = rate.get((r, "as2", shape, "float")), rate.get((r, "torch", shape, "fp32"))
            ai, ti = rate.get((r, "as2", shape, "int8")), rate.get((r, "torch", shape, "int8"))
            if all(v is None for v in (af, tf, ai, ti)):
                continue
            print(f"| {title} | {r} | {cell(af)} | {cell(tf)} | {ratio(af, tf)} | {cell(ai)} | {cell(ti)} | {ratio(ai, ti)} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: table.py RESULTS")
    main(sys.argv[1])
