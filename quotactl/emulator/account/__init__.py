"""The account's rules and records: resource and service-job records, ARNs, AWS's server-side
rules, resource lifecycles, and what one request sees."""
