"""`accelplane rollout parity`: does the canary answer the same, and as fast, as the baseline?"""
