"""The account's rules and records: resource and service-job records, ARNs, AWS's server-side
rules, and what one request sees."""
