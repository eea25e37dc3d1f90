# Two plain launches of the reference's backward (bias + SiLU, fp32 dweight/dbias), channel-first, for ncu.
import sys, torch
import causal_conv1d_cuda as cc
dt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[sys.argv[1]]
B, D, L, K = 8, 4096, 2048, 4
x = torch.randn(B, D, L, device="cuda", dtype=dt); dy = torch.randn_like(x); dx = torch.empty_like(x)
w = torch.randn(D, K, device="cuda", dtype=dt); bias = torch.randn(D, device="cuda", dtype=dt)
dw = torch.zeros(D, K, device="cuda", dtype=torch.float32); db = torch.zeros(D, device="cuda", dtype=torch.float32)
for _ in range(2):
    cc.causal_conv1d_bwd(x, w, bias, dy, None, None, None, dx, dw, db, None, True)
torch.cuda.synchronize()
print("profiled Dao bwd", sys.argv[1])
