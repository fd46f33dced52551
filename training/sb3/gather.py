"""The sparse first layer's arithmetic: ``x @ W.T`` for 0/1 vectors ``x`` given as
padded lists of their ones, computed on the ones only, forward and backward.

The batched engine lists each position's ones (``VectorGame.obs_indices``, about
60 of the 1,070 entries on average); the layer adds the weight columns they
name. Both directions are small numba loops: the forward parallel over the
batch; the backward turns the lists inside out (for each input, the rows
that name it: a counting sort) and adds each input's rows of the output
gradient, each thread owning whole inputs, so no two threads add to the
same number. Measured against the backward that reads the lists row by row
(1.8x slower: its adds land all over a tile), torch's ``embedding_bag`` (its
backward sorts and adds on one thread) and a sparse CSR product.

:func:`relu_layer` is the trunk's whole first layer in one pass each way:
the gather, the bias, the ReLU and, for a critic that sees every hand, the
value's second pre-activation (the privileged part's product added) and its
ReLU, written in bfloat16 when autocast asks for it. Each of those was a
pass of its own over a [8192, 256] tensor in torch (profiled: 40 % of an
update's time went to such passes, not to products).

May import: numpy, numba and torch.
"""

from __future__ import annotations

import numba
import numpy as np
import torch
from numba import njit, prange, types
from numba.extending import intrinsic, overload


# bfloat16 arrays cross into numba as their bits (uint16): the upper half of a
# float32's bits, rounded to nearest even as torch rounds them.

@intrinsic
def _bits_as_f32(typingctx, bits):  # pragma: no cover - compiled
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float32))
    return types.float32(types.uint32), codegen


@intrinsic
def _f32_as_bits(typingctx, value):  # pragma: no cover - compiled
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.uint32))
    return types.uint32(types.float32), codegen


def _load(a, b, c):  # pragma: no cover - numba's overload below
    """a[b, c] as a float32 (a: float32, or bfloat16 bits)."""


@overload(_load)
def _load_impl(a, b, c):  # pragma: no cover - compiled
    if a.dtype == types.uint16:
        return lambda a, b, c: _bits_as_f32(np.uint32(a[b, c]) << np.uint32(16))
    return lambda a, b, c: np.float32(a[b, c])


def _store(a, b, c, value):  # pragma: no cover - numba's overload below
    """a[b, c] = value (a: float32, or bfloat16 bits, rounded to nearest even)."""


@overload(_store)
def _store_impl(a, b, c, value):  # pragma: no cover - compiled
    if a.dtype == types.uint16:
        def to_bits(a, b, c, value):
            bits = _f32_as_bits(np.float32(value))
            half = (bits >> np.uint32(16)) & np.uint32(1)
            a[b, c] = np.uint16((bits + np.uint32(0x7FFF) + half) >> np.uint32(16))
        return to_bits

    def plain(a, b, c, value):
        a[b, c] = value
    return plain


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


@njit(parallel=True, fastmath=True, cache=True)
def _add_rows(starts, rows, grad, out):  # pragma: no cover - compiled
    """out[i] = the sum of grad[b] over the rows b listed for input i (grad:
    float32, or bfloat16 bits), in float32: each thread owns whole inputs, so no
    two threads add to the same number. A float64 sum in passes of 512 rows
    (to keep them in the core's cache) took 1.5x as long on real lists."""
    n_in, n_out = out.shape
    for i in prange(n_in):
        for c in range(n_out):
            out[i, c] = 0
        for p in range(starts[i], starts[i + 1]):
            b = rows[p]
            for c in range(n_out):
                out[i, c] += _load(grad, b, c)


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


def gather_rows(idx: np.ndarray, table: np.ndarray, pad: int) -> np.ndarray:
    """[B, out] float32: each row's sum of ``table``'s rows [in, out] named in its
    list ``idx[b]``, up to its first ``pad`` (no gradient; the kernel checks nothing)."""
    out = np.empty((idx.shape[0], table.shape[1]), np.float32)
    _threads()
    _gather_rows(idx, table, pad, out)
    return out


