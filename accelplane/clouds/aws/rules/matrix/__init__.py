"""Version-matrix rules only AWS needs: an EKS node group pins the profile its AMI is checked against."""
