"""Scheduling in the emulated account: one engine per queue, service jobs translated to the
engine's, and the events that fall due as time moves: resources' status steps, then jobs'."""
