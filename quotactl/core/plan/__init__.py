"""Planning: ``diff(desired, observed) -> Plan``, its runtime impact and disruption, its
fingerprint, and the plan document with its envelope (size, signature) and verification."""