class GatherSum(torch.autograd.Function):
    """``(indices [B, K], weight [out, in], pad) -> [B, out]``: the sum of the
    weight's columns at each row's listed entries (``pad`` entries are skipped).
    The gradient flows to ``weight`` only (the lists are data)."""

    @staticmethod
    def forward(ctx, indices, weight, pad):
        idx = indices.detach().contiguous().numpy()
        _check(idx, weight.shape[1], pad)
        table = weight.detach().t().contiguous().numpy()  # [in, out]: rows read whole
        ctx.save_for_backward(indices)
        ctx.pad, ctx.shape = pad, tuple(weight.shape)
        return torch.from_numpy(gather_rows(idx, table, pad))

    @staticmethod
    def backward(ctx, grad):
        (indices,) = ctx.saved_tensors
        n_out, n_in = ctx.shape
        starts, rows = _invert(indices.detach().contiguous().numpy(), ctx.pad, n_in)
        out = np.empty((n_in, n_out), np.float32)
        _threads()
        _add_rows(starts, rows, grad.detach().contiguous().float().numpy(), out)
        return None, torch.from_numpy(out).t().contiguous().to(grad.dtype), None


def _lists(indices: torch.Tensor) -> torch.Tensor:
    """Index lists in a dtype the kernels read (SB3's buffer keeps them float32)."""
    if indices.dtype not in (torch.int16, torch.int32, torch.int64, torch.float32):
        return indices.long()
    return indices


def gather_sum(indices: torch.Tensor, weight: torch.Tensor, pad: int) -> torch.Tensor:
    """``x @ weight.T`` for the 0/1 vectors ``x`` whose ones are listed in
    ``indices`` ([B, K], any numeric dtype, padded with ``pad``)."""
    return GatherSum.apply(_lists(indices), weight, int(pad))


#: Rows per task of the fused kernels (each task keeps one accumulator row).
ROWS = 64


