"""A model of PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp, read @ 001074d2:
kMinBlockSize, kSmallSize, kSmallBuffer, kMinLargeAlloc, kRoundLarge, Note [Expandable Segments]),
for docs/memory-model.md, "A replay of the caching allocator" (issue 23): 512 B rounding,
small pool (<=1 MiB) in 2 MiB segments, 1-10 MiB requests in 20 MiB segments, larger rounded to
2 MiB; best fit by (stream, size); split when the remainder is > 1 MiB (large) / >= 512 B (small);
free blocks merge with free neighbours in their segment; segments never released. Expandable
segments: one segment per (stream, pool) growing by pages (2 MiB small, 20 MiB large)."""
import bisect

kMin = 512
kSmallSize = 1 << 20
kSmallBuffer = 2 << 20
kMinLargeAlloc = 10 << 20
kLargeBuffer = 20 << 20
kRoundLarge = 2 << 20


def round_size(n):
    return kMin if n < kMin else kMin * ((n + kMin - 1) // kMin)


def alloc_size(n):
    if n <= kSmallSize:
        return kSmallBuffer
    if n < kMinLargeAlloc:
        return kLargeBuffer
    return kRoundLarge * ((n + kRoundLarge - 1) // kRoundLarge)


class Block:
    __slots__ = ("addr", "size", "free", "prev", "next", "seg", "stream", "small")

    def __init__(self, addr, size, seg, stream, small):
        self.addr, self.size, self.free, self.prev, self.next = addr, size, True, None, None
        self.seg, self.stream, self.small = seg, stream, small


class Allocator:
    def __init__(self, expandable=False):
        self.expandable = expandable
        self.free = {}  # (stream, small) -> sorted list of (size, addr, block)
        self.next_addr = 0
        self.reserved = 0
        self.allocated = 0
        self.max_reserved = 0
        self.max_allocated = 0
        self.segments = {}  # expandable: (stream, small) -> [base, mapped, last block]

    def _pool(self, stream, small):
        return self.free.setdefault((stream, small), [])

    def _insert(self, b):
        bisect.insort(self._pool(b.stream, b.small), (b.size, b.addr, id(b), b))

    def _remove(self, b):
        pool = self._pool(b.stream, b.small)
        i = bisect.bisect_left(pool, (b.size, b.addr, id(b), b))
        assert pool[i][3] is b
        pool.pop(i)

    def malloc(self, nbytes, stream=0):
        size = round_size(nbytes)
        small = size <= kSmallSize
        pool = self._pool(stream, small)
        i = bisect.bisect_left(pool, (size, -1, -1, None)) if pool else 0
        if i < len(pool):
            b = pool[i][3]
            self._remove(b)
        elif self.expandable:
            b = self._expand(size, stream, small)
        else:
            seg = alloc_size(size)
            b = Block(self.next_addr, seg, None, stream, small)
            b.seg = b
            self.next_addr += seg + (1 << 30)
            self.reserved += seg
        rem = b.size - size
        if (small and rem >= kMin) or (not small and rem > kSmallSize):
            r = Block(b.addr + size, rem, b.seg, stream, small)
            r.prev, r.next = b, b.next
            if b.next:
                b.next.prev = r
            b.next = r
            b.size = size
            self._insert(r)
            if self.expandable and self.segments.get((stream, small), [0, 0, None])[2] is b:
                self.segments[(stream, small)][2] = r
        b.free = False
        self.allocated += b.size
        self.max_allocated = max(self.max_allocated, self.allocated)
        self.max_reserved = max(self.max_reserved, self.reserved)
        return b

    def _expand(self, size, stream, small):
        page = kSmallBuffer if small else kLargeBuffer
        key = (stream, small)
        if key not in self.segments:
            base = self.next_addr
            self.next_addr += 1 << 44
            self.segments[key] = [base, 0, None]
        seg = self.segments[key]
        last = seg[2]
        tail = last if (last is not None and last.free) else None
        have = tail.size if tail else 0
        need = size - have
        pages = (need + page - 1) // page
        self.reserved += pages * page
        if tail:
            self._remove(tail)
            tail.size += pages * page
            seg[1] += pages * page
            return tail
        b = Block(seg[0] + seg[1], pages * page, None, stream, small)
        b.prev = last
        if last:
            last.next = b
        seg[1] += pages * page
        seg[2] = b
        return b

    def free_block(self, b):
        b.free = True
        self.allocated -= b.size
        for nb in (b.prev, b.next):
            if nb is not None and nb.free:
                self._remove(nb)
                if nb is b.prev:
                    nb.size += b.size
                    nb.next = b.next
                    if b.next:
                        b.next.prev = nb
                    if self.expandable and self.segments.get((b.stream, b.small), [0, 0, None])[2] is b:
                        self.segments[(b.stream, b.small)][2] = nb
                    b = nb
                else:
                    b.size += nb.size
                    b.next = nb.next
                    if nb.next:
                        nb.next.prev = b
                    if self.expandable and self.segments.get((b.stream, b.small), [0, 0, None])[2] is nb:
                        self.segments[(b.stream, b.small)][2] = b
        self._insert(b)


class Tracker:
    """Named tensors over an allocator."""

    def __init__(self, expandable=False):
        self.a = Allocator(expandable)
        self.live = {}

    def new(self, name, nbytes, stream=0):
        assert name not in self.live, name
        self.live[name] = self.a.malloc(int(nbytes), stream)

    def drop(self, *names):
        for n in names:
            self.a.free_block(self.live.pop(n))

    def drop_prefix(self, prefix):
        for n in [n for n in self.live if n.startswith(prefix)]:
            self.drop(n)
