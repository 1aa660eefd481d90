# localize's memory on a 1.07-billion-parameter Llama-shaped stack against plain forwards: the
# recorder keeps digests and the item's rows, so what it adds does not grow with the weights.
"""Usage: PYTHONPATH=<build>/python python3 bench/localize_memory.py plain|localize [cpu|cuda]

Prints the process's peak memory (resident on the CPU, allocated on CUDA) after two plain forwards
(the batch and the item alone) or after ``samebits.localize`` over the same two calls.
"""
import resource
import sys
import time

import torch

import samebits

D, F, LAYERS, TOKENS, ITEM = 2048, 8192, 16, 64, (16, 32)


class Block(torch.nn.Module):
    """A decoder block's ops: norms, a fused QKV, a row-wise stand-in for attention, SwiGLU."""

    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(D, 3 * D, bias=False)
        self.o = torch.nn.Linear(D, D, bias=False)
        self.up = torch.nn.Linear(D, 2 * F, bias=False)
        self.down = torch.nn.Linear(F, D, bias=False)
        self.n1, self.n2 = torch.nn.RMSNorm(D), torch.nn.RMSNorm(D)

    def forward(self, x):
        q, k, v = self.qkv(self.n1(x)).chunk(3, -1)
        x = x + self.o(v * torch.sigmoid(q * k))
        g, u = self.up(self.n2(x)).chunk(2, -1)
        return x + self.down(torch.nn.functional.silu(g) * u)


class Stack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(Block() for _ in range(LAYERS))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def peak_gb(device: str) -> float:
    if device == "cuda":
        return torch.cuda.max_memory_allocated() / 2**30
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main(mode: str, device: str) -> None:
    torch.manual_seed(0)
    model = Stack().eval().to(device)
    params = sum(p.numel() for p in model.parameters())
    x = torch.randn(TOKENS, D, device=device)
    item = x[ITEM[0]:ITEM[1]]
    built = peak_gb(device)
    begin = time.perf_counter()
    if mode == "plain":
        with torch.no_grad():
            model(x)
            model(item)
    else:
        found = samebits.localize(model, item, x, rows=samebits.Packed(ITEM[0]), stacks=False,
                                  kernels=False)
        print(found)
    print(f"{mode} on {device}: {params / 1e9:.2f} B parameters, peak {peak_gb(device):.2f} GB "
          f"({built:.2f} GB with the model built), {time.perf_counter() - begin:.1f} s")


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("plain", "localize"):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "cpu")
