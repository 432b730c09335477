"""The chimbuko source: its model, readers and mapping."""
