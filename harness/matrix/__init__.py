"""The conformance matrix of real client libraries: its model (pure) and its run (drivers, mock
provider, audit proxy)."""