@njit(parallel=True, fastmath=True, cache=True)
def _relu_layer(idx, table, bias, pad, extra, out, out_extra):  # pragma: no cover
    """out[b] = relu(bias + the table's rows listed in idx[b]); with ``extra``
    (else an empty array) out_extra[b] = relu(that sum + extra[b])."""
    batch, width = idx.shape
    n_out = table.shape[1]
    with_extra = extra.shape[0] > 0
    for task in prange((batch + ROWS - 1) // ROWS):
        acc = np.empty(n_out, np.float32)
        for b in range(task * ROWS, min(batch, (task + 1) * ROWS)):
            for c in range(n_out):
                acc[c] = bias[c]
            for j in range(width):
                i = int(idx[b, j])
                if i == pad:
                    break
                for c in range(n_out):
                    acc[c] += _load(table, i, c)
            for c in range(n_out):
                _store(out, b, c, max(acc[c], np.float32(0)))
            if with_extra:
                for c in range(n_out):
                    _store(out_extra, b, c, max(acc[c] + _load(extra, b, c), np.float32(0)))


@njit(parallel=True, fastmath=True, cache=True)
def _relu_grads(grad, grad_extra, out, out_extra, pre, pre_extra, sums):  # pragma: no cover
    """The ReLUs' backward: pre = grad where out > 0, plus grad_extra where
    out_extra > 0 (grad or grad_extra empty: no gradient came); pre_extra = the
    second term (when it has rows); sums[task] = the sum of pre's rows of each
    task of ROWS rows, in float32 (the bias's gradient, summed by the caller)."""
    batch, n_out = pre.shape
    with_grad, with_extra = grad.shape[0] > 0, grad_extra.shape[0] > 0
    for task in prange((batch + ROWS - 1) // ROWS):
        for c in range(n_out):
            sums[task, c] = 0
        for b in range(task * ROWS, min(batch, (task + 1) * ROWS)):
            for c in range(n_out):
                g = np.float32(0)
                if with_grad and _load(out, b, c) > 0:
                    g = _load(grad, b, c)
                e = np.float32(0)
                if with_extra and _load(out_extra, b, c) > 0:
                    e = _load(grad_extra, b, c)
                _store(pre, b, c, g + e)
                sums[task, c] += g + e
                if pre_extra.shape[0] > 0:
                    _store(pre_extra, b, c, e)


def _bits(t: torch.Tensor) -> np.ndarray:
    """A float32 tensor's array, or a bfloat16 tensor's bits (uint16), contiguous."""
    t = t.detach().contiguous()
    return t.view(torch.int16).numpy().view(np.uint16) if t.dtype == torch.bfloat16 else t.numpy()


def _new(rows: int, cols: int, dtype: torch.dtype) -> tuple[torch.Tensor, np.ndarray]:
    """A new tensor and the array numba writes into (bfloat16: its bits)."""
    t = torch.empty((rows, cols), dtype=dtype)
    return t, _bits(t) if dtype == torch.bfloat16 else t.numpy()


class ReluLayer(torch.autograd.Function):
    """``(indices, weight, bias, extra, pad, dtype) -> (relu(x W^T + b), relu(x W^T
    + b + extra))`` for the 0/1 vectors x listed in ``indices``; without ``extra``
    (None) the second output is an empty tensor. Gradients flow to the weight,
    the bias and ``extra``."""

    @staticmethod
    def forward(ctx, indices, weight, bias, extra, pad, dtype, table):
        indices = indices.detach().contiguous()  # once: the backward reads it too
        idx = indices.numpy()
        n_out, n_in = weight.shape
        _check(idx, n_in, pad)
        table = _bits(weight_table(weight, dtype) if table is None else table)
        out, out_a = _new(len(idx), n_out, dtype)
        rows = len(idx) if extra is not None else 0
        out_extra, out_extra_a = _new(rows, n_out, dtype)
        extra_a = _bits(extra) if extra is not None else out_extra_a
        _threads()
        _relu_layer(idx, table, bias.detach().float().contiguous().numpy(), pad, extra_a, out_a,
                    out_extra_a)
        ctx.save_for_backward(indices, out, out_extra)
        ctx.pad, ctx.shape, ctx.dtype = pad, (n_out, n_in), dtype
        ctx.extra_dtype = None if extra is None else extra.dtype
        ctx.set_materialize_grads(False)
        if extra is None:
            ctx.mark_non_differentiable(out_extra)
        return out, out_extra

    @staticmethod
    def backward(ctx, grad, grad_extra):
        indices, out, out_extra = ctx.saved_tensors
        n_out, n_in = ctx.shape
        if grad is None and grad_extra is None:
            return None, None, None, None, None, None, None
        none = np.empty((0, n_out), np.float32)
        pre, pre_a = _new(len(out), n_out, ctx.dtype)
        with_extra = ctx.extra_dtype is not None and grad_extra is not None
        d_extra, d_extra_a = _new(len(out) if with_extra else 0, n_out,
                                  ctx.extra_dtype or torch.float32)
        sums = np.empty(((len(out) + ROWS - 1) // ROWS, n_out), np.float32)
        _threads()
        _relu_grads(none if grad is None else _bits(grad),
                    none if not with_extra else _bits(grad_extra),
                    _bits(out), _bits(out_extra) if with_extra else none, pre_a, d_extra_a, sums)
        starts, rows = _invert(indices.detach().contiguous().numpy(), ctx.pad, n_in)
        d_weight = np.empty((n_in, n_out), np.float32)
        _add_rows(starts, rows, pre_a, d_weight)
        d_bias = torch.from_numpy(sums).sum(0)
        return (None, torch.from_numpy(d_weight).t().contiguous(), d_bias,
                d_extra if with_extra else None, None, None, None)


def layer_dtype() -> torch.dtype:
    """What the fused layer computes its outputs in: bfloat16 under CPU autocast
    to bfloat16 (what the next product reads), else float32."""
    if torch.is_autocast_enabled("cpu") and torch.get_autocast_dtype("cpu") == torch.bfloat16:
        return torch.bfloat16
    return torch.float32


def weight_table(weight: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """The weight [out, in] as the kernels read it: [in, out], contiguous, in
    ``dtype`` (in bfloat16 as autocast's product would read it: the reads of the
    table's rows bound the forward's time, and bfloat16 halves them)."""
    return weight.detach().t().to(dtype).contiguous()


def relu_layer(indices: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, pad: int,
               extra: torch.Tensor | None = None, table: torch.Tensor | None = None
               ) -> tuple[torch.Tensor, torch.Tensor | None]:
    """``(relu(x W^T + b), relu(x W^T + b + extra) or None)`` for the 0/1 vectors
    ``x`` listed in ``indices`` (padded with ``pad``), in one pass, in
    :func:`layer_dtype`. ``table``: the weight's :func:`weight_table` in that
    dtype, if the caller keeps it between calls (a rollout's many small
    batches; else made here)."""
    dtype = layer_dtype()
    if extra is not None and extra.dtype not in (torch.float32, torch.bfloat16):
        extra = extra.float()
    if table is not None and (table.dtype != dtype or table.shape != weight.shape[::-1]):
        raise ValueError(f"table: the weight's {dtype} table {tuple(weight.shape[::-1])}, got "
                         f"{table.dtype} {tuple(table.shape)}")
    out, out_extra = ReluLayer.apply(_lists(indices), weight, bias, extra, int(pad), dtype,
                                     table)
    return out, (out_extra if extra is not None else None)
