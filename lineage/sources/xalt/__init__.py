"""The xalt source: its model, readers and mapping."""
