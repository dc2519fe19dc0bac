"""The run pipeline: select cases, call the implementation (in process or through the adapter
protocol), judge each result and record it in the results stream."""
