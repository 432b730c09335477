"""A layered left-to-right layout for the report's graph, computed in Python before the page
is written (so the browser only draws: no layout work in JavaScript).

Sugiyama's scheme, kept linear-ish for graphs of tens of thousands of nodes: (1) break
cycles by reversing the back edges of a depth-first search; (2) put every node in a layer
(longest path from a source, then sources pulled right next to their first consumer); (3)
order each layer by the barycentre of its neighbours' rows, sweeping left-to-right and
back a few times; (4) a layer taller than ``max_rows`` wraps into several columns.
Edges are given in data-flow direction (inputs, then the process, then its outputs), so
data flows from left to right.

>>> pos = layered(["a", "b", "c"], [("a", "b"), ("b", "c")])
>>> [pos[u][0] for u in "abc"]
[0, 260, 520]
>>> pos["a"][1] == pos["b"][1] == pos["c"][1]
True
"""

from __future__ import annotations

import math
from collections import defaultdict

#: Horizontal distance between layers and vertical distance between rows, in pixels.
LAYER_GAP = 260
ROW_GAP = 40
SWEEPS = 4


def _acyclic(order: list[str], succ: dict[str, list[str]]) -> set[tuple[str, str]]:
    """The back edges of an iterative depth-first search (reversing them breaks every cycle).

    >>> sorted(_acyclic(["a", "b"], {"a": ["b"], "b": ["a"]}))
    [('b', 'a')]
    """
    state: dict[str, int] = {}
    back = set()
    for start in order:
        if start in state:
            continue
        state[start] = 1
        stack = [(start, iter(succ.get(start, ())))]
        while stack:
            node, it = stack[-1]
            for nxt in it:
                s = state.get(nxt)
                if s is None:
                    state[nxt] = 1
                    stack.append((nxt, iter(succ.get(nxt, ()))))
                    break
                if s == 1:
                    back.add((node, nxt))
            else:
                state[node] = 2
                stack.pop()
    return back


def layers_of(order: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """Each node's layer: longest path from a source; a source sits just left of its nearest
    consumer. Cycles are broken first. Edges to unknown nodes are ignored.

    >>> layers_of(["x", "a", "b", "c"], [("a", "b"), ("b", "c"), ("x", "c")])
    {'x': 1, 'a': 0, 'b': 1, 'c': 2}
    """
    known = set(order)
    succ: dict[str, list[str]] = defaultdict(list)
    pairs = set()
    for a, b in edges:
        if a != b and a in known and b in known and (a, b) not in pairs:
            pairs.add((a, b))
            succ[a].append(b)
    back = _acyclic(order, succ)
    succ = defaultdict(list)
    pred: dict[str, list[str]] = defaultdict(list)
    for a, b in pairs:
        if (a, b) in back:
            a, b = b, a
        succ[a].append(b)
        pred[b].append(a)
    indeg = {u: len(pred.get(u, ())) for u in order}
    layer = {u: 0 for u in order}
    ready = [u for u in order if indeg[u] == 0]
    topo = []
    while ready:
        u = ready.pop()
        topo.append(u)
        for v in succ.get(u, ()):
            if layer[u] + 1 > layer[v]:
                layer[v] = layer[u] + 1
            indeg[v] -= 1
            if indeg[v] == 0:
                ready.append(v)
    for u in order:  # sources next to their first consumer, not all in the first column
        if not pred.get(u) and succ.get(u):
            layer[u] = max(0, min(layer[v] for v in succ[u]) - 1)
    return layer


def layered(order: list[str], edges: list[tuple[str, str]], max_rows: int | None = None,
            sweeps: int = SWEEPS) -> dict[str, tuple[int, int]]:
    """Positions ``{uid: (x, y)}`` of a left-to-right layered drawing of the graph.

    ``order`` lists the nodes (its order is the tie-break); ``edges`` are (from, to) pairs in
    data-flow direction. A layer of more than ``max_rows`` nodes (default: about twice the
    square root of the node count, at least 60) wraps into several columns.
    """
    if not order:
        return {}
    layer = layers_of(order, edges)
    neigh_prev: dict[str, list[str]] = defaultdict(list)  # neighbours in an earlier layer
    neigh_next: dict[str, list[str]] = defaultdict(list)  # ... in a later layer
    for a, b in edges:
        if a == b or a not in layer or b not in layer:
            continue
        if layer[a] > layer[b]:
            a, b = b, a
        if layer[a] < layer[b]:
            neigh_next[a].append(b)
            neigh_prev[b].append(a)
    columns: dict[int, list[str]] = defaultdict(list)
    for u in order:
        columns[layer[u]].append(u)
    levels = sorted(columns)
    row: dict[str, float] = {}

    def place(level: int) -> None:
        col = columns[level]
        mid = (len(col) - 1) / 2
        for i, u in enumerate(col):
            row[u] = i - mid

    for level in levels:
        place(level)

    def sweep(seq, neigh) -> None:
        for level in seq:
            col = columns[level]
            keys = {}
            for u in col:
                ns = neigh.get(u)
                keys[u] = (sum(row[v] for v in ns) / len(ns)) if ns else row[u]
            col.sort(key=keys.__getitem__)  # stable: ties keep the previous order
            place(level)

    for i in range(sweeps):
        if i % 2 == 0:
            sweep(levels[1:], neigh_prev)
        else:
            sweep(reversed(levels[:-1]), neigh_next)
    max_rows = max_rows or max(60, int(2 * math.sqrt(len(order))))
    pos: dict[str, tuple[int, int]] = {}
    x = 0
    for level in levels:
        col = columns[level]
        wraps = math.ceil(len(col) / max_rows)
        rows = math.ceil(len(col) / wraps)
        mid = (rows - 1) / 2
        for i, u in enumerate(col):
            pos[u] = (x + (i // rows) * LAYER_GAP, int(round((i % rows - mid) * ROW_GAP)))
        x += wraps * LAYER_GAP
    return pos
