"""The sparse first layer's arithmetic: ``x @ W.T`` for 0/1 vectors ``x`` given as
padded lists of their ones, computed on the ones only, forward and backward.

The batched engine lists each position's ones (``VectorGame.obs_indices``, about
60 of the 1,070 entries on average); the layer adds the weight columns they
name. Both directions are small numba loops, parallel over the batch
(forward) or over blocks of output units (backward: each thread owns its
columns of the weight's gradient, so no two threads add to the same number
and nothing needs sorting). Measured against torch's ``embedding_bag``,
whose backward sorts the indices and adds rows on one thread, and against a
sparse CSR product: ``python benchmarks/bench_train.py``.

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


#: Positions summed in float32 before they are added to the float64 total: the
#: gradient's rounding stays that of a short sum (measured: 4e-8 of the largest
#: entry off the float64 layer on 15,360 real positions, where MKL's float32
#: product is 1.2e-5 off), at the speed of float32 adds.
CHUNK = 512


@njit(parallel=True, fastmath=True, cache=True)
def _scatter_rows(idx, grad, pad, out):  # pragma: no cover - compiled
    """out[k, i] += grad[b, block k] for every entry i of idx[b] before the first
    ``pad``: thread k owns the output columns of block k, its own [in, width]
    float64 tile, so no two threads write the same number."""
    batch, width = idx.shape
    blocks, n_in, step = out.shape
    for k in prange(blocks):
        c0 = k * step
        part = np.zeros((n_in, step), np.float32)
        for start in range(0, batch, CHUNK):
            for b in range(start, min(batch, start + CHUNK)):
                for j in range(width):
                    i = int(idx[b, j])
                    if i == pad:
                        break
                    for c in range(step):
                        part[i, c] += grad[b, c0 + c]
            for i in range(n_in):
                for c in range(step):
                    out[k, i, c] += part[i, c]
                    part[i, c] = 0.0


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
        g = grad.detach().contiguous().float().numpy()
        blocks = _threads()
        while n_out % blocks:
            blocks -= 1
        tiles = np.zeros((blocks, n_in, n_out // blocks), np.float64)
        _scatter_rows(indices.detach().contiguous().numpy(), g, ctx.pad, tiles)
        # [blocks, in, width] -> the weight's [out, in]
        grad_weight = torch.from_numpy(tiles).permute(0, 2, 1).reshape(n_out, n_in)
        return None, grad_weight.to(grad.dtype), None


def gather_sum(indices: torch.Tensor, weight: torch.Tensor, pad: int) -> torch.Tensor:
    """``x @ weight.T`` for the 0/1 vectors ``x`` whose ones are listed in
    ``indices`` ([B, K], any numeric dtype, padded with ``pad``)."""
    if indices.dtype not in (torch.int16, torch.int32, torch.int64, torch.float32):
        indices = indices.long()
    return GatherSum.apply(indices, weight, int(pad))
