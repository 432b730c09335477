"""The pegasus source: its model, readers and mapping."""
