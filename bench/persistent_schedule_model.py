# A model of the wgmma prefill's persistent schedule: how far a launch's slowest SM is from an
# even share, for the snake order, plain round robin and a dynamic counter, at issue 32's bar shapes.
"""Each 128-row block costs its 64-key tiles plus a per-block overhead (in tiles); blocks come in
launch_order.h's order (sections of (sequence, head) pairs whose keys fit half the L2, inside a
section the longest query tile first). Prints each schedule's makespan over the lower bound
(total / SMs). A model only: it says which schedule to measure, not how fast."""
import heapq
def block_place(linear, q_tiles, head_blocks, sequences, section):
    if section <= 0:
        pair = linear // q_tiles
        return pair // head_blocks, pair % head_blocks, q_tiles - 1 - linear % q_tiles
    pairs = head_blocks * sequences
    from_end = pairs * q_tiles - 1 - linear
    s = from_end // (section * q_tiles)
    left = pairs - s * section
    size = left if left < section else section
    r = from_end - s * section * q_tiles
    pair = s * section + r % size
    return pair // head_blocks, pair % head_blocks, r // size
def run(name, B, H, L, gqa, G=132, over=1.0):
    pack = gqa; tok = 128 // pack; q_tiles = (L + tok - 1) // tok; hb = H // pack
    pair_bytes = L * 128 * 4; pairs = hb * B
    section = max(1, min(26214400 // pair_bytes, pairs))
    items = []
    for lin in range(q_tiles * hb * B):
        b, h, q = block_place(lin, q_tiles, hb, B, section)
        keys = min(L, tok * (q + 1))
        items.append((keys + 63) // 64 + over)
    total = sum(items); lb = total / G
    # static snake
    loads = [0.0] * G
    r = 0
    while r * G < len(items):
        for blk in range(G):
            lane = blk if r % 2 == 0 else G - 1 - blk
            n = r * G + lane
            if n < len(items): loads[blk] += items[n]
        r += 1
    snake = max(loads)
    # static plain round robin
    loads2 = [0.0] * G
    for n, c in enumerate(items): loads2[n % G] += c
    # dynamic greedy in launch order
    heap = [0.0] * G
    for c in items:
        t = heapq.heappop(heap); heapq.heappush(heap, t + c)
    dyn = max(heap)
    # LPT (sorted)
    heap = [0.0] * G
    for c in sorted(items, reverse=True):
        t = heapq.heappop(heap); heapq.heappush(heap, t + c)
    lpt = max(heap)
    print(f"{name}: items {len(items)} section {section} lower bound {lb:.0f}; snake {snake/lb:.3f}, round-robin {max(loads2)/lb:.3f}, dynamic {dyn/lb:.3f}, LPT {lpt/lb:.3f}")
for over in (1.0, 3.0):
    print('per-item overhead', over, 'tiles')
    run('4x4096', 4, 32, 4096, 1, over=over)
    run('16x1024', 16, 32, 1024, 4, over=over)
    run('1x16k', 1, 32, 16384, 4, over=over)
