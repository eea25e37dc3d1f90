#!/usr/bin/env python3
"""Markdown table for docs/PERFORMANCE.md from one run's bench.json (and torch.json, if given).

    python3 bench/perf_table.py docs/perf/<version>/bench.json [docs/perf/<version>/torch.json]

Per shape, dtype and epilogue: the floor (bytes / copy bandwidth of that run), each
algorithm and layout in µs with % of copy, what `Auto` ran (from the bench's `auto` rows,
which record the algorithm it resolved to), and torch's baselines where a torch.json is given.
A bench run with `--auto-only` fills only the Auto columns.
"""
import json
import sys


def main():
    bench = json.load(open(sys.argv[1]))
    torch = {}
    if len(sys.argv) > 2:
        torch = {(tuple(r["shape"]), r["dtype"]): r for r in json.load(open(sys.argv[2]))["rows"]}
    copy = bench["copy_bandwidth_gbs"] * 1e9
    rows = {}
    for r in bench["rows"]:
        key = ((r["batch"], r["dim"], r["seqlen"], r["width"]), r["dtype"], r.get("bias_silu", False))
        rows.setdefault(key, {})[(r["algorithm"], r["layout"])] = r

    def cell(r):
        return "—" if r is None else f"{r['median_us']:.1f} ({r['pct_copy']:.0f}%)"

    def auto(r):
        return "—" if r is None else f"{cell(r)} {r.get('resolved', r['algorithm'])}"

    print("| shape (b,d,s,w) | dtype | bias+SiLU | floor µs | Auto cf | Auto cl | direct cf | direct cl "
          "| fused_gemm cf | fused_gemm cl | im2col_gemm | torch conv1d | torch unfold+matmul |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (shape, dtype, bias_silu), algos in rows.items():
        any_row = next(iter(algos.values()))
        floor = any_row["bytes"] / copy * 1e6
        get = lambda a, l: algos.get((a, l))
        b, d, s, w = shape
        t = torch.get((shape, dtype), {}) if not bias_silu else {}
        fmt = lambda v: "—" if v is None else f"{v:.1f}"
        print(f"| ({b},{d},{s},{w}) | {dtype} | {'yes' if bias_silu else 'no'} | {floor:.1f} "
              f"| {auto(get('auto', 'channel_first'))} | {auto(get('auto', 'channel_last'))} "
              f"| {cell(get('direct', 'channel_first'))} | {cell(get('direct', 'channel_last'))} "
              f"| {cell(get('fused_gemm', 'channel_first'))} | {cell(get('fused_gemm', 'channel_last'))} "
              f"| {cell(get('im2col_gemm', 'channel_first'))} "
              f"| {fmt(t.get('torch_conv1d_us'))} | {fmt(t.get('torch_unfold_matmul_us'))} |")


if __name__ == "__main__":
    main()
