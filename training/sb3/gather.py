"""The sparse first layer's arithmetic: ``x @ W.T`` for 0/1 vectors ``x`` given as
padded lists of their ones, computed on the ones only, forward and backward.

The batched engine lists each position's ones (``VectorGame.obs_indices``, about
60 of the 1,070 entries on average); the layer adds the weight columns they
name. Both directions are small numba loops: the forward parallel over the
batch; the backward turns the lists inside out (for each input, the rows
that name it: a counting sort) and adds each input's rows of the output
gradient, each thread owning a block of inputs, so no two threads add to
the same number. Measured against the backward that reads the lists row by
row (1.8x slower: its adds land all over a tile), torch's ``embedding_bag``
(its backward sorts and adds on one thread) and a sparse CSR product:
``python benchmarks/bench_train.py``.

May import: numpy, numba and torch.
"""

from __future__ import annotations

import numba
import numpy as np
import torch
from numba import njit, prange


@njit(parallel=True, fastmath=True, cache=True)
def _gather_rows(idx, table, pad, out):  # pragma: no cover - compiled
    """out[b] = sum of table[i] over the entries i of idx[b] before the first ``pad``."""
    batch, width = idx.shape
    n_out = table.shape[1]
    for b in prange(batch):
        for c in range(n_out):
            out[b, c] = 0.0
        for j in range(width):
            i = int(idx[b, j])
            if i == pad:
                break
            for c in range(n_out):
                out[b, c] += table[i, c]


@njit(cache=True)
def _invert(idx, pad, n_in):  # pragma: no cover - compiled
    """The lists turned inside out: for each input i, the rows b whose list names
    it, ascending, as (starts [n_in + 1], rows): i's rows are
    ``rows[starts[i]:starts[i + 1]]`` (a counting sort, linear in the ones)."""
    batch, width = idx.shape
    starts = np.zeros(n_in + 1, np.int64)
    for b in range(batch):
        for j in range(width):
            i = int(idx[b, j])
            if i == pad:
                break
            starts[i + 1] += 1
    for i in range(n_in):
        starts[i + 1] += starts[i]
    fill = starts[:-1].copy()
    rows = np.empty(starts[-1], np.int32)
    for b in range(batch):
        for j in range(width):
            i = int(idx[b, j])
            if i == pad:
                break
            rows[fill[i]] = b
            fill[i] += 1
    return starts, rows


#: Rows of the output gradient read per pass: a pass's rows stay in the core's
#: cache while every input it names adds them (512 rows of 256 floats).
CHUNK = 512


@njit(parallel=True, fastmath=True, cache=True)
def _add_rows(starts, rows, grad, out, blocks):  # pragma: no cover - compiled
    """out[i] = the sum of grad[b] over the rows b listed for input i. Thread k
    owns inputs block k and adds in float64 (its own tile, so no two threads
    write the same number, and the sum's rounding is that of float64), pass by
    pass over CHUNK rows of ``grad``."""
    n_in, n_out = out.shape
    batch = grad.shape[0]
    for k in prange(blocks):
        lo, hi = k * n_in // blocks, (k + 1) * n_in // blocks
        at = starts[lo:hi].copy()
        total = np.zeros((hi - lo, n_out), np.float64)
        for end in range(CHUNK, batch + CHUNK, CHUNK):
            for i in range(lo, hi):
                p, stop = at[i - lo], starts[i + 1]
                while p < stop and rows[p] < end:
                    b = rows[p]
                    for c in range(n_out):
                        total[i - lo, c] += grad[b, c]
                    p += 1
                at[i - lo] = p
        for i in range(lo, hi):
            for c in range(n_out):
                out[i, c] = total[i - lo, c]


def _threads() -> int:
    """numba's threads for one call: torch's setting (``torch_threads``), within
    what numba started with."""
    n = max(1, min(torch.get_num_threads(), numba.config.NUMBA_NUM_THREADS))
    if numba.get_num_threads() != n:
        numba.set_num_threads(n)
    return n


def _check(idx: np.ndarray, n_in: int, pad: int) -> None:
    """The lists' entries are inputs or the pad (the kernels index with them)."""
    if idx.size and (idx.min() < 0 or ((idx >= n_in) & (idx != pad)).any()):
        raise ValueError(f"index lists must hold entries 0..{n_in - 1} or the pad {pad}, got "
                         f"values from {idx.min()} to {idx.max()}")


class GatherSum(torch.autograd.Function):
    """``(indices [B, K], weight [out, in], pad) -> [B, out]``: the sum of the
    weight's columns at each row's listed entries (``pad`` entries are skipped).
    The gradient flows to ``weight`` only (the lists are data)."""

    @staticmethod
    def forward(ctx, indices, weight, pad):
        idx = indices.detach().contiguous().numpy()
        _check(idx, weight.shape[1], pad)
        table = weight.detach().t().contiguous().numpy()  # [in, out]: rows read whole
        out = np.empty((idx.shape[0], table.shape[1]), np.float32)
        _threads()
        _gather_rows(idx, table, pad, out)
        ctx.save_for_backward(indices)
        ctx.pad, ctx.shape = pad, tuple(weight.shape)
        return torch.from_numpy(out)

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        n_out, n_in = ctx.shape
        starts, rows = _invert(indices.detach().contiguous().numpy(), ctx.pad, n_in)
        out = np.empty((n_in, n_out), np.float32)
        _add_rows(starts, rows, grad.detach().contiguous().float().numpy(), out, _threads())
        return None, torch.from_numpy(out).t().contiguous().to(grad.dtype), None


def gather_sum(indices: torch.Tensor, weight: torch.Tensor, pad: int) -> torch.Tensor:
    """``x @ weight.T`` for the 0/1 vectors ``x`` whose ones are listed in
    ``indices`` ([B, K], any numeric dtype, padded with ``pad``)."""
    if indices.dtype not in (torch.int16, torch.int32, torch.int64, torch.float32):
        indices = indices.long()
    return GatherSum.apply(indices, weight, int(pad))
