#!/usr/bin/env python3
"""Markdown table for docs/PERFORMANCE.md from one run's bench.json and torch.json.

    python3 bench/perf_table.py docs/perf/<version>/bench.json docs/perf/<version>/torch.json

Per shape and dtype: the floor (bytes / copy bandwidth of that run), each algorithm and
layout in µs with % of copy, the algorithm Auto picks, and torch's baselines.
"""
import json
import sys


def main():
    bench = json.load(open(sys.argv[1]))
    torch = {(tuple(r["shape"]), r["dtype"]): r for r in json.load(open(sys.argv[2]))["rows"]}
    copy = bench["copy_bandwidth_gbs"] * 1e9
    rows = {}
    for r in bench["rows"]:
        key = ((r["batch"], r["dim"], r["seqlen"], r["width"]), r["dtype"])
        rows.setdefault(key, {})[(r["algorithm"], r["layout"])] = r

    def cell(r):
        return "—" if r is None else f"{r['median_us']:.1f} ({r['pct_copy']:.0f}%)"

    print("| shape (b,d,s,w) | dtype | floor µs | direct cf | direct cl | fused_gemm cf | fused_gemm cl "
          "| im2col_gemm | torch conv1d | torch unfold+matmul | Auto cf / cl |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (shape, dtype), algos in rows.items():
        any_row = next(iter(algos.values()))
        floor = any_row["bytes"] / copy * 1e6
        get = lambda a, l: algos.get((a, l))
        b, d, s, w = shape
        # src/conv1d/check.rs, auto_algorithm
        large_half = dtype != "f32" and w <= 4 and b * d * s >= 1 << 25
        auto_cf = "fused_gemm" if 5 <= w <= 512 or large_half else "direct"
        auto_cl = "fused_gemm" if dtype != "f32" and 32 <= w <= 512 else "direct"
        t = torch.get((shape, dtype), {})
        fmt = lambda v: "—" if v is None else f"{v:.1f}"
        print(f"| ({b},{d},{s},{w}) | {dtype} | {floor:.1f} | {cell(get('direct', 'channel_first'))} "
              f"| {cell(get('direct', 'channel_last'))} | {cell(get('fused_gemm', 'channel_first'))} "
              f"| {cell(get('fused_gemm', 'channel_last'))} | {cell(get('im2col_gemm', 'channel_first'))} "
              f"| {fmt(t.get('torch_conv1d_us'))} | {fmt(t.get('torch_unfold_matmul_us'))} | {auto_cf} / {auto_cl} |")


if __name__ == "__main__":
    main()
