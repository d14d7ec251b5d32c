"""The imperative shell: the event store, the clock and the dice, and (later) the network."""
