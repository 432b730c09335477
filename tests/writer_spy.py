"""Counting what the writer sends per transaction, while it still writes it (to the real
server): ``rows_sent(monkeypatch, "_write_edges")`` -> a list that gets each transaction's
row count; ``only`` keeps the groups whose key it accepts."""

from __future__ import annotations

from lineage.load import writer as writer_module


def rows_sent(monkeypatch, write: str = "_write_edges", only=lambda key: True) -> list[int]:
    sent: list[int] = []
    real = getattr(writer_module, write)

    def spy(tx, groups, tag, *rest):
        sent.append(sum(len(rows) for key, rows in groups.items() if only(key)))
        return real(tx, groups, tag, *rest)

    monkeypatch.setattr(writer_module, write, spy)
    return sent
