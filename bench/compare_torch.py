#!/usr/bin/env python3
"""Baselines for examples/bench.rs, measured in the same device call, printed side by side.

For each bench shape and dtype (channel-first) it times:
  - torch_conv1d:  F.conv1d(x, w.unsqueeze(1), bias=None, padding=width-1, groups=dim)[..., :seqlen]
  - torch_unfold:  the seed's pipeline in torch: pad + unfold (im2col) and a matmul with the
                   dense block-diagonal weight, y = (A @ B.T) viewed back as [batch, dim, seqlen]
with the bench's method: K forwards over K rotating input sets (together > 3x L2) captured in
one CUDA graph, 3 warm-up replays, >= 50 timed replays (CUDA events), median / K.
TF32 is off, so fp32 is fp32.

usage: compare_torch.py --ours bench.json [--json torch.json] [--reps 50]
"""
import argparse
import json
import math
import statistics

import torch
import torch.nn.functional as F

SHAPES = [(1, 64, 2048, 4), (1, 64, 65536, 4), (4, 2048, 2048, 4), (8, 4096, 2048, 4),
          (4, 5120, 4096, 4), (8, 4096, 2048, 2), (8, 4096, 2048, 3), (4, 2048, 4096, 16)]
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
MAX_SETS = 256


def graph_time_us(make_forward, sets, reps):
    """Median microseconds per forward of `sets` forwards captured in one graph."""
    forwards = [make_forward(i) for i in range(sets)]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for f in forwards:
            f()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        outs = [f() for f in forwards]
    for _ in range(3):
        graph.replay()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / sets)
    del outs, graph
    return statistics.median(times)


def bench_shape(b, d, s, w, dtype, reps, l2):
    elem = torch.finfo(dtype).bits // 8
    sets = min(MAX_SETS, max(3, math.ceil(3 * l2 / (2 * b * d * s * elem))))
    xs = [torch.rand(b, d, s, device="cuda", dtype=dtype) * 2 - 1 for _ in range(sets)]
    weight = torch.rand(d, w, device="cuda", dtype=dtype) * 2 - 1
    conv_us = graph_time_us(
        lambda i: (lambda: F.conv1d(xs[i], weight.unsqueeze(1), None, padding=w - 1, groups=d)[..., :s]),
        sets, reps)
    # Dense block-diagonal B [d, w*d]: B[co, tap*d + ci] = (ci == co) * weight[co, tap]
    dense = torch.zeros(d, w, d, device="cuda", dtype=dtype)
    idx = torch.arange(d, device="cuda")
    dense[idx, :, idx] = weight
    dense = dense.reshape(d, w * d)

    def unfold_matmul(i):
        def run():
            a = F.pad(xs[i], (w - 1, 0)).unfold(2, w, 1)           # [b, d, s, w]
            a = a.permute(0, 2, 3, 1).reshape(b * s, w * d)          # im2col, tap-major columns
            return (a @ dense.T).view(b, s, d).transpose(1, 2)       # y [b, d, s] (view)
        return run
    unfold_us = graph_time_us(unfold_matmul, sets, reps) if b * s * w * d * elem <= (4 << 30) else None
    return conv_us, unfold_us, sets


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ours", required=True)
    parser.add_argument("--json", default="torch.json")
    parser.add_argument("--reps", type=int, default=50)
    args = parser.parse_args()
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    with open(args.ours) as f:
        ours = json.load(f)
    copy_bw = ours["copy_bandwidth_gbs"] * 1e9

    # Torch's own copy bandwidth as a cross-check of the bench's.
    src = torch.empty(1 << 30, device="cuda", dtype=torch.float16)
    dst = torch.empty_like(src)
    for _ in range(3):
        dst.copy_(src)
    times = []
    for _ in range(20):
        a, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); dst.copy_(src); e.record(); e.synchronize()
        times.append(a.elapsed_time(e) * 1e-3)
    torch_copy = 2 * src.numel() * 2 / statistics.median(times)
    del src, dst
    print(f"torch {torch.__version__} on {props.name}: copy {torch_copy / 1e9:.0f} GB/s "
          f"(bench measured {copy_bw / 1e9:.0f} GB/s)")

    def ours_us(shape, dtype, layout, algorithm):
        for r in ours["rows"]:
            if ((r["batch"], r["dim"], r["seqlen"], r["width"]) == shape and r["dtype"] == dtype
                    and r["layout"] == layout and r["algorithm"] == algorithm):
                return r["median_us"]
        return None

    rows = []
    header = (f"{'shape (b,d,s,w)':<22} {'dtype':<5} {'direct cf':>10} {'direct cl':>10} {'fused cf':>10} "
              f"{'fused cl':>10} {'im2col':>10} "
              f"{'torch conv':>10} {'torch unfold':>12} {'floor':>8} {'cf %copy':>8} {'conv/direct':>11}")
    print(header)
    for shape in SHAPES:
        if not any((r["batch"], r["dim"], r["seqlen"], r["width"]) == shape for r in ours["rows"]):
            continue
        for name, dtype in DTYPES.items():
            b, d, s, w = shape
            conv_us, unfold_us, sets = bench_shape(b, d, s, w, dtype, args.reps, l2)
            elem = torch.finfo(dtype).bits // 8
            floor_us = (2 * b * d * s + d * w) * elem / copy_bw * 1e6
            cf = ours_us(shape, name, "channel_first", "direct")
            cl = ours_us(shape, name, "channel_last", "direct")
            fcf = ours_us(shape, name, "channel_first", "fused_gemm")
            fcl = ours_us(shape, name, "channel_last", "fused_gemm")
            im2col = ours_us(shape, name, "channel_first", "im2col_gemm")
            fmt = lambda v: "-" if v is None else f"{v:.2f}"
            print(f"{str(shape):<22} {name:<5} {fmt(cf):>10} {fmt(cl):>10} {fmt(fcf):>10} {fmt(fcl):>10} "
                  f"{fmt(im2col):>10} {conv_us:>10.2f} "
                  f"{fmt(unfold_us):>12} {floor_us:>8.2f} {100 * floor_us / cf if cf else 0:>7.1f}% "
                  f"{conv_us / cf if cf else 0:>10.2f}x")
            rows.append({"shape": shape, "dtype": name, "torch_conv1d_us": conv_us, "torch_unfold_matmul_us": unfold_us,
                         "ours_direct_cf_us": cf, "ours_direct_cl_us": cl, "ours_fused_cf_us": fcf,
                         "ours_fused_cl_us": fcl, "ours_im2col_us": im2col,
                         "floor_us": floor_us, "sets": sets})
            torch.cuda.empty_cache()
    with open(args.json, "w") as f:
        json.dump({"device": props.name, "torch": torch.__version__, "copy_gbs_torch": torch_copy / 1e9,
                   "copy_gbs_bench": copy_bw / 1e9, "rows": rows}, f, indent=1)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
