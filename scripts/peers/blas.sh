# Sourced by the peer scripts after python3-torch is installed. Debian's
# PyTorch runs its fp32 matrix products through libblas.so.3, which is the
# reference BLAS (one thread, unblocked: about 20 times slower) unless an
# optimised one is installed: a peer timed on it would flatter as2. Install
# OpenBLAS (its alternative then wins) and print which BLAS the run uses.
blas=$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null || true)
case $blas in
*openblas*) ;;
*)
	echo "PyTorch's BLAS is $blas: installing OpenBLAS (Debian) ..." >&2
	{ apt-get update -qq && apt-get install -y -qq libopenblas0-pthread >&2; } ||
		{ echo "no OpenBLAS: PyTorch's fp32 rates would be the reference BLAS's" >&2; exit 1; }
	blas=$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3)
	;;
esac
echo "PyTorch's BLAS: $blas"
