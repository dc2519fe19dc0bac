"""The mutation score: seeded faults applied to copies of the reference implementation, and the
anchors that keep them pinned to their code."""
