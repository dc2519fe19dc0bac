"""The contract as the kit reads it: the rule catalogue, the vector files and the links between
rules and what cites them."""
