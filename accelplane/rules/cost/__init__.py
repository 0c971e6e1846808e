"""Cost rules: the declared budget (AP-COST-001, -002) and development pools that expire (AP-COST-003)."""
