"""Step time of each issue-16 option over its encoding's other setting, paired ABBA on the same random batch.

    python scripts/bench_encoding_options.py 4      # paired steps per option (model=small, 1 thread)

Random tokens (48 sentences x 24), forward + backward + AdamW; ratios only, measured in one run.
"""
import os
import sys
import time

import torch

from translate.assembly.compose import compose
from translate.assembly.trainer import model_from_config
torch.set_num_threads(1)
VOCAB, PAD = 8000, 0
PAIRS = [  # (encoding, option overrides, baseline overrides)
    ("shaw", ["encoding.per_layer=true"], ["encoding.per_layer=false"]),
    ("transformer_xl", ["encoding.per_layer=true"], ["encoding.per_layer=false"]),
    ("deberta", ["encoding.per_layer=true"], ["encoding.per_layer=false"]),
    ("deberta", ["encoding.relative_norm=layer_norm"], ["encoding.relative_norm=none"]),
    ("alibi", ["encoding.direction=directional"], ["encoding.direction=symmetric"]),
    ("kerple", ["encoding.direction=directional"], ["encoding.direction=symmetric"]),
    ("fire", ["encoding.direction=directional"], ["encoding.direction=symmetric"]),
    ("xpos", ["encoding.encoder_scaling=xpos"], ["encoding.encoder_scaling=none"]),
    ("urpe", ["encoding.toeplitz=bucketed"], ["encoding.toeplitz=exact"]),
    ("floater", ["encoding.integrate=deviation"], ["encoding.integrate=state"]),
]
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 4
g = torch.Generator().manual_seed(0)
src = torch.randint(4, VOCAB, (48, 24), generator=g)
tgt = torch.randint(4, VOCAB, (48, 25), generator=g)

def model(name, overrides):
    torch.manual_seed(0)
    m = model_from_config(compose("model=small", f"encoding={name}", *overrides), VOCAB, PAD)
    return m, torch.optim.AdamW(m.parameters(), 1e-4)

def step(pair):
    m, opt = pair
    t = time.perf_counter()
    loss = torch.nn.functional.cross_entropy(m.project(m(src, tgt[:, :-1])).transpose(1, 2), tgt[:, 1:])
    loss.backward(); opt.step(); opt.zero_grad()
    return time.perf_counter() - t

print(f"load {os.getloadavg()[0]:.2f}, {steps} paired steps, model=small, batch 48x24", flush=True)
for name, option, base in PAIRS:
    a, b = model(name, option), model(name, base)
    step(a); step(b)
    ta = tb = 0.0
    for i in range(steps):
        order = [(0, a), (1, b)] if i % 2 == 0 else [(1, b), (0, a)]
        for side, who in order:
            s = step(who)
            if side == 0: ta += s
            else: tb += s
    print(f"{name:15s} {' '.join(option):38s} vs {' '.join(base):36s} {ta / tb:.2f}", flush=True)
print(f"load {os.getloadavg()[0]:.2f}")
