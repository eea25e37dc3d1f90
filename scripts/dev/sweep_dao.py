#!/usr/bin/env python3
"""The reference kernel (Dao-AILab/causal-conv1d) at the shapes of a bench JSON, beside the
bench's rows: a check of "faster on every row" beyond the record's fixed shapes.

Run on the accelerator after scripts/dao-build.sh (PYTHONPATH=/tmp/dao/causal-conv1d) and
`examples/bench --auto-only --table rows --table backward_rows --shape ...`
(scripts/dev/sweep_dao.sh does both):

    python3 scripts/dev/sweep_dao.py --ours bench.json --out DIR

Method, as the anchors kit's compare_dao.py times the reference (and as examples/bench times
hipconv): a CUDA graph of K calls over K rotating input sets (together over 3x L2),
replayed; the median replay / K, K counted as the bench counts it. Forward: every `auto` row of the bench (shape, dtype,
layout, with or without bias + SiLU). Backward: every `backward_rows` row (bias + SiLU,
dweight and dbias in fp32). Shapes the reference refuses (its channel-last kernels want
dim a multiple of 8) are listed as refused. Writes DIR/sweep.json and prints a table,
slowest speedup (reference µs / hipconv µs) first.
"""
import argparse, json, math, os, statistics
import torch

ap = argparse.ArgumentParser()
ap.add_argument("--ours", required=True)
ap.add_argument("--out", default=os.environ.get("OUT", "."))
ap.add_argument("--reps", type=int, default=30)
args = ap.parse_args()
torch.manual_seed(0)
dev = "cuda"
L2 = torch.cuda.get_device_properties(0).L2_cache_size
DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
import causal_conv1d_cuda as cc


def ev_time(fn, reps, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    return statistics.median(ts)


def graph_us(calls, reps):
    """Median microseconds per call of a graph that makes every call in `calls` once."""
    for c in calls:
        c()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for c in calls:
            c()
    return ev_time(g.replay, reps) * 1e3 / len(calls)


def sets_for(bytes_per_set):
    """Rotating sets, as examples/bench/timing.rs counts them: over 3x L2, 3 to 256."""
    return min(256, max(3, math.ceil(3 * max(L2, 50 << 20) / bytes_per_set)))


def make_x(B, D, L, dt, layout):
    if layout == "channel_first":
        return torch.randn(B, D, L, device=dev, dtype=dt)
    return torch.randn(B, L, D, device=dev, dtype=dt).transpose(1, 2)


def forward_us(B, D, L, K, dt, layout, silu):
    esz = torch.finfo(dt).bits // 8
    sets = sets_for(2 * B * D * L * esz)
    xs = [make_x(B, D, L, dt, layout) for _ in range(sets)]
    ys = [torch.empty_like(v) for v in xs]
    w = torch.randn(D, K, device=dev, dtype=dt)
    bias = torch.randn(D, device=dev, dtype=dt) if silu else None
    t = graph_us([(lambda i=i: cc.causal_conv1d_fwd(xs[i], w, bias, None, None, ys[i], None, silu))
                  for i in range(sets)], args.reps)
    return t, (2 * B * D * L + D * K + (D if silu else 0)) * esz


def backward_us(B, D, L, K, dt, layout):
    esz = torch.finfo(dt).bits // 8
    sets = sets_for(3 * B * D * L * esz)
    xs = [make_x(B, D, L, dt, layout) for _ in range(sets)]
    dys = [make_x(B, D, L, dt, layout) for _ in range(sets)]
    dxs = [torch.empty_like(v) for v in xs]
    w = torch.randn(D, K, device=dev, dtype=dt)
    bias = torch.randn(D, device=dev, dtype=dt)
    dw = torch.zeros(D, K, device=dev, dtype=torch.float32)
    db = torch.zeros(D, device=dev, dtype=torch.float32)
    t = graph_us([(lambda i=i: cc.causal_conv1d_bwd(xs[i], w, bias, dys[i], None, None, None, dxs[i], dw, db,
                                                    None, True)) for i in range(sets)], max(10, args.reps // 3))
    return t, (3 * B * D * L + 2 * D * K) * esz


x = torch.empty(1 << 30, dtype=torch.float16, device=dev).normal_()
y = torch.empty_like(x)
copy_gbps = 2 * x.numel() * 2 / (ev_time(lambda: y.copy_(x), 20) * 1e-3) / 1e9
del x, y
torch.cuda.empty_cache()
print(f"device {torch.cuda.get_device_name(0)}, copy {copy_gbps:.0f} GB/s", flush=True)

ours = json.load(open(args.ours))
out = []
todo = [(r, "forward") for r in ours.get("rows", []) if r["algorithm"] == "auto"]
todo += [(r, "backward") for r in ours.get("backward_rows", [])]
for r, what in todo:
    B, D, L, K = r["batch"], r["dim"], r["seqlen"], r["width"]
    dt = DTYPES[r["dtype"]]
    silu = bool(r.get("bias_silu", what == "backward"))
    row = dict(what=what, batch=B, dim=D, seqlen=L, width=K, dtype=r["dtype"], layout=r["layout"], bias_silu=silu,
               hipconv_us=r["median_us"], hipconv_pct_copy=r.get("pct_copy"))
    try:
        if what == "forward":
            t, bytes_ = forward_us(B, D, L, K, dt, r["layout"], silu)
        else:
            t, bytes_ = backward_us(B, D, L, K, dt, r["layout"])
        row.update(dao_us=round(t, 2), dao_pct_copy=round(100 * bytes_ / (t * 1e-6) / (copy_gbps * 1e9), 1),
                   speedup=round(t / r["median_us"], 3))
    except RuntimeError as err:  # the reference's own shape checks
        row.update(dao_us=None, refused=str(err).splitlines()[0][:120], speedup=None)
    torch.cuda.empty_cache()
    out.append(row)
    print(json.dumps(row), flush=True)

os.makedirs(args.out, exist_ok=True)
json.dump({"device": torch.cuda.get_device_name(0), "copy_GBps": copy_gbps,
           "ours_copy_GBps": ours.get("copy_bandwidth_gbs"), "rows": out},
          open(os.path.join(args.out, "sweep.json"), "w"), indent=1)
print(f"\ncopy GB/s: hipconv's run {ours.get('copy_bandwidth_gbs', 0):.0f}, this run {copy_gbps:.0f}")
print("| what | shape (b,d,l,w) | dtype | layout | bias+SiLU | Dao µs (% copy) | hipconv µs (% copy) | speedup |")
print("|---|---|---|---|---|---|---|---|")
for r in sorted(out, key=lambda r: (r["speedup"] is not None, r["speedup"] or 0)):
    dao = f"{r['dao_us']} ({r['dao_pct_copy']}%)" if r["dao_us"] is not None else f"refused: {r['refused']}"
    s = f"{r['speedup']:.2f}x" if r["speedup"] is not None else "-"
    print(f"| {r['what']} | ({r['batch']},{r['dim']},{r['seqlen']},{r['width']}) | {r['dtype']} | {r['layout']} | "
          f"{r['bias_silu']} | {dao} | {r['hipconv_us']:.2f} ({r['hipconv_pct_copy']}%) | {s} |")
timed = [r["speedup"] for r in out if r["speedup"] is not None]
if timed:
    print(f"\nslowest row vs Dao: {min(timed):.3f}x over {len(timed)} rows; "
          f"rows under 1.00x: {sum(1 for s in timed if s < 1.0)}")
