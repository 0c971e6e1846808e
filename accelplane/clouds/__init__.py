"""The clouds accelplane deploys to, one folder each with the same sub-layout; each folder's
`SUPPORT` implements `accelplane.cloud_support.CloudSupport`, which is also where the registry lives."""
