"""Settings: read from the environment and the profile file once, then passed down
(:mod:`.settings`; the profile file is :mod:`.profile`), and the package's logging
(:mod:`.logs`: levels, and secrets never written).
"""
