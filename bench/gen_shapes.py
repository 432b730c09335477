"""HPC-shaped lineage DAGs for benchmarks, deterministic for a seed: edges ``(child, parent)``
("child was derived from parent") over integer node ids ``0..n-1``.

- ``layered``: layers ``width`` wide, each node derived from 2 nodes of the layer above.
- ``montage``: Montage's shape: images -> projections (1:1) -> overlap differences (each of
  2 neighbouring projections) -> one fit over all differences (fan-in) -> background
  corrections (the fit and one projection each) -> one co-add over all (fan-in) -> a short tail.
- ``chain``: chains of 10,000 (one chain when ``n`` <= 10,000).
- ``callstack``: Chimbuko's: per MPI rank a call tree (callee -> caller), up to depth 20.
- ``fleet``: XALT's: many runs, each derived from its executable and 3-8 of a few hundred
  shared libraries (a library's descendants are the runs that loaded it).

>>> n, edges = generate("montage", 60, seed=1)
>>> n, len(edges), generate("montage", 60, seed=1) == (n, edges)
(60, 98, True)
>>> sorted(set(SHAPES))
['callstack', 'chain', 'fleet', 'layered', 'montage']
"""

from __future__ import annotations

import random


def layered(n: int, rng: random.Random, width: int = 1000) -> list[tuple[int, int]]:
    width = min(width, max(n // 10, 2))
    return [(i, rng.randrange(i - i % width - width, i - i % width))
            for i in range(width, n) for _ in range(2)]


def montage(n: int, rng: random.Random) -> list[tuple[int, int]]:
    m = max((n - 3) // 4, 2)  # images, projections, differences (m - 1), corrections
    projections = range(m, 2 * m)  # images are 0 .. m - 1
    diffs = range(2 * m, 3 * m - 1)
    fit = 3 * m - 1
    corrections = range(3 * m, 4 * m)
    add = 4 * m
    edges = [(p, p - m) for p in projections]
    edges += [(d, m + k) for k, d in enumerate(diffs)] + [(d, m + k + 1) for k, d in enumerate(diffs)]
    edges += [(fit, d) for d in diffs]
    edges += [(c, fit) for c in corrections] + [(c, m + k) for k, c in enumerate(corrections)]
    edges += [(add, c) for c in corrections]
    edges += [(i, i - 1) for i in range(add + 1, n)]  # shrink, jpeg, ... a tail
    del rng  # the shape is fixed by n
    return edges


def chain(n: int, rng: random.Random, length: int = 10_000) -> list[tuple[int, int]]:
    del rng
    return [(i, i - 1) for i in range(1, n) if i % length]


def callstack(n: int, rng: random.Random, ranks: int = 64) -> list[tuple[int, int]]:
    per_rank = max(n // ranks, 1)
    edges, depth = [], {}
    for i in range(n):
        root = i - i % per_rank
        if i == root:
            depth[i] = 0
            continue
        caller = rng.randrange(root, i)
        while depth[caller] >= 20:
            caller = rng.randrange(root, i)
        depth[i] = depth[caller] + 1
        edges.append((i, caller))
    return edges


def fleet(n: int, rng: random.Random) -> list[tuple[int, int]]:
    libraries = max(n // 200, 20)
    executables = max(n // 1000, 5)
    edges = []
    for run in range(libraries + executables, n):
        edges.append((run, libraries + rng.randrange(executables)))
        edges += [(run, lib) for lib in rng.sample(range(libraries), rng.randint(3, 8))]
    return edges


SHAPES = {"layered": layered, "montage": montage, "chain": chain, "callstack": callstack,
          "fleet": fleet}


def generate(shape: str, n: int, seed: int = 7) -> tuple[int, list[tuple[int, int]]]:
    """``(n, edges)`` of a shape at ``n`` nodes, the same for the same seed."""
    return n, SHAPES[shape](n, random.Random(seed))
