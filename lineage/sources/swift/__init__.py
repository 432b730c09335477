"""The swift source: its model, readers and mapping."""
