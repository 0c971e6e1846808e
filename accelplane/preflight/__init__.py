"""`accelplane preflight`: before anything is created, can what the stack declares be had?

Quotas, offerings in every zone a pool uses, the interconnect a training pool asks for, the
reservations it names, the cluster version and node images: read-only, against the live account or
project, one row per check with what the stack needs, what is there, the headroom and the fix.
Each cloud's checks live in `accelplane/clouds/<cloud>/preflight/`; this package holds what is the
same for every cloud (the rows, the verdict, the five report formats, the run).
"""
